"""Damaged, foreign and unreachable database files: every command gives one clear line and a
non-zero exit, and nothing is written to the file (byte for byte, no -wal/-shm, no backup).
`catalog doctor` reports what it can and says how to salvage what it cannot repair.
Read-only cases run the CLI as a process that file permissions apply to (tests/privileges.py).
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from catalog.cli import main
from catalog.library import Catalog
from catalog.store import schema
from tests.conftest import SEEDS
from tests.privileges import permissions, unprivileged  # noqa: F401  (a fixture)
KEY = "abcdefg"

# Every command that opens the catalog, with arguments that would be valid on a good one.
COMMANDS = [
    ("search", "attention"), ("list",), ("show", KEY), ("open", KEY, "--print"), ("split", KEY), ("tag", KEY, "+x"), ("note", KEY, "text"),
    ("status", KEY, "read"), ("rate", KEY, "3"), ("title", KEY, "T"), ("tags",), ("stats",),
    ("sql", "SELECT 1"), ("tui",), ("export", "-f", "csv"), ("import", str(SEEDS)),
    ("annotations", "export", "-"), ("annotations", "import", "{annotations}"),
    ("saved", "list"), ("saved", "add", "n", "q"), ("saved", "run", "n"), ("saved", "delete", "n"),
    ("backup", "{elsewhere}"), ("db", "upgrade"), ("db", "current"),
    ("similar", KEY), ("recommend", "x"), ("topics",),
    ("share", "members"), ("share", "add-member", "ann"), ("share", "remove-member", "ann"),
    # these fetch, but only once the catalog opened: a bad file is refused before any request
    ("add", "arXiv:1706.03762"), ("enrich",), ("refs", KEY), ("cited-by", KEY), ("fetch-pdf",),
    ("attach", KEY, "{annotations}"), ("detach", KEY, "1", "--yes"), ("files", KEY),
    ("authors",), ("citekey", "pattern"), ("citekey", "regen"),
    ("acronyms", "list"), ("acronyms", "add", "TTA", "test-time adaptation"), ("acronyms", "remove", "TTA"),
    ("bib", "add", "{elsewhere}", "tag:x"), ("bib", "list"), ("bib", "sync"), ("bib", "remove", "{elsewhere}"),
    ("tags", "rename", "x", "y"), ("tags", "merge", "x", "y"), ("tags", "delete", "x"), ("tags", "undo"),
    ("edit", KEY, "--venue", "V"),
]
# These do not open the file: `db path` prints it, `db history` lists migrations; `copy`
# names its own source and target (test_backends.py).
NOT_OPENING = {("db", "path"), ("db", "history"), ("doctor",), ("copy",)}


def _command_names(group: click.Group, prefix=()) -> set[tuple[str, ...]]:
    out = set()
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            out |= _command_names(command, (*prefix, name))
        else:
            out.add((*prefix, name))
    return out


def test_the_list_covers_every_command():
    groups = ("annotations", "saved", "db", "share", "citekey", "acronyms", "bib", "tags")
    listed = {c[:2] if c[0] in groups and len(c) > 1 else c[:1] for c in COMMANDS}
    assert listed | NOT_OPENING == _command_names(main) | {("tags",)}  # `tags` alone lists them


@pytest.fixture(scope="module")
def good_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("good") / "catalog.db"
    catalog = Catalog.open(path)
    catalog.import_paths([SEEDS])
    catalog.close()
    assert not path.with_name("catalog.db-wal").exists()
    return path


def _truncated(good: Path, target: Path) -> None:
    target.write_bytes(good.read_bytes()[:20_000])


def _corrupt_body(good: Path, target: Path) -> None:
    data = good.read_bytes()
    target.write_bytes(data[:100] + b"\x55" * (len(data) - 100))


def _without_version(good: Path, target: Path) -> None:
    shutil.copyfile(good, target)
    _sql(target, "DROP TABLE alembic_version")


def _empty_version(good: Path, target: Path) -> None:
    shutil.copyfile(good, target)
    _sql(target, "DELETE FROM alembic_version")


def _foreign(good: Path, target: Path) -> None:
    _sql(target, "CREATE TABLE foo(x)", "CREATE TABLE bar(y)", "INSERT INTO foo VALUES (1)")


def _sql(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in statements:
        conn.execute(statement)
    conn.execute("PRAGMA journal_mode = DELETE")  # so the test sees one file, as most programs keep
    conn.close()


DAMAGE = {
    "truncated": (_truncated, "is damaged (the file was cut short"),
    "SQLite header, corrupt body": (_corrupt_body, "is damaged (database disk image is malformed)"),
    "alembic_version gone": (_without_version, "without its schema version"),
    "alembic_version empty": (_empty_version, "without its schema version"),
    "another program's database": (_foreign, "is not a catalog database (it has tables bar, foo); use a new file"),
}


def _folder_digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _run(db: str, args, tmp_path: Path):
    args = [a.format(annotations=tmp_path / "mine.json", elsewhere=tmp_path / "copy.db") for a in args]
    return CliRunner().invoke(main, ["--db", db, *args], env={"EDITOR": "true"})


def _assert_one_line_failure(result, expected: str, args) -> None:
    assert result.exit_code not in (0, None), (args, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("catalog: "), (args, result.stderr)
    assert expected in result.stderr, (args, result.stderr)
    assert "Traceback" not in result.output


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_every_command_refuses_a_damaged_or_foreign_file_with_one_line(case, good_file, tmp_path):
    make, expected = DAMAGE[case]
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "catalog.db"
    make(good_file, path)
    (tmp_path / "mine.json").write_text('{"format": "catalog-annotations", "version": 1, "papers": []}')
    before = _folder_digest(folder)
    for args in COMMANDS:
        _assert_one_line_failure(_run(str(path), args, tmp_path), expected, args)
        assert _folder_digest(folder) == before, (args, "the file or its folder changed")
    assert not (tmp_path / "copy.db").exists()


def test_a_foreign_file_keeps_its_journal_mode_and_gets_no_tables(tmp_path):
    path = tmp_path / "other_program.db"
    _foreign(None, path)
    before = path.read_bytes()
    result = _run(str(path), ("search", "x"), tmp_path)
    _assert_one_line_failure(result, "not a catalog database (it has tables bar, foo)", "search")
    assert path.read_bytes() == before
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert [n for (n,) in conn.execute("SELECT name FROM sqlite_master")] == ["foo", "bar"]
    conn.close()


def test_an_sqlite_file_without_any_table_becomes_a_catalog(tmp_path):
    path = tmp_path / "blank.db"
    _sql(path, "PRAGMA user_version = 0")
    result = _run(str(path), ("import", str(SEEDS)), tmp_path)
    assert result.exit_code == 0, result.output
    assert "90 new" in result.stderr


def test_dev_null_and_folders_are_refused(tmp_path):
    for db, expected in (("/dev/null", "is not a regular file"), (str(tmp_path), "is a directory")):
        for args in COMMANDS:
            _assert_one_line_failure(_run(db, args, tmp_path), expected, args)


@pytest.mark.parametrize("url", ["mysql://me:secret@x/y", "s3://bucket/c.db"])
def test_a_url_says_which_backends_exist_and_creates_nothing(url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in [*COMMANDS[:3], ("db", "path"), ("doctor",)]:
        _assert_one_line_failure(_run(url, args, tmp_path), "backends: sqlite, postgresql", args)
    assert list(tmp_path.iterdir()) == []
    result = CliRunner().invoke(main, ["list"], env={"CATALOG_DB": url})
    _assert_one_line_failure(result, "backends: sqlite, postgresql", "list with $CATALOG_DB")
    assert "secret" not in result.stderr


def test_a_server_that_is_not_there_is_one_line_without_the_password(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    url = f"postgresql://me:secret@/papers?host={tmp_path}&port=1"  # no server on this socket
    for args in [*COMMANDS[:3], ("doctor",)]:
        _assert_one_line_failure(_run(url, args, tmp_path), "cannot open postgresql://me:...@/papers", args)
    assert list(tmp_path.iterdir()) == []
    assert list(tmp_path.iterdir()) == []


def test_an_sqlite_url_is_a_file_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--db", "sqlite:///here.db", "import", str(SEEDS)])
    assert result.exit_code == 0 and (tmp_path / "here.db").exists(), result.output


# --- catalog doctor on them ---------------------------------------------------------------

@pytest.mark.parametrize("case", ["truncated", "SQLite header, corrupt body"])
def test_doctor_reports_a_damaged_file_and_suggests_recover(case, good_file, tmp_path):
    make, _ = DAMAGE[case]
    path = tmp_path / "catalog.db"
    make(good_file, path)
    before = _folder_digest(tmp_path)
    for args in (("doctor",), ("doctor", "--fix")):
        result = _run(str(path), args, tmp_path)
        assert result.exit_code == 1, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        assert "problem  file" in result.stdout and "SQLite cannot read it" in result.stdout, result.stdout
        assert f"sqlite3 {path} .recover" in result.stdout
        assert _folder_digest(tmp_path) == before  # --fix included: no copy, no change
    assert "was cut short" in result.stdout or "malformed" in result.stdout


def test_doctor_on_a_file_with_a_damaged_page_reports_it_and_changes_nothing(good_file, tmp_path):
    path = tmp_path / "catalog.db"
    # The page damaged is the first of the table of where each paper came from: which page the
    # middle of the file is changes with every new table, and a page doctor reads before its
    # integrity check (the schema, the ranked lists' note) is reported as an unreadable file.
    with sqlite3.connect(good_file) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'provenance'").fetchone()[0]
    data, start = good_file.read_bytes(), (root - 1) * page_size
    path.write_bytes(data[:start] + b"\x55" * page_size + data[start + page_size:])
    result = _run(str(path), ("doctor",), tmp_path)
    assert result.exit_code == 1 and "problem  integrity" in result.stdout, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    fixed = _run(str(path), ("doctor", "--fix"), tmp_path)
    assert fixed.exit_code == 1 and ".recover" in fixed.stdout, fixed.output
    assert fixed.exception is None or isinstance(fixed.exception, SystemExit), fixed.exception


@pytest.mark.parametrize("case", ["alembic_version gone", "alembic_version empty"])
def test_doctor_puts_a_lost_schema_version_back(case, good_file, tmp_path):
    make, _ = DAMAGE[case]
    path = tmp_path / "catalog.db"
    make(good_file, path)
    before = path.read_bytes()
    found = _run(str(path), ("doctor",), tmp_path)
    assert found.exit_code == 1 and "schema version" in found.stdout and schema.SCHEMA_REVISION in found.stdout, found.output
    assert path.read_bytes() == before
    fixed = _run(str(path), ("doctor", "--fix"), tmp_path)
    assert fixed.exit_code == 0 and "healthy now" in fixed.stdout, fixed.output
    assert len(list(tmp_path.glob("catalog.db.before-doctor-*.bak"))) == 1
    listed = _run(str(path), ("list", "--json"), tmp_path)
    assert listed.exit_code == 0 and listed.stdout.count('"key"') == 90


def test_doctor_refuses_a_foreign_file_and_a_missing_one(tmp_path):
    path = tmp_path / "other.db"
    _foreign(None, path)
    before = path.read_bytes()
    for args in (("doctor",), ("doctor", "--fix")):
        _assert_one_line_failure(_run(str(path), args, tmp_path), "not a catalog database", args)
    assert path.read_bytes() == before
    _assert_one_line_failure(_run(str(tmp_path / "none.db"), ("doctor",), tmp_path), "no catalog at", "doctor")
    assert not (tmp_path / "none.db").exists()


# --- read-only files and folders ----------------------------------------------------------

def test_read_only_file_in_a_read_only_folder(good_file, tmp_path, permissions):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "catalog.db"
    shutil.copyfile(good_file, path)
    permissions.read_only(path)
    permissions.read_only(folder)
    before = _folder_digest(folder)
    for args in (("list",), ("search", "attention"), ("tag", KEY, "+x"), ("import", str(SEEDS)), ("stats",)):
        out = unprivileged("--db", str(path), *args)
        assert out.returncode == 1, (args, out.stdout, out.stderr)
        assert out.stderr.count("\n") == 1 and "folder" in out.stderr and "read-only" in out.stderr, (args, out.stderr)
    new = unprivileged("--db", str(folder / "new.db"), "import", str(SEEDS))
    assert new.returncode == 1 and new.stderr.count("\n") == 1 and "read-only" in new.stderr, new.stderr
    new = unprivileged("--db", str(folder / "new.db"), "list")  # only reads: nothing to make
    assert new.returncode == 1 and "no catalog at" in new.stderr, new.stderr
    # doctor checks a copy and finds it healthy
    doctor = unprivileged("--db", str(path), "doctor")
    assert doctor.returncode == 0 and "The catalog is healthy." in doctor.stdout, doctor.stdout + doctor.stderr
    assert _folder_digest(folder) == before


def test_read_only_catalog_reads_refuses_writes_and_doctor_says_healthy(good_file, tmp_path, permissions):
    path = tmp_path / "catalog.db"
    shutil.copyfile(good_file, path)
    permissions.read_only(path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    listed = unprivileged("--db", str(path), "list", "--json")
    assert listed.returncode == 0 and listed.stdout.count('"key"') == 90, listed.stderr
    tagged = unprivileged("--db", str(path), "tag", listed.stdout.split('"key": "')[1][:7], "+x")
    assert tagged.returncode == 1 and tagged.stderr.count("\n") == 1 and "is read-only" in tagged.stderr, tagged.stderr
    doctor = unprivileged("--db", str(path), "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "The catalog is healthy." in doctor.stdout and "problem" not in doctor.stdout
    fixed = unprivileged("--db", str(path), "doctor", "--fix")
    assert fixed.returncode == 0 and "healthy" in fixed.stdout
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_a_new_catalog_in_a_read_only_folder(tmp_path, permissions):
    folder = tmp_path / "ro"
    folder.mkdir()
    permissions.read_only(folder)
    for args in (("list",), ("import", str(SEEDS)), ("doctor",)):
        out = unprivileged("--db", str(folder / "sub" / "c.db"), *args)
        assert out.returncode == 1 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert list(folder.iterdir()) == []
