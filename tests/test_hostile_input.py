"""Hostile input that used to get through (issue "Security and faults"): links that run
commands or launch programs, BibTeX entries read only in part, queries without bounds, and
`catalog sql` statements that eat memory. Each case gets one clear line and loses nothing."""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from catalog.errors import CatalogError
from catalog.library import Catalog
from catalog.searching.query import MAX_QUERY_CHARS, MAX_QUERY_KEYS, MAX_QUERY_TERMS, QueryError, parse
from tests.conftest import SEEDS, opened

ROOT = Path(__file__).resolve().parent.parent


def catalog_cli(db: Path, *args: str, env: dict | None = None, cwd: Path | None = None,
                memory: int | None = None) -> subprocess.CompletedProcess:
    """`catalog --db DB ARGS` as its own process (a browser it starts is a real process too);
    `memory`: the most address space it may take, in bytes."""
    limit = (lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory))) if memory else None
    return subprocess.run([sys.executable, "-m", "catalog", "--db", str(db), *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, cwd=cwd or ROOT, timeout=120,
                          preexec_fn=limit)


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("catalog: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def links_of(catalog: Catalog) -> dict[str, str | None]:
    return {p.title: p.url for p in catalog.exchange.export_papers("")}


def keys_by_title(db: Path) -> dict[str, str]:
    catalog = Catalog.open(db)
    try:
        return {p.title: p.key for p in catalog.exchange.export_papers("")}
    finally:
        catalog.close()


# --- links on import ----------------------------------------------------------------------------

def _bibtex(links: list[str]) -> str:
    return "".join(f"@article{{p{i},\n  title = {{Paper {i}}},\n  abstract = {{Abstract number {i}.}},\n"
                   f"  url = {{{link}}}\n}}\n\n" for i, link in enumerate(links))


def _howpublished(links: list[str]) -> str:
    return "".join(f"@misc{{p{i},\n  title = {{Paper {i}}},\n  abstract = {{Abstract number {i}.}},\n"
                   f"  howpublished = {{\\url{{{link}}}}}\n}}\n\n" for i, link in enumerate(links))


def _ris(links: list[str], tag: str = "UR") -> str:
    return "".join(f"TY  - JOUR\nTI  - Paper {i}\nAB  - Abstract number {i}.\n{tag}  - {link}\nER  - \n\n"
                   for i, link in enumerate(links))


def _csl(links: list[str]) -> str:
    return json.dumps([{"type": "article-journal", "title": f"Paper {i}", "abstract": f"Abstract number {i}.",
                        "URL": link} for i, link in enumerate(links)], indent=1)


def _csv(links: list[str]) -> str:
    return "title,abstract,url\n" + "".join(f'Paper {i},Abstract number {i}.,"{link}"\n'
                                             for i, link in enumerate(links))


def _jsonl(links: list[str]) -> str:
    return "".join(json.dumps({"title": f"Paper {i}", "abstract": f"Abstract number {i}.", "link": link}) + "\n"
                   for i, link in enumerate(links))


FORMATS = {
    "refs.bib": _bibtex, "published.bib": _howpublished, "refs.ris": _ris,
    "attachments.ris": lambda links: _ris(links, "L1"), "csl.json": _csl, "table.csv": _csv,
    "lines.jsonl": _jsonl,
}
LINKS = ["file:///usr/share/applications/evil.desktop", "https://example.com/fine", "javascript:alert(1)",
         "doi:10.1000/abc<1>", "data:text/html,<script>alert(1)</script>",
         "https://example.com/$(touch${IFS}/tmp/x) (seen 2024)", "arXiv:1706.03762", "ftp://example.com/x",
         "www.example.org/page", "paper.pdf"]
EXPECTED = {"Paper 0": None, "Paper 1": "https://example.com/fine", "Paper 2": None,
            "Paper 3": "https://doi.org/10.1000/abc%3C1%3E", "Paper 4": None,
            "Paper 5": "https://example.com/$(touch$%7BIFS%7D/tmp/x)", "Paper 6": None, "Paper 7": None,
            "Paper 8": "https://www.example.org/page", "Paper 9": None}


@pytest.mark.parametrize("name", FORMATS)
def test_imported_links_are_web_pages_and_each_file_says_once_what_it_left_out(empty_catalog, tmp_path, name):
    path = tmp_path / name
    path.write_text(FORMATS[name](LINKS), encoding="utf-8")
    report = empty_catalog.import_paths([path])
    assert report.new == len(LINKS) and not report.errors  # every paper is kept
    links = links_of(empty_catalog)
    assert links == EXPECTED  # the arXiv link is the paper's arXiv id, which exports write as its link
    assert [p.arxiv_id for p in empty_catalog.exchange.export_papers("") if p.title == "Paper 6"] == ["1706.03762"]
    [warning] = report.warnings
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "Paper 0" in text or "p0" in text)
    assert warning.startswith(f"{path}:")
    for said in ("5 links", "file:", "javascript:", "data:", "ftp:", "not a web address", "only http and https"):
        assert said in warning, warning
    assert line - 3 <= int(warning.removeprefix(f"{path}:").split(":")[0]) <= line


def test_the_cli_reports_left_out_links_and_says_so_in_its_exit_status(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text(_bibtex(["file:///etc/passwd", "https://example.com/a"]), encoding="utf-8")
    result = catalog_cli(tmp_path / "c.db", "import", str(path))
    assert result.returncode == 1
    assert f"{path}:1: a link (file:) is left out" in result.stderr
    assert "2 new" in result.stderr


def test_a_link_an_older_catalog_kept_unencoded_is_the_same_link(tmp_path):
    """A same-title paper merges unless something contradicts it, a different link included:
    the link as an older catalog kept it (`{`, `|`) and as imports now encode it are one."""
    db = tmp_path / "c.db"
    first, second = tmp_path / "a.bib", tmp_path / "b.bib"
    entry = "@article{{k, title = {{Same paper here}}, author = {{Ng, Ada}}, year = {{2020}}, url = {{{}}}}}\n"
    first.write_text(entry.format("https://example.org/p"), encoding="utf-8")
    catalog = Catalog.open(db)
    catalog.import_paths([first])
    catalog.close()
    conn = sqlite3.connect(db)
    conn.execute("UPDATE paper SET url = 'https://example.org/{p}|q'")
    conn.commit()
    conn.close()
    second.write_text(entry.format("https://example.org/{p}|q"), encoding="utf-8")
    catalog = Catalog.open(db)
    try:
        report = catalog.import_paths([second])
        assert (report.new, report.known) == (0, 1)
    finally:
        catalog.close()


# --- opening links ------------------------------------------------------------------------------

def _shell_links(folder: Path) -> list[str]:
    """Links a shell would run commands from; each names a file in `folder` it would create.
    All but the first are valid URLs (RFC 3986 allows $ ( ) ; & ' in a path or query)."""
    return [f"https://example.com/$(touch${{IFS}}{folder}/braces)",
            f"https://example.com/x;touch$IFS{folder}/semicolon",
            f"https://example.com/?a=1&touch$IFS{folder}/ampersand",
            f"https://example.com/$(touch$IFS{folder}/substitution)",
            f"https://example.com/x'$(touch$IFS{folder}/quote)'"]


@pytest.mark.parametrize("template", ["sh -c 'echo %s > out'", "sh -c \"echo '%s' > out\"",
                                      "sh -c 'echo \"%s\" > out'"])
def test_a_browser_template_that_uses_a_shell_runs_no_command_from_a_link(tmp_path, template):
    folder = tmp_path / "made"
    folder.mkdir()
    links = _shell_links(folder)
    bib = tmp_path / "refs.bib"
    bib.write_text(_bibtex(links), encoding="utf-8")
    db = tmp_path / "c.db"
    assert catalog_cli(db, "import", str(bib)).returncode == 0
    keys = keys_by_title(db)
    for i in range(len(links)):
        result = catalog_cli(db, "open", keys[f"Paper {i}"], env={"BROWSER": template}, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        given = (tmp_path / "out").read_text().strip()
        assert given.startswith("https://example.com/") and not set(given) & set("$;&'()`\"{} "), given
    assert list(folder.iterdir()) == []


def test_opening_a_file_link_an_older_catalog_kept_is_refused(tmp_path, browser):
    db = tmp_path / "c.db"
    bib = tmp_path / "refs.bib"
    bib.write_text(_bibtex(["https://example.com/a", "https://example.com/search?q=a&page=2#(x)"]), encoding="utf-8")
    assert catalog_cli(db, "import", str(bib)).returncode == 0
    conn = sqlite3.connect(db)  # what a catalog imported before links were checked may hold
    conn.execute("UPDATE paper SET url = 'file:///usr/share/applications/evil.desktop' WHERE title = 'Paper 0'")
    conn.commit()
    conn.close()
    keys = keys_by_title(db)
    for args in (["open", keys["Paper 0"]], ["open", "--print", keys["Paper 0"]]):
        result = catalog_cli(db, *args)
        assert result.returncode == 1 and result.stdout == ""
        assert "only http and https links are opened (file:)" in one_line(result.stderr)
    assert opened(browser) == []
    # A link that is an argument of its own reaches the browser as it is, `&` and all.
    assert catalog_cli(db, "open", keys["Paper 1"]).returncode == 0
    assert opened(browser) == ["https://example.com/search?q=a&page=2#(x)"]


# --- BibTeX entries read in part ----------------------------------------------------------------

GOOD = "@article{good2020,\n  title = {A good paper},\n  abstract = {Fine abstract.},\n  year = {2020}\n}\n\n"
PARTLY = {
    # The entry: a stray `}` ends the entry inside the title.
    "stray brace": ("@article{bad2023,\n  title = {Unbalanced } close brace in title},\n"
                    "  abstract = {This abstract was lost.},\n  year = {2023}\n}\n",
                    "field 'title' has unbalanced braces or quotes and cut the entry short; fields 'abstract' "
                    "and 'year' after it were read on their own"),
    "on one line": ("@article{bad2023, title = {Unbalanced } close brace in title}, abstract = {This abstract "
                    "was lost.}, year = {2023}}\n", "fields 'abstract' and 'year' after it were read on their own"),
    "in the abstract": ("@article{bad2023,\n  title = {Unbalanced close brace in title},\n"
                        "  abstract = {This abstract } was lost.},\n  year = {2023}\n}\n",
                        "field 'abstract' has unbalanced braces or quotes and cut the entry short; field 'year' "
                        "after it was read on its own"),
    # Two commas missing (nime.bib's nime2011_Tseng): the url took the two fields after it.
    "commas missing": ("@inproceedings{bad2023,\n  title = {Unbalanced close brace in title},\n  year = {2023},\n"
                       "  url = {https://example.org/p.pdf}\n  keywords = {sound, relax}\n"
                       "  abstract = {This abstract was lost.}\n}\n",
                       "field 'url' runs into the field after it (a comma missing?); fields 'keywords' and "
                       "'abstract' after it were read on their own"),
}


@pytest.mark.parametrize("case", PARTLY)
def test_a_bibtex_entry_read_in_part_is_reported_with_its_line_and_loses_nothing(tmp_path, case):
    text, said = PARTLY[case]
    path = tmp_path / "refs.bib"
    path.write_text(GOOD + text, encoding="utf-8")
    db = tmp_path / "c.db"
    result = catalog_cli(db, "import", str(path))
    assert result.returncode == 1  # a warning: something in the file needs a look
    [warning] = [line for line in result.stderr.splitlines() if "bad2023" in line]
    assert warning.startswith(f"catalog: {path}:7: entry 'bad2023' ") and said in warning, warning
    catalog = Catalog.open(db)
    try:
        found = {p.title: (p.abstract, p.year) for p in catalog.exchange.export_papers("")}
    finally:
        catalog.close()
    assert found == {"A good paper": ("Fine abstract.", 2020),
                     "Unbalanced close brace in title": ("This abstract was lost.", 2023)}


def test_fields_of_a_bibtex_entry_that_cannot_be_read_again_are_named(empty_catalog, tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text("@article{bad, title = {X } Y}, abstract = {An abstract} year = {2023}}\n", encoding="utf-8")
    report = empty_catalog.import_paths([path])
    [warning] = report.warnings
    assert warning.startswith(f"{path}:1: entry 'bad' field 'title' has unbalanced braces") and \
        "field 'year' after it is lost" in warning, warning
    assert [(p.title, p.year) for p in empty_catalog.exchange.export_papers("")] == [("X Y", None)]


# --- queries --------------------------------------------------------------------------------------

def test_a_query_longer_than_the_limit_gets_one_short_line_without_the_query():
    parse("a" * MAX_QUERY_CHARS)
    for query in ("word " * 20_000, " OR ".join(["a"] * 2_000), '"' + "a " * 1_000 + '"', "模型" * 1_000):
        with pytest.raises(QueryError) as error:
            parse(query)
        message = str(error.value)
        assert len(message) < 120 and "word word" not in message and "a OR a" not in message and "a a" not in message


def test_a_query_with_more_terms_than_the_limit_gets_one_line(seeded):
    words = "model attention sparse learning neural graph data training network language".split()
    most = (words * 7)[:MAX_QUERY_TERMS]
    allowed = (" OR ".join(most), " ".join(most), " ".join(f"{w[:3]}*" for w in most), '"' + " ".join(most) + '"')
    for query in allowed:  # the longest queries allowed run on every path
        assert len(query) <= MAX_QUERY_CHARS
        seeded.search(query, limit=20)
        seeded.count(query)
        seeded.facets(query)
    for query in (" OR ".join(most + ["x"]), " ".join(most + ["x"]), " ".join(most + ["year:2020"]),
                  '"' + " ".join(most) + ' x"', " ".join(most[:-1]) + " multi-agent"):
        with pytest.raises(QueryError, match=f"at most {MAX_QUERY_TERMS}"):
            parse(query)
    # The TUI narrows to up to 400 marked papers with `key:` filters, on top of the query.
    keys = " OR ".join(f"key:{p.key}" for p in seeded.search("", limit=MAX_QUERY_KEYS, snippets=False))
    seeded.search(f"{keys} {' '.join(most)}", limit=20)
    with pytest.raises(QueryError, match=f"at most {MAX_QUERY_KEYS}"):
        parse(" OR ".join(f"key:k{i:06d}" for i in range(MAX_QUERY_KEYS + 1)))


@pytest.mark.parametrize("query", [" OR ".join(["a"] * 2_000), "word " * 20_000,
                                   " ".join(f"-w{i}" for i in range(300)), "topic:99999999999999999999",
                                   "topic:²", "rating:²", "year:²²²²"])
def test_the_cli_answers_a_hostile_query_with_one_line(tmp_path, query):
    result = catalog_cli(tmp_path / "c.db", "search", "--", query)
    assert result.returncode == 1
    assert len(one_line(result.stderr)) < 200


# --- catalog sql ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def seeded_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sql") / "c.db"
    Catalog.open(path).import_paths([SEEDS])
    return path


@pytest.mark.parametrize("timeout", ["nan", "inf", "-inf", "0", "-1", "NaN"])
def test_sql_timeout_must_be_a_finite_positive_number(seeded_db, timeout):
    result = catalog_cli(seeded_db, "sql", "--timeout", timeout, "SELECT count(*) FROM paper")
    assert result.returncode == 1 and result.stdout == ""
    assert "--timeout" in one_line(result.stderr) and "above 0" in result.stderr


def test_sql_refuses_a_value_too_large_to_hold_at_once(seeded_db):
    # Under 1.5 GB of address space: before, zeroblob(1000000000) took 5 GB and past a minute.
    result = catalog_cli(seeded_db, "sql", "SELECT zeroblob(1000000000)", memory=1_500_000_000)
    assert result.returncode == 1
    assert "over 64 MB" in one_line(result.stderr)


def test_sql_stops_a_result_too_large_to_hold(seeded_db, monkeypatch):
    from catalog.store.sqlite import readonly

    monkeypatch.setattr(readonly, "MAX_RESULT_BYTES", 1 << 20)
    catalog = Catalog.open(seeded_db)
    endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x, 'text' FROM c"
    with pytest.raises(CatalogError) as error:
        catalog.admin.run_sql(endless, timeout=60)
    assert "the result passed 1 MB" in str(error.value) and "LIMIT" in str(error.value)
    columns, rows = catalog.admin.run_sql("SELECT key FROM paper", timeout=60)
    assert len(rows) == 90
