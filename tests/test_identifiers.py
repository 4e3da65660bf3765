"""Item 6 of issue 12: a key, a key prefix, a DOI or an arXiv id typed as the whole query finds
that paper first, with the usual search results after it."""

from __future__ import annotations

import json

import pytest

from catalog.searching.identifiers import KEY_LETTERS, identify

BIB = r"""
@article{doi1, title = {Kernel Sums of Quokka Gradients}, author = {Ada Lovelace},
  year = {2024}, doi = {10.1145/3580305.3599256},
  abstract = {We study quokka gradients and attention heads with kernel sums.}}
@article{arx1, title = {Wombat Scaling for Attention}, author = {Alan Turing}, year = {2025},
  eprint = {2501.01234}, archivePrefix = {arXiv},
  abstract = {Wombats scale attention, as 10.1145/3580305.3599256 suggested.}}
@article{old1, title = {An Old Preprint on Platypus Strings}, author = {Emmy Noether}, year = {2001},
  eprint = {cs/0101001}, archivePrefix = {arXiv},
  abstract = {Platypus strings are studied.}}
"""


@pytest.fixture
def catalog(seeded, tmp_path):
    bib = tmp_path / "ids.bib"
    bib.write_text(BIB, encoding="utf-8")
    assert not seeded.import_paths([bib]).errors
    return seeded


def _key(catalog, word):
    return catalog.search(word, limit=1)[0].key


def test_the_key_alphabet_is_the_one_keys_are_made_of():
    from catalog.importing.identity import _KEY_ALPHABET

    import re
    assert "".join(ch for ch in map(chr, range(128)) if re.fullmatch(f"[{KEY_LETTERS}]", ch)) == _KEY_ALPHABET


@pytest.mark.parametrize("text,kind,value", [
    ("10.1145/3580305.3599256", "doi", "10.1145/3580305.3599256"),
    ("doi:10.1145/3580305.3599256", "doi", "10.1145/3580305.3599256"),
    ("https://doi.org/10.1145/3580305.3599256", "doi", "10.1145/3580305.3599256"),
    ("https://doi.org/10.1145%2F3580305.3599256", "doi", "10.1145/3580305.3599256"),
    ("2501.01234", "arxiv", "2501.01234"),
    ("arXiv:2501.01234v2", "arxiv", "2501.01234"),
    ("https://arxiv.org/abs/2501.01234v3", "arxiv", "2501.01234"),
    ("cs/0101001", "arxiv", "cs/0101001"),
    ("NJZF*", "key", "njzf"),
])
def test_identifiers_are_recognised(text, kind, value):
    found = identify(text)
    assert (found.kind, found.value) == (kind, value)


@pytest.mark.parametrize("text", ["njz", "model", "two words", "venue:ICML", '"a phrase"'])
def test_other_queries_name_nothing(text):
    assert identify(text) is None


@pytest.mark.parametrize("query", ["doi:10.1145/3580305.3599256", "https://doi.org/10.1145/3580305.3599256",
                                   "10.1145/3580305.3599256"])
def test_a_doi_finds_its_paper_first_then_the_papers_that_mention_it(catalog, query):
    found = catalog.search(query)
    assert [p.title for p in found[:2]] == ["Kernel Sums of Quokka Gradients", "Wombat Scaling for Attention"]
    assert catalog.count(query) == 2


@pytest.mark.parametrize("query", ["2501.01234", "arXiv:2501.01234v2", "arxiv.org/abs/2501.01234"])
def test_an_arxiv_id_finds_its_paper(catalog, query):
    assert [p.title for p in catalog.search(query)] == ["Wombat Scaling for Attention"]
    assert catalog.count(query) == 1


def test_an_old_style_arxiv_id_finds_its_paper(catalog):
    assert [p.title for p in catalog.search("cs/0101001")] == ["An Old Preprint on Platypus Strings"]


