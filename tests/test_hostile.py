"""Hostile input, end to end: files, queries, note text, tags and SQL reach the database and the
terminal only as clear errors or literal text, never as a traceback or an escape sequence.

The parsers have their own property tests (test_paperlist.py, test_search.py); these go
through the importer, the library and the CLI. The number of inputs each property test
tried is printed at the end of the module (pytest -s).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from catalog.cli import main
from catalog.errors import CatalogError
from catalog.library import Catalog
from catalog.searching.query import QueryError
from catalog.text.terminal import safe
from tests.conftest import SEEDS

TRIED: Counter[str] = Counter()
ROOT = Path(__file__).resolve().parent.parent
def FAST(n: int) -> settings:
    return settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), database=None)

MARKUP = ["[bold red]", "[/]", "[/bold red]", "[link=http://evil.example]", "[/link]", "[blink]",
          ":smile:", "[", "]", "\\[", "[[", "]]", "{x}", "%s", "$x^2$", "*b*", "`c`", "<b>", "&amp;"]
ESCAPES = ["\x1b[31m", "\x1b[0m", "\x1b[2J", "\x1b]0;title\x07", "\x1b]8;;http://evil\x1b\\", "\x1b]8;;\x1b\\",
           "\x1bP+q\x1b\\", "\x1b", "\x07", "\x08", "\r", "\x00", "\x7f", "\x9b31m", "\x85", "\u202e", "\ufeff"]
WORDS = ["attention", "graph", "中文", "😀", "é", "a", "-", "OR", "NOT", '"', "*", ":", "tag:", "venue:"]
HOSTILE_TEXT = st.lists(st.one_of(st.sampled_from(MARKUP + ESCAPES + WORDS), st.text(max_size=8)),
                        max_size=30).map(" ".join)
ANY_TEXT = st.one_of(HOSTILE_TEXT, st.text(st.characters(blacklist_categories=("Cs",)), max_size=300))


@pytest.fixture(scope="module", autouse=True)
def tally():
    yield
    print("\nhostile inputs tried: " + ", ".join(f"{k} {v}" for k, v in sorted(TRIED.items()))
          + f"; total {sum(TRIED.values())}")


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> tuple[Path, Catalog, str]:
    """One seeded catalog for the property tests (examples add to it; that is fine)."""
    path = tmp_path_factory.mktemp("hostile") / "catalog.db"
    catalog = Catalog.open(path)
    catalog.import_paths([SEEDS])
    key = catalog.search("influence functions", limit=1)[0].key
    yield path, catalog, key
    catalog.close()
    _assert_consistent(path)


def cli(db: Path, *args: str):
    # An empty note opens $EDITOR: make that one that exits at once without saving.
    result = CliRunner().invoke(main, ["--db", str(db), *args], env={"EDITOR": "true", "VISUAL": "true"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"catalog {args!r} raised {result.exception!r}") from result.exception
    return result


def _assert_consistent(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.execute("INSERT INTO paper_fts(paper_fts, rank) VALUES ('integrity-check', 1)")
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.rollback()
        conn.close()


def _one_line_error(message: str) -> None:
    assert message and "\n" not in message and "Traceback" not in message
    assert "\x1b" not in message


# --- files through the importer ------------------------------------------------------

PAPER_LIST = st.builds(
    lambda header, paragraphs, sep: header + sep.join(paragraphs),
    st.sampled_from(["ICML 2026 Papers\n\n", "X 1999\n", "", "\ufeffACL 2020 Papers\r\n\r\n",
                     "[bold]V[/] 2020 Papers\n\n", "\x1b[31mV 2020\n\n"]),
    st.lists(ANY_TEXT, max_size=6),
    st.sampled_from(["\n\n", "\r\n\r\n", "\n \n", "\n"]),
).map(lambda s: s.encode("utf-8", "surrogatepass"))

BIBTEX = st.lists(st.builds(
    lambda kind, key, fields: f"@{kind}{{{key},\n" + ",\n".join(f"  {k} = {v}" for k, v in fields) + "\n}\n",
    st.sampled_from(["article", "inproceedings", "misc", "string", "comment", "preamble", "ARTICLE", ""]),
    st.sampled_from(["k1", "k 2", "", "a,b", "ü", "{", "k1"]),
    st.lists(st.tuples(
        st.sampled_from(["title", "abstract", "author", "year", "doi", "eprint", "journal", "booktitle",
                         "url", "note", "TITLE", "x"]),
        st.one_of(ANY_TEXT.map(lambda t: "{" + t + "}"), ANY_TEXT.map(lambda t: '"' + t + '"'),
                  st.sampled_from(["2020", "{2020}", "jan", "{{nested {braces}}}", "{unclosed", '"', "}",
                                   "{\\'e\\\"o\\ss{}}", "{$\\alpha$}", "a # b"]))),
        max_size=6),
), max_size=5).map(lambda entries: "".join(entries).encode("utf-8", "surrogatepass"))

JSONISH = st.one_of(
    st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), ANY_TEXT),
                 lambda inner: st.one_of(st.lists(inner, max_size=4),
                                         st.dictionaries(st.sampled_from(["title", "abstract", "authors", "year",
                                                                          "venue", "doi", "author", "x"]),
                                                         inner, max_size=5)),
                 max_leaves=12).map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
)
CSVISH = st.lists(st.lists(ANY_TEXT, min_size=1, max_size=4).map(
    lambda cells: ",".join('"' + c.replace('"', '""') + '"' if i % 2 else c for i, c in enumerate(cells))),
    max_size=6).map(lambda rows: ("title,abstract,year,venue\n" + "\n".join(rows)).encode("utf-8", "surrogatepass"))

FILES = st.one_of(
    st.tuples(st.just("list.txt"), st.one_of(PAPER_LIST, st.binary(max_size=400))),
    st.tuples(st.just("refs.bib"), st.one_of(BIBTEX, st.binary(max_size=300))),
    st.tuples(st.sampled_from(["data.json", "data.jsonl"]), JSONISH),
    st.tuples(st.sampled_from(["sheet.csv", "sheet.tsv"]), st.one_of(CSVISH, st.binary(max_size=200))),
)


@FAST(250)
@given(file=FILES)
@example(file=("list.txt", b"ICML 2026 Papers\n\n[bold red]markup[/] \x1b[31mred\x1b[0m\n"))
@example(file=("refs.bib", b"@article{a, title={[b]x[/b] \x1b[2J}, abstract={y}}"))
@example(file=("refs.bib", b"@article{"))
@example(file=("data.json", b"[{\"title\": \"\\u001b[31mx\", \"abstract\": \"\\u0000\"}]"))
@example(file=("sheet.csv", b"\xff\xfe\x00"))
def test_any_file_imports_or_gives_a_clear_error(shared, tmp_path_factory, file):
    TRIED["files (paper list, BibTeX, JSON, CSV)"] += 1
    name, data = file
    path, catalog, _ = shared
    folder = tmp_path_factory.mktemp("file", numbered=True)
    (folder / name).write_bytes(data)
    report = catalog.import_paths([folder / name])
    [one] = report.files
    if one.error:
        _one_line_error(strip_ansi_free(one.error))
    for warning in one.warnings:
        assert "Traceback" not in warning


def strip_ansi_free(message: str) -> str:
    """Errors quote file contents; the CLI strips control characters before printing them."""
    from catalog.text.terminal import safe

    return safe(message)


# --- queries ---------------------------------------------------------------------------

QUERIES = st.one_of(
    st.lists(st.sampled_from(["venue:", "year:", "year:2020..", "year:..2020", "year:2026..2024", "tag:",
                              "status:", "rating:", "rating:>=", "rating:>9", "has:", "key:", "-", "--x",
                              "NOT", "OR", "AND", "NEAR", "(", ")", '"', '""', "*", "**", "^", "\\", "'",
                              ":", "::", "a:b:c", "c++", "20.04", "multi-agent", "中文", "图论", "😀",
                              "\x00", "\u200b", "\x1b[31m", "[b]", "é*", "-\"a b\"", "venue:\"a b\""]),
             max_size=8).map(" ".join),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=60),
    HOSTILE_TEXT,
)


@FAST(300)
@given(query=QUERIES)
@example(query="\x00")
@example(query="year:99999999999999999999999")
@example(query="rating:>=99999999999999999999")
@example(query="x" * 100_000)
def test_any_query_gives_results_or_one_clear_error(shared, query):
    TRIED["queries"] += 1
    _, catalog, _ = shared
    try:
        catalog.search(query, limit=5)
        catalog.count(query)
    except QueryError as exc:
        _one_line_error(str(exc))


@FAST(40)
@given(query=QUERIES.filter(lambda q: not q.startswith("-")))
def test_any_query_through_the_cli(shared, query):
    TRIED["queries through the CLI"] += 1
    path, _, _ = shared
    for command in (["search"], ["list"], ["search", "--json"]):
        result = cli(path, *command, query)
        assert result.exit_code in (0, 1), result.output
        if result.exit_code:
            _one_line_error(result.stderr.strip())
        assert "\x1b" not in result.stdout


# --- user text: notes, tags, titles -----------------------------------------------------

NOTES = st.one_of(ANY_TEXT, st.text(max_size=2000).filter(lambda t: not any("\ud800" <= c <= "\udfff" for c in t)))


@FAST(150)
@given(body=NOTES)
@example(body="x" * 1_000_000)
@example(body="\x00 nul \x00")
@example(body="[bold red]not bold[/] \x1b[31mnot red\x1b[0m \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\")
@example(body=" \t\n ")
def test_any_note_is_kept_and_shown_literally(shared, body):
    TRIED["notes through the CLI"] += 1
    path, _, key = shared
    result = cli(path, "note", key, "--", body)  # `--`: a note may start with "-"
    kept = safe(body).strip()  # control characters never enter the catalog
    if not kept:
        assert result.exit_code == 1, result.output
        assert "a note needs some text" in result.stderr or "not saved" in result.stderr
        return
    assert result.exit_code == 0, result.output
    number = int(re.search(r"Saved note (\d+)", result.stderr)[1])
    shown = json.loads(cli(path, "show", "--json", key).stdout)
    assert shown["notes"][number - 1]["body"] == kept  # the user's text, but for control characters
    plain = cli(path, "show", key).stdout
    assert not set(plain) & CONTROL_CHARS
    assert cli(path, "note", key, "--delete", str(number)).exit_code == 0


CONTROL_CHARS = {chr(c) for c in [*range(0, 9), *range(0x0B, 0x20), *range(0x7F, 0xA0)]}


@FAST(150)
@given(name=ANY_TEXT.map(lambda t: t[:60]))
@example(name="\x1b[31mred")
@example(name="[bold]b[/]")
@example(name="a/b/c")
@example(name="/")
def test_any_tag_name_is_refused_clearly_or_kept(shared, name):
    TRIED["tag names"] += 1
    _, catalog, key = shared
    try:
        [summary] = catalog.tag([key], add=[name]).papers
    except CatalogError as exc:
        _one_line_error(str(exc))
        return
    added = set(summary.tags)
    assert safe(name).strip().strip("/") in added, (name, added)
    assert not set("".join(added)) & CONTROL_CHARS
    try:
        catalog.search(f"tag:{name}", limit=5)
    except QueryError as exc:
        _one_line_error(str(exc))
    catalog.tag([key], remove=[name])


@FAST(80)
@given(title=ANY_TEXT)
def test_any_title_is_kept_and_listed_literally(shared, title):
    TRIED["titles through the CLI"] += 1
    path, _, key = shared
    result = cli(path, "title", key, title)
    assert result.exit_code in (0, 1, 2) and "Traceback" not in result.output
    if result.exit_code == 1:
        _one_line_error(result.stderr.strip())
    elif result.exit_code == 2:  # starts with "-": click says it is no option it knows
        assert "No such option" in result.stderr
    listed = cli(path, "list", "-n", "5")
    assert not set(listed.stdout) & CONTROL_CHARS
    cli(path, "title", key, "--clear")


# --- files the operating system makes hostile ---------------------------------------------

GOOD = b"ICML 2026 Papers\n\nA perfectly fine abstract about ferrets and their habits.\n"


def _import(db: Path, *paths: Path):
    result = cli(db, "import", *map(str, paths))
    assert "Traceback" not in result.output
    for line in result.stderr.splitlines():
        assert "\x1b" not in line
    return result


BAD_FILES = {
    "binary": (b"\x00\x01\x02\xff" * 1000, "binary file"),
    "empty": (b"", "file is empty"),
    "only blank lines": (b"\n\n  \n\t\n", "file is empty"),
    "a PDF": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "PDF"),
    "Latin-1": ("ICML 2026 Papers\n\nCafé résumé naïve.\n".encode("latin-1"), "not valid UTF-8"),
    "Shift-JIS": ("ICML 2026 Papers\n\n日本語の要約です。\n".encode("shift_jis"), "not valid UTF-8"),
    "UTF-16 without a BOM": ("ICML 2026 Papers\n\nAn abstract.\n".encode("utf-16-le"), "UTF-16"),
    "multi-megabyte single paragraph": (b"ICML 2026 Papers\n\n" + b"word " * 1_200_000, "characters"),
    "multi-megabyte single line, no header": (b"x" * 6_000_000, "header"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_files_get_one_line_each_and_the_good_file_still_imports(db_path, tmp_path, case):
    data, message = BAD_FILES[case]
    bad = tmp_path / "bad.txt"
    bad.write_bytes(data)
    good = tmp_path / "good.txt"
    good.write_bytes(GOOD)
    result = _import(db_path, bad, good)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and message in lines[0] and "1 new" in lines[1], result.stderr


def test_utf16_and_utf8_with_a_bom_import(db_path, tmp_path):
    for i, enc in enumerate(("utf-16", "utf-8-sig")):
        f = tmp_path / f"bom{i}.txt"
        f.write_bytes(f"ICML 2026 Papers\n\nAbstract {i} in {enc}.\n".encode(enc))
        assert _import(db_path, f).exit_code == 0


def test_a_folder_with_symlink_loops_fifos_and_devices(db_path, tmp_path):
    folder = tmp_path / "lists"
    folder.mkdir()
    (folder / "good.txt").write_bytes(GOOD)
    (folder / "up").symlink_to("..")  # a loop through the parent
    (folder / "self").symlink_to(".")  # a loop to itself
    (folder / "loop.txt").symlink_to("loop.txt")  # a symlink to itself (ELOOP)
    (folder / "dangling.txt").symlink_to("nowhere.txt")
    (folder / "zero.txt").symlink_to("/dev/zero")  # endless bytes
    (folder / "dir.txt").mkdir()
    os.mkfifo(folder / "fifo.txt")  # opening it would block forever
    result = _import(db_path, folder)
    assert result.exit_code == 1
    assert "1 new" in result.stderr
    for name in ("loop.txt", "dangling.txt", "zero.txt", "fifo.txt"):
        assert name in result.stderr, result.stderr
    assert result.stderr.count("\n") == 5, result.stderr


def test_a_file_named_with_escapes_and_bad_bytes(db_path, tmp_path):
    folder = tmp_path / "names"
    folder.mkdir()
    (folder / "\x1b]0;pwned\x07evil.txt").write_bytes(b"\x1b[31mnot a header\n\nx\n")
    name = os.fsdecode(b"latin1-\xe9.txt")
    (folder / name).write_bytes(GOOD)
    result = _import(db_path, folder)
    assert result.exit_code == 1 and "1 new" in result.stderr, result.stderr
    assert "evil.txt" in result.stderr and "\x07" not in result.stderr  # the OSC title is dropped whole
    shown = json.loads(cli(db_path, "list", "--json").stdout)
    assert len(shown) == 1
    catalog = Catalog.open(db_path)
    try:
        [src] = catalog.get(shown[0]["key"]).sources
        assert src.path.endswith("latin1-\ufffd.txt")
    finally:
        catalog.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="runs as root, which reads files whatever their mode; "
                                                "test_a_file_that_cannot_be_read covers the read error")
def test_an_unreadable_file(db_path, tmp_path):
    f = tmp_path / "secret.txt"
    f.write_bytes(GOOD)
    f.chmod(0)
    try:
        result = _import(db_path, f)
    finally:
        f.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert result.exit_code == 1 and "Permission denied" in result.stderr


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux /proc/self/mem")
def test_a_file_that_cannot_be_read(db_path, tmp_path):
    """/proc/self/mem is a regular file that opens but fails to read (EIO), even for root."""
    link = tmp_path / "mem.txt"
    link.symlink_to("/proc/self/mem")
    result = _import(db_path, link)
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 2 and "mem.txt" in result.stderr, result.stderr


def test_arguments_that_are_not_utf8(tmp_path):
    """Bytes that are not UTF-8 in argv: one line, no traceback (they reach Python as surrogates)."""
    db = tmp_path / "c.db"
    env = {**os.environ, "CATALOG_DB": str(db)}

    def run(*args: bytes):
        return subprocess.run([sys.executable.encode(), b"-m", b"catalog", *args], capture_output=True,
                              env=env, cwd=ROOT)

    assert run(b"import", str(SEEDS).encode()).returncode == 0
    key = json.loads(run(b"list", b"--json", b"-n", b"1").stdout)[0]["key"].encode()
    for args in ([b"note", key, b"caf\xe9"], [b"tag", key, b"+caf\xe9"], [b"title", key, b"caf\xe9"],
                 [b"search", b"caf\xe9"], [b"status", key, b"r\xe9ad"], [b"show", b"\xff"]):
        out = run(*args)
        stderr = out.stderr.decode("utf-8", "replace")
        assert out.returncode != 0 and "Traceback" not in stderr, (args, stderr)
        assert stderr.count("\n") == 1, (args, stderr)


# --- printing imported text literally ------------------------------------------------------

EVIL = ("We study [bold red]markup[/] and [link=http://evil.example]links[/link] with "
        "\x1b[31mred\x1b[0m text, \x1b]8;;http://evil\x1b\\hyperlinks\x1b]8;;\x1b\\, a \x1b[2J clear, "
        "\x07bells, \x9b31m C1 and \r carriage returns [blink]blink[/blink] :smile: here.")
SGR = re.compile(r"\x1b\[([0-9;]*)m")
OWN_STYLES = {"0", "1", "2", "3", "33", "35", "36", "32", "1;33", "22", "23", "39"}  # bold, dim, italic, colours


@pytest.fixture
def evil_catalog(tmp_path) -> tuple[Path, str]:
    db = tmp_path / "evil.db"
    f = tmp_path / "evil.txt"
    f.write_text(f"EVIL 2026 Papers\n\n{EVIL}\n", encoding="utf-8")
    catalog = Catalog.open(db)
    assert not catalog.import_paths([f]).errors
    key = catalog.search("markup")[0].key
    catalog.tag([key], add=["\x1b[31mredtag", "[b]x[/b]"])
    catalog.add_note(key, "note [bold]x[/] \x1b[5mblink\x1b[0m \x1b]0;title\x07")
    catalog.set_title(key, "[red]title[/red] \x1b[41mbg")
    catalog.close()
    return db, key


@pytest.mark.parametrize("args", [["search", "markup"], ["show", "{key}"], ["list"], ["tags"],
                                  ["sql", "SELECT abstract, notes_text, tags_text, user_title FROM paper"],
                                  ["sql", "SELECT char(27) || '[31m' || 'x', char(7), char(155)"]])
def test_imported_text_is_printed_literally_on_a_terminal(evil_catalog, args):
    db, key = evil_catalog
    env = {**os.environ, "FORCE_COLOR": "1", "TERM": "xterm-256color", "COLUMNS": "400"}
    env.pop("NO_COLOR", None)
    out = subprocess.run([sys.executable, "-m", "catalog", "--db", str(db),
                          *(a.format(key=key) for a in args)], capture_output=True, text=True, env=env,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert SGR.search(text), "expected styled output: is the terminal forced?"
    # Only the program's own styles, as SGR sequences; nothing from the imported text.
    assert {m for m in SGR.findall(text)} <= OWN_STYLES, set(SGR.findall(text))
    visible = SGR.sub("", text)
    assert not set(visible) & CONTROL_CHARS, [c for c in visible if c in CONTROL_CHARS]
    if args[0] in ("search", "show", "list"):
        assert "[red]title[/red]" in visible
    if args[0] in ("search", "show"):
        assert "[bold red]markup[/]" in visible or "[link=http://evil.example]" in visible
    if args[0] == "show":
        assert "[link=http://evil.example]links[/link]" in visible and "note [bold]x[/]" in visible
    if args[0] == "tags":
        assert "[b]x[/b]" in visible and "redtag" in visible


# --- catalog sql ---------------------------------------------------------------------------

SQL_REFUSED = {
    "DELETE FROM paper": "read-only",
    "UPDATE paper_reader SET rating = 5": "read-only",
    "INSERT INTO tag(name) VALUES ('x')": "read-only",
    "DROP TABLE paper": "read-only",
    "CREATE TABLE t(x)": "read-only",
    "CREATE TEMP TABLE t(x)": "read-only",
    "CREATE TEMP VIEW v AS SELECT 1": "read-only",
    "CREATE VIRTUAL TABLE temp.f USING fts5(x)": "read-only",
    "WITH x AS (SELECT 1) DELETE FROM paper": "read-only",
    "WITH x AS (SELECT 1) INSERT INTO tag(name) SELECT * FROM x": "read-only",
    "REPLACE INTO tag(id, name) VALUES (1, 'x')": "read-only",
    "PRAGMA journal_mode = DELETE": "only reading PRAGMAs",
    "PRAGMA foreign_keys = OFF": "only reading PRAGMAs",
    "PRAGMA query_only = 0": "only reading PRAGMAs",
    "PRAGMA user_version = 7": "only reading PRAGMAs",
    "PRAGMA writable_schema = 1": "only reading PRAGMAs",
    "PRAGMA wal_checkpoint(TRUNCATE)": "only reading PRAGMAs",
    "PRAGMA incremental_vacuum": "read-only",
    "VACUUM": "VACUUM is not allowed",
    "VACUUM INTO '{tmp}/copy.db'": "VACUUM is not allowed",
    "ATTACH DATABASE '{tmp}/other.db' AS o": "ATTACH is not allowed",
    "ATTACH ':memory:' AS m": "ATTACH is not allowed",
    "DETACH main": "DETACH is not allowed",
    "SELECT load_extension('/tmp/x.so')": "load_extension is not allowed",
    "SELECT writefile('{tmp}/x', 'data')": "SQL error",
    "SELECT readfile('/etc/passwd')": "SQL error",
    "SELECT fts3_tokenizer('simple')": "fts3_tokenizer is not allowed",
    "SELECT fts3_tokenizer('simple', x'4141414141414141')": "fts3_tokenizer is not allowed",
    "SELECT 1; DELETE FROM paper": "one statement",
    "SELECT 1; SELECT 2": "one statement",
    "BEGIN IMMEDIATE": "read-only",
    "BEGIN EXCLUSIVE": "read-only",
    "ANALYZE": "read-only",
    "REINDEX": "read-only",
    "INSERT INTO paper_fts(paper_fts) VALUES ('rebuild')": "read-only",
    "": "nothing to run",
    "   ;  ": "nothing to run",
}


@pytest.mark.parametrize("statement", sorted(SQL_REFUSED))
def test_catalog_sql_refuses_every_change_with_a_clear_message(seeded_db, tmp_path, statement):
    db, digest = seeded_db
    sql = statement.format(tmp=tmp_path)
    result = cli(db, "sql", sql)
    assert result.exit_code == 1, (sql, result.output)
    assert SQL_REFUSED[statement] in result.stderr, (sql, result.stderr)
    _one_line_error(result.stderr.strip())
    assert not list(tmp_path.glob("copy.db*")) and not (tmp_path / "x").exists()
    assert not (tmp_path / "other.db").exists()
    assert _digest(db) == digest


@pytest.fixture(scope="module")
def seeded_db(tmp_path_factory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("sql") / "c.db"
    Catalog.open(db).import_paths([SEEDS])
    return db, _digest(db)


def _digest(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return json.dumps([conn.execute("SELECT count(*), sum(rating), group_concat(status) FROM papers").fetchone(),
                           conn.execute("SELECT count(*) FROM tag").fetchone(),
                           conn.execute("PRAGMA user_version").fetchone(),
                           conn.execute("PRAGMA journal_mode").fetchone()])


def test_catalog_sql_still_reads(seeded_db):
    db, _ = seeded_db
    for sql in ("SELECT count(*) FROM papers", "PRAGMA table_info(paper)", "PRAGMA integrity_check",
                "WITH x AS (SELECT 1 AS n) SELECT n FROM x", "EXPLAIN QUERY PLAN SELECT * FROM paper",
                "SELECT 1;", "BEGIN", "SAVEPOINT a", "PRAGMA index_list(paper)", "PRAGMA quick_check",
                "SELECT key FROM paper_fts JOIN paper ON paper.id = paper_fts.rowid"
                             " WHERE paper_fts MATCH 'attention' LIMIT 1"):
        result = cli(db, "sql", sql)
        assert result.exit_code == 0, (sql, result.stderr)


@pytest.mark.parametrize("name,kind", [("big.jsonl", "a JSON Lines file"), ("big.bib", "a BibTeX file")])
def test_a_file_over_the_size_limit_gets_one_readable_line(tmp_path, monkeypatch, name, kind):
    from catalog.ingest import textfile
    from catalog.ingest.records import IngestError
    monkeypatch.setattr(textfile, "MAX_FILE_BYTES", 2**20)
    path = tmp_path / name
    path.write_bytes(b"x" * (2**20 + 1))
    with pytest.raises(IngestError) as raised:
        textfile.read_text(path, kind)
    assert raised.value.message == f"file is 1,048,577 bytes; {kind} over 1 MiB is not supported"
