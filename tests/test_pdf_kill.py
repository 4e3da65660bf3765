"""Killing `catalog import DIR` of real PDFs at any point loses nothing, and running it again
completes it: SIGKILL (the machine dies) or SIGINT (Ctrl-C, as a terminal sends it) after 0,
1, a few, most of the files. After each kill the database is whole, every paper it held is
there, each file it had attached is attached to the same paper, a paper made from a file is
made once, and the folder of files holds no copy a row does not name; the next run ends as
one uninterrupted run ends, every file's text read.

Signals go when the database holds a given number of attachments (polled read-only), not
after a fixed delay: the same points on a busy machine. A window too short to hit that way
(a file attached, its text not yet stored) has its own test, in-process."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from catalog.parts.files import Files
from catalog.library import Catalog
from tests.pdfmaker import make

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL") or os.name != "posix", reason="POSIX signals")

ROOT = Path(__file__).resolve().parent.parent
PAPERS = ROOT / "tests" / "data" / "pdf" / "papers"
HANG = 300  # seconds a run may take on a busy machine before the test gives up on it
# (signal, attachments stored when it goes): from the start to the last few files.
KILLS = [(signal.SIGKILL, 0), (signal.SIGINT, 1), (signal.SIGKILL, 6), (signal.SIGINT, 13), (signal.SIGKILL, 20)]
REAL = 20  # of the real papers' PDFs: enough files to kill between, few enough for many runs


def _as_in_a_terminal() -> None:
    """Ctrl-C as a terminal's foreground command gets it (a shell's background job and
    xdist's workers start children with SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _import(db: Path, folder: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "catalog", "--db", str(db), "import", str(folder)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "CATALOG_DB": ""}, preexec_fn=_as_in_a_terminal)


def _attachments(db: Path) -> int:
    try:
        with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM attachment").fetchone()[0]
    except sqlite3.OperationalError:  # not made yet
        return 0


def _state(db: Path) -> dict:
    """What a user could lose: papers (by title) and which file is attached to which, with
    whether its text is read; and the check that the file is whole."""
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        titles = sorted(r[0] or "" for r in conn.execute("SELECT title FROM paper"))
        files = {name: (title, state) for name, title, state in conn.execute(
            "SELECT a.name, p.title, a.text_state FROM attachment a JOIN paper p ON p.id = a.paper_id")}
        stored = {r[0] for r in conn.execute("SELECT path FROM attachment WHERE stored = 'managed'")}
    return {"titles": titles, "files": files, "stored": stored}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Real papers' PDFs, and two PDFs of papers the catalog lacks (made into papers)."""
    target = tmp_path / "Papers"
    target.mkdir()
    for path in sorted(PAPERS.glob("*.pdf"))[:REAL]:
        shutil.copy(path, target / path.name)
    for n, animal in enumerate(("numbat", "bilby")):
        make(target / f"zz-{animal}.pdf", [
            f"The {animal.title()} Diet Across {n + 3} Seasons\nAnonymous Authors\nAbstract\n"
            f"We follow {animal}s through {n + 3} seasons and count the termites they eat each night, then relate "
            f"what {animal}s eat to rainfall, burrow depth and the age of each animal.\n1 Introduction\n" + "Text. " * 40])
    return target


@pytest.fixture
def fresh(tmp_path: Path) -> Path:
    """A catalog holding the papers of catalog.bib (and nothing attached)."""
    db = tmp_path / "start" / "catalog.db"
    db.parent.mkdir()
    catalog = Catalog.open(db)
    try:
        assert not catalog.import_paths([PAPERS / "catalog.bib"]).errors
    finally:
        catalog.close()
    return db


def _copy(db: Path, to: Path) -> Path:
    to.mkdir()
    shutil.copy(db, to / db.name)
    return to / db.name


def _run_to_the_end(db: Path, folder: Path) -> str:
    process = _import(db, folder)
    out, err = process.communicate(timeout=HANG)
    assert process.returncode == 0, err
    assert "Traceback" not in err
    return err


