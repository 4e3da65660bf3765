"""`catalog export QUERY` reads QUERY as `catalog search` does (issue 29): a key, a key prefix, a
cite key, a DOI or an arXiv id typed as the whole query exports that paper, and a query that
matches nothing writes nothing and says so."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def cli(run_cli):
    done = run_cli("import", str(DATA / "libraries" / "arxiv-forms.bib"), str(DATA / "zotero.bib"))
    assert done.exit_code == 0, done.stderr
    return run_cli


def _cited(output: str) -> list[str]:
    return [line.split("{", 1)[1].rstrip(",") for line in output.splitlines() if line.startswith("@")]


@pytest.mark.parametrize("query", [
    "vaswani2017attention", "vaswani_attention_2017", "citekey:vaswani2017attention", "1706.03762",
    "arXiv:1706.03762", "https://arxiv.org/abs/1706.03762", "https://doi.org/10.48550/arXiv.1706.03762",
])
def test_anything_search_names_a_paper_by_exports_that_paper(cli, query):
    done = cli("export", query, "-f", "bibtex")
    assert done.exit_code == 0, done.stderr
    assert _cited(done.stdout) == ["vaswani2017attention"]  # its first file's key
    assert done.stdout.count("@") == 1


def test_a_key_and_its_prefix_export_the_paper_search_shows(cli):
    key = cli("search", "Attention Is All You Need").stdout.split()[0]
    for query in (key, key[:4], "10.1016/j.neunet.2014.09.003"):
        done = cli("export", query, "-f", "bibtex")
        assert done.exit_code == 0 and len(_cited(done.stdout)) == 1, (query, done.stderr)


def test_a_query_that_matches_nothing_writes_no_file(cli, tmp_path):
    target = tmp_path / "none.bib"
    done = cli("export", "zzqx9", "-o", str(target))  # a key no paper has
    assert done.exit_code == 1 and "no paper matches 'zzqx9'" in done.stderr
    assert not target.exists()
