"""Item 5 of issue 12: a word that (almost) no paper holds gets the index's closest words as
suggestions, in the library, on the CLI's stderr and in `--json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from catalog.searching import suggest
from tests.conftest import SEEDS


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _alternatives(catalog, query):
    return {s.word: s.alternatives for s in catalog.words.suggest(query)}


@pytest.mark.parametrize("query,word,best", [
    ("interpretabilty", "interpretabilty", "interpretability"),
    ("atention sink", "atention", "attention"),
    ("diffusoin", "diffusoin", "diffusion"),  # two letters swapped: one edit
    ("Hessain eigenvalues", "Hessain", "hessian"),
])
def test_typos_get_the_closest_indexed_word(seeded_any, query, word, best):
    assert all(p.match == "some" for p in seeded_any.search(query))  # the other words' papers, if any
    assert _alternatives(seeded_any, query)[word][0] == best


@pytest.mark.parametrize("query", ["attention sink", "sparse autoencoder temporal", "interp*",
                                   "attention -atention", "venue:ICML", "", "MCR2 zqxj", "注意力"])
def test_no_suggestions_for_words_the_index_holds_prefixes_negations_and_filters(seeded_any, query):
    assert seeded_any.words.suggest(query) == []


def test_a_word_one_paper_holds_still_gets_a_suggestion_when_a_close_word_is_common(seeded_any):
    key = seeded_any.search("attention", limit=1)[0].key
    seeded_any.add_note(key, "atention is what I misspelled here")
    assert len(seeded_any.search("atention")) == 1
    assert _alternatives(seeded_any, "atention")["atention"][0] == "attention"


def test_the_word_list_is_cached_and_renewed_when_the_index_changes(seeded, tmp_path, monkeypatch):
    from catalog.library import Catalog

    assert _alternatives(seeded, "platypuses") == {}
    saved = next((tmp_path / "cache").rglob("vocabulary")) / f"{ord('i'):x}.tsv"
    assert "interpretability\t" in saved.read_text(encoding="utf-8")
    # another process (a new Catalog) reads the saved list instead of the whole index
    other = Catalog.open(seeded.path)
    try:
        from catalog.store.sqlite.roles import SqliteSearch

        monkeypatch.setattr(SqliteSearch, "vocabulary", lambda self: pytest.fail("read the index again"))
        assert _alternatives(other, "interpretabilty")
        monkeypatch.undo()
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        # an import changes the index: the new words are suggested at once
        (tmp_path / "more.txt").write_text("ICML 2026 Papers\n\nPlatypus venom proteins, studied.\n\n",
                                           encoding="utf-8")
        assert other.import_paths([tmp_path / "more.txt"]).new == 1
        assert _alternatives(other, "platypuses") == {"platypuses": ("platypus",)}
        assert _alternatives(seeded, "platypuses") == {"platypuses": ("platypus",)}
    finally:
        other.close()


def test_a_damaged_cache_file_is_rebuilt(seeded, tmp_path):
    assert _alternatives(seeded, "diffusoin")
    folder = next((tmp_path / "cache").rglob("vocabulary"))
    (folder / "stamp").write_bytes(b"\xff\xfe garbage")
    (folder / f"{ord('d'):x}.tsv").write_bytes(b"\xff\xfe garbage")
    seeded.words._words = None
    assert _alternatives(seeded, "diffusoin")["diffusoin"] == ("diffusion",)


def test_corrected_query_keeps_the_rest():
    from catalog.results import Suggestion

    assert suggest.corrected("atention sink venue:ICML", [Suggestion("atention", ("attention",))]) \
        == "attention sink venue:ICML"


def test_cli_says_did_you_mean_on_stderr(seeded, run_cli):
    result = run_cli("search", "atention", "sinkz", "qqzxwv")  # three unknown words: suggestions only
    assert result.exit_code == 0
    assert "Did you mean: attention sink qqzxwv?" in result.stderr
    two = run_cli("search", "atention", "sinkz")  # two, each with a correction: corrected
    assert "No paper matches 'atention sinkz': showing attention sink." in two.stderr and two.stdout
    found = run_cli("search", "attention", "sink")
    assert "Did you mean" not in found.stderr and found.stdout


def test_cli_json_has_the_suggestions(seeded, run_cli):
    data = json.loads(run_cli("search", "--json", "interpretabilty", "haliucination", "qqzxwv").stdout)
    assert data["papers"] == [] and data["corrected"] is None
    assert data["did_you_mean"] == "interpretability hallucination qqzxwv"
    assert data["suggestions"][0]["word"] == "interpretabilty"
    assert data["suggestions"][0]["alternatives"][0] == "interpretability"
    clean = json.loads(run_cli("search", "--json", "interpretability").stdout)
    assert clean["papers"] and clean["suggestions"] == [] and clean["did_you_mean"] is None


@pytest.mark.parametrize("query,imported", [("attention", False), ("atention", True)])
def test_rapidfuzz_is_imported_only_when_a_word_needs_suggestions(tmp_path, query, imported):
    db = tmp_path / "c.db"
    env = {**os.environ, "CATALOG_DB": str(db), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert subprocess.run([sys.executable, "-m", "catalog", "import", str(SEEDS)], env=env,
                          capture_output=True).returncode == 0
    code = (f"import sys, runpy; sys.argv = ['catalog', 'search', {query!r}]\n"
            "try:\n    runpy.run_module('catalog', run_name='__main__')\n"
            "except SystemExit: pass\n"
            "print('RAPIDFUZZ', 'rapidfuzz' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert f"RAPIDFUZZ {imported}" in out.stdout, out.stdout + out.stderr


def test_a_corrected_query_closes_the_quote_left_open():
    """`catalog search '"unbalanced quote'` said `Did you mean: "unbalanced quite?`, an open
    quote in the line to copy; the phrase ran to the end, as it does closed."""
    from catalog.searching import suggest
    from catalog.results import Suggestion

    assert suggest.corrected('"unbalanced quote', [Suggestion("quote", ("quite",))]) == \
        '"unbalanced quite"'
    assert suggest.corrected('"a b" quote', [Suggestion("quote", ("quite",))]) == '"a b" quite'


def test_a_connecting_word_no_paper_holds_is_not_rewritten(empty_catalog, tmp_path, run_cli):
    """Issue 32's leftover: `graphs toward neural` finds the papers on graphs and neural nets
    (a connecting word beside topic words is optional), yet "toward", which no paper says, was
    offered as a typo of "towards", which a dozen do: a "did you mean" rewriting a word the
    search did not need."""
    entries = "".join(f"@article{{p{i}, title = {{Towards {topic} for graphs of neural networks}}, year = 2024}}\n"
                      for i, topic in enumerate(["robust", "sparse", "fast", "fair", "small", "deep", "wide",
                                                 "exact", "private", "stable", "cheap", "simple"]))
    (tmp_path / "towards.bib").write_text(entries, encoding="utf-8")
    assert empty_catalog.import_paths([tmp_path / "towards.bib"]).new == 12
    assert len(empty_catalog.search("graphs toward neural")) == 12
    assert empty_catalog.words.suggest("graphs toward neural") == []
    assert empty_catalog.words.correction("graphs toward neural") is None
    result = run_cli("search", "graphs", "toward", "neural")
    assert "did you mean" not in result.stderr.lower() and "showing" not in result.stderr
    # Typed alone, or as `=toward`, the word is what is asked for: still a typo of "towards".
    assert _alternatives(empty_catalog, "toward") == {"toward": ("towards",)}