def test_a_killed_import_loses_nothing_and_the_next_run_completes_it(fresh, folder, tmp_path):
    whole = _copy(fresh, tmp_path / "whole")
    _run_to_the_end(whole, folder)
    expected = _state(whole)
    assert len(expected["files"]) == REAL + 2 and all(state == "text" for _, state in expected["files"].values())

    for number, (sig, after) in enumerate(KILLS):
        db = _copy(fresh, tmp_path / f"killed{number}")
        process = _import(db, folder)
        deadline = time.monotonic() + HANG
        while process.poll() is None and _attachments(db) < after and time.monotonic() < deadline:
            time.sleep(0.005)
        assert process.poll() is None, f"the import ended before {after} files: {process.communicate()}"
        process.send_signal(sig)
        _, err = process.communicate(timeout=HANG)
        assert "Traceback" not in err, err
        if sig == signal.SIGINT:
            assert process.returncode in (130, -signal.SIGINT) and err.strip().endswith("catalog: interrupted"), err
        killed = _state(db)
        # Nothing lost: every paper still there, no paper made twice, each attached file on
        # the paper a whole run puts it on.
        assert set(expected["titles"]) >= set(killed["titles"]) >= set(_state(fresh)["titles"])
        assert len(killed["titles"]) == len(set(killed["titles"]))
        assert all(expected["files"][name][0] == title for name, (title, _) in killed["files"].items())
        folder_of_files = db.with_name("catalog-files")
        on_disk = _named(folder_of_files)
        # At most the copy a kill caught between the file and its row: the next run takes it.
        assert len(on_disk - killed["stored"]) <= 1, on_disk - killed["stored"]
        # The same command again completes it.
        _run_to_the_end(db, folder)
        assert _state(db) == expected, (sig, after)
        assert _named(folder_of_files) == expected["stored"]


def _named(folder: Path) -> set[str]:
    """The files a user sees named in the folder of files: not the hidden temporary copy a
    kill left, which the next copy on this machine removes (tests/test_attachments.py)."""
    from catalog.attachments import attaching

    return {p.name for p in folder.iterdir() if not p.name.startswith(attaching._TEMP_PREFIX)} if folder.exists() else set()


def test_a_file_attached_before_its_text_was_stored_gets_its_text_from_the_next_run(fresh, folder, monkeypatch):
    files = sorted(folder.glob("*.pdf"))[:3]
    real = Files.attach_file
    calls = []

    def dies_after_the_second(self, key, path, **kwargs):
        made = real(self, key, path, **kwargs)
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the file is attached; its text is not stored yet
        return made

    catalog = Catalog.open(fresh)
    try:
        monkeypatch.setattr(Files, "attach_file", dies_after_the_second)
        with pytest.raises(KeyboardInterrupt):
            catalog.import_paths(files)
        monkeypatch.setattr(Files, "attach_file", real)
        assert sorted(state or "" for _, state in _state(fresh)["files"].values()) == ["", "text"]
        report = catalog.import_paths(files)
        assert not report.errors
    finally:
        catalog.close()
    assert sorted(state or "" for _, state in _state(fresh)["files"].values()) == ["text"] * 3


def test_ctrl_c_inside_a_pdf_library_call_is_one_line(tmp_path, monkeypatch, run_cli):
    """Ctrl-C that lands while ctypes converts a pypdfium2 call's arguments reaches us as
    ctypes.ArgumentError, not KeyboardInterrupt (seen once in this file's kill test, under load)."""
    import ctypes

    from catalog.attachments import pdfannots

    def interrupted(path):
        raise ctypes.ArgumentError("argument 1: KeyboardInterrupt: ")

    monkeypatch.setattr(pdfannots, "read", interrupted)
    make(tmp_path / "paper.pdf", ["A Paper Read Later", "Abstract. Some words about sparse autoencoders."])
    result = run_cli("import", str(tmp_path / "paper.pdf"))
    assert not isinstance(result.exception, ctypes.ArgumentError)
    assert result.exit_code == 130 and result.output.strip().endswith("catalog: interrupted"), result.output


def test_ctrl_c_that_leaves_pdfium_a_dead_object_is_still_one_line(tmp_path):
    """Ctrl-C landing inside pypdfium2, between closing an object and dropping it from its
    tracker, leaves a dead entry; at exit pypdfium2 wrote "Weakref ... was not cleaned up from
    ObjectTracker?" below "catalog: interrupted" (seen once in the kill test above, under load)."""
    script = (
        "import weakref, click\n"
        "from pypdfium2.internal import bases\n"
        "import catalog.cli as cli\n"
        "class Closed: pass\n"
        "gone = Closed(); entry = weakref.ref(gone); hash(entry); del gone\n"
        "bases.ObjectTracker[None].add(entry)  # the state the interrupt left\n"
        "@cli.main.command('interrupt-me')\n"
        "def interrupt_me():\n"
        "    raise KeyboardInterrupt\n"
        "cli.main(['interrupt-me'])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG, cwd=ROOT)
    assert done.returncode == 130
    assert done.stderr == "catalog: interrupted\n", done.stderr