def test_a_key_and_a_unique_key_prefix_find_the_paper(catalog):
    key = _key(catalog, "platypus")
    for typed in (key, key.upper(), key[:4], key[:5] + "*"):
        found = catalog.search(typed)
        assert found and found[0].key == key, typed
        assert catalog.count(typed) == len(catalog.search(typed, limit=1000))


def test_the_named_paper_comes_first_and_is_not_shown_twice(catalog):
    """A key that is also found as text (in a note) leads, and the text hit is not repeated;
    pages after the first continue where the first stopped."""
    key = _key(catalog, "platypus")
    others = [p.key for p in catalog.search("attention", limit=3)]
    catalog.add_note(others[0], f"see {key}")
    catalog.add_note(key, f"mentions {key} itself")
    found = [p.key for p in catalog.search(key)]
    assert found == [key, others[0]]
    assert catalog.count(key) == 2
    assert [p.key for p in catalog.search(key, offset=1)] == [others[0]]
    assert [p.key for p in catalog.search(key, limit=1)] == [key]


def test_facets_count_the_papers_an_identifier_lists(catalog):
    """The TUI's sidebar counts what the list shows: the named paper and the papers citing
    it, not zero (the words of a DOI or a key find nothing as text)."""
    key = _key(catalog, "platypus")
    catalog.set_status([key], "read")
    for typed in (key, key[:4], "10.1145/3580305.3599256", "arXiv:2501.01234v2"):
        facets = catalog.facets(typed)
        assert facets.total == catalog.count(typed) == len(catalog.search(typed, limit=100)), typed
        assert sum(n for _, _, n in facets.venues) == facets.total, typed
    assert dict(catalog.facets(key).statuses) == {"read": 1}
    assert dict(catalog.facets("10.1145/3580305.3599256").statuses) == {"unread": 2}


def test_a_key_prefix_that_is_also_a_word_searches_as_usual(catalog, tmp_path):
    """A paper keyed `sparse7`: `sparse` means the word, `spar` (no such word) the paper."""
    words = [p.key for p in catalog.search("sparse", limit=200)]
    lines = tmp_path / "keyed.jsonl"
    lines.write_text(json.dumps({"key": "sparse7", "title": "Echidna Spines",
                                 "abstract": "Echidna spines, measured."}) + "\n", encoding="utf-8")
    assert catalog.import_paths([lines]).new == 1
    assert catalog.search("echidna")[0].key == "sparse7"
    assert [p.key for p in catalog.search("sparse", limit=200)] == words
    assert [p.key for p in catalog.search("spar")] == ["sparse7"]
    assert [p.key for p in catalog.search("sparse7")] == ["sparse7"]


def test_a_prefix_two_keys_share_names_neither(catalog):
    keys = sorted(p.key for p in catalog.search("", limit=1000, snippets=False))
    shared = [a[:4] for a, b in zip(keys, keys[1:]) if a[:4] == b[:4]]
    prefix = shared[0] if shared else keys[0][:4]
    hits = [p.key for p in catalog.search(prefix)]
    assert (hits == []) if shared else (hits == [keys[0]])


def test_cli_search_by_doi_and_key(catalog, run_cli):
    result = run_cli("search", "--json", "doi:10.1145/3580305.3599256")
    assert result.exit_code == 0, result.output
    papers = json.loads(result.stdout)["papers"]
    assert papers[0]["title"] == "Kernel Sums of Quokka Gradients"
    key = papers[0]["key"]
    out = run_cli("search", key[:5])
    assert out.exit_code == 0 and out.stdout.startswith(key)
    arxiv = run_cli("search", "arXiv:2501.01234v2")
    assert arxiv.exit_code == 0 and "Wombat Scaling" in arxiv.stdout


def test_cli_says_when_no_paper_has_the_id(catalog, run_cli):
    result = run_cli("search", "doi:10.1234/nothing.here")
    assert result.exit_code == 0 and result.stdout == ""
    assert "No paper has DOI 10.1234/nothing.here." in result.stderr
    result = run_cli("search", "arXiv:2401.00001v3")
    assert "No paper has arXiv id 2401.00001." in result.stderr
