"""Runaway SQL: `catalog sql` stops on Ctrl-C (SIGINT) and at --timeout; a search whose answer is
no longer wanted (the TUI typed further) stops as soon as it is told.

No test here asserts how fast: a statement that is not stopped runs for days, so a stop that
does not work shows as a wait far past the generous bounds below."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from catalog.parts.admin import Admin
from catalog.library import Catalog, Interrupted

ROOT = Path(__file__).resolve().parent.parent
# A recursive CTE counting to 1e15: days of work in one statement.
FOREVER = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000000000)"
           " SELECT count(*) FROM c")
# How long a stopped command may take to end: far past any machine's load, far short of FOREVER.
HANG = 120


def _as_in_a_terminal() -> None:
    """Ctrl-C as a terminal's foreground command gets it, whatever this test runs under: a
    shell's background job (`.ci/run &`) starts with SIGINT ignored, which its children
    inherit, and a command keeps an ignored SIGINT ignored while it starts."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(db: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "catalog", "--db", str(db), *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "CATALOG_DB": ""}, preexec_fn=_as_in_a_terminal)


@pytest.fixture(scope="module")
def catalog_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("runaway") / "catalog.db"
    Catalog.open(path).close()
    return path


def _wait(process: subprocess.Popen, seconds: float) -> tuple[float, str, str]:
    started = time.monotonic()
    try:
        out, err = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"still running {seconds} s later")
    return time.monotonic() - started, out, err


def _start_up(catalog_file: Path) -> float:
    """Seconds a quick `catalog sql` takes here and now (more than 1 s on a busy machine)."""
    started = time.monotonic()
    _wait(_start(catalog_file, "sql", "SELECT 1"), HANG)
    return time.monotonic() - started


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
def test_ctrl_c_stops_a_long_query(catalog_file):
    process = _start(catalog_file, "sql", "--timeout", "86400", FOREVER)  # only Ctrl-C stops it in time
    start_up = _start_up(catalog_file)
    time.sleep(max(2.0, 2 * start_up))  # aims well into the statement (start-up has its own test)
    assert process.poll() is None, process.communicate()
    process.send_signal(signal.SIGINT)
    _, out, err = _wait(process, HANG)
    assert process.returncode == 130
    assert err == "catalog: interrupted\n" and out == ""


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("after", [0.05, 0.2])
def test_ctrl_c_while_the_command_starts_says_one_line(catalog_file, after):
    """Ctrl-C while Python loads the command (its imports: a second on a busy machine) ends the
    same way. Timed from the first of the command's own modules that -X importtime reports (they
    load only once `run()` holds Ctrl-C): before that the signal lands in the interpreter's own
    start-up or in runpy looking for catalog/__main__.py, which is Python's, not ours, and a
    fixed delay after the package itself lands there when the machine is busy."""
    process = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "catalog", "--db", str(catalog_file),
                                "sql", FOREVER], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "CATALOG_DB": ""}, preexec_fn=_as_in_a_terminal)
    for line in process.stderr:
        if re.search(r"\|\s+catalog\.\w", line):
            break
    time.sleep(after)
    process.send_signal(signal.SIGINT)
    _, out, err = _wait(process, HANG)
    err = "".join(line for line in err.splitlines(keepends=True) if not line.startswith("import time:"))
    # Ended by exit(130), or by SIGINT itself: CPython 3.11 ends that way, after our handler ran,
    # once an interrupt has escaped an exec of source text (dataclasses build their methods so)
    # on its way to the handler. A shell shows both as status 130.
    assert (process.returncode in (130, -signal.SIGINT), err, out) == (True, "catalog: interrupted\n", ""), \
        process.returncode


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
def test_a_sigint_the_caller_ignores_stays_ignored_while_the_command_starts(catalog_file):
    """A shell's background job starts with SIGINT ignored: holding Ctrl-C during start-up must
    not turn it back on."""
    process = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "catalog", "--db", str(catalog_file),
                                "sql", "SELECT 41 + 1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "CATALOG_DB": ""},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    for line in process.stderr:
        if re.search(r"\|\s+catalog\.\w", line):
            break
    time.sleep(0.05)  # into the command's imports
    process.send_signal(signal.SIGINT)
    _, out, _ = _wait(process, HANG)
    assert process.returncode == 0 and "42" in out


def test_timeout_stops_a_long_query(catalog_file):
    took, out, err = _wait(_start(catalog_file, "sql", "--timeout", "1", FOREVER), HANG)
    assert took >= 1.0  # not before its time (load only makes it later)
    assert err.count("\n") == 1 and "stopped after 1 s" in err and "--timeout" in err, err


def test_the_default_timeout_is_documented():
    from click.testing import CliRunner

    from catalog.cli import main

    help_text = CliRunner().invoke(main, ["sql", "--help"]).output
    assert "--timeout" in help_text and "60" in help_text
    assert "--timeout" in (ROOT / "docs" / "sql.md").read_text()


def test_a_quick_query_is_unaffected(catalog_file):
    took, out, err = _wait(_start(catalog_file, "sql", "--timeout", "5", "SELECT 41 + 1 AS answer"), HANG)
    assert out == "answer\n42\n" and err == ""


def test_a_search_stops_when_it_is_no_longer_wanted(seeded, monkeypatch):
    from catalog.store.sqlite import connection

    # 90 papers take fewer steps than a real catalog: ask SQLite to check more often.
    monkeypatch.setattr(connection, "PROGRESS_STEPS", 20)
    asked = []

    def superseded_meanwhile() -> bool:  # false when the search starts, true once it runs
        asked.append(1)
        return len(asked) > 1

    with pytest.raises(Interrupted):
        seeded.search("attention OR model OR learning", limit=50, cancelled=superseded_meanwhile)
    assert len(asked) > 1
    asked.clear()
    with pytest.raises(Interrupted):
        seeded.count("attention OR model", cancelled=superseded_meanwhile)
    with pytest.raises(Interrupted):  # already superseded: it does not start
        seeded.search("attention", cancelled=lambda: True)
    # Not cancelled: the same search answers, and the connection is fine afterwards.
    assert seeded.search("attention", cancelled=lambda: False)
    assert seeded.search("attention")


def test_the_tui_tells_a_superseded_search_to_stop(seeded, monkeypatch):
    import asyncio
    import threading

    from catalog.tui.app import CatalogApp

    seen: dict[str, object] = {}
    outcome: dict[str, str] = {}
    running, release = threading.Event(), threading.Event()
    original = Catalog.first_page  # a search's first rows

    def spy(self, typed, **kwargs):
        query = typed.text.rstrip("*")  # the TUI searches the word being typed as a prefix
        seen[query] = kwargs.get("cancelled")
        if query == "attention":  # still working when the user types on
            running.set()
            release.wait(HANG)
        try:
            rows = original(self, typed, **kwargs)
        except Interrupted:
            outcome[query] = "stopped"
            raise
        outcome[query] = "answered"
        return rows

    monkeypatch.setattr(Catalog, "first_page", spy)

    async def until(pilot, condition) -> None:
        deadline = time.monotonic() + HANG  # fires only if the app never gets there
        while not condition():
            assert time.monotonic() < deadline, "still waiting"
            await pilot.pause(0.02)

    async def run() -> None:
        from tests.tui.conftest import until, workers_done

        app = CatalogApp(seeded)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.main
            await until(pilot, lambda: screen.papers.request is not None)  # the first results
            screen.search("attention")
            await until(pilot, running.is_set)
            screen.search("sparse")
            release.set()
            await until(pilot, lambda: screen.papers.query_text == "sparse*")  # its results
            await workers_done(app)  # its count too (the app's exit cancels what still runs)
            assert screen.papers.total
            assert seen["sparse"]() is False  # nothing superseded it

    asyncio.run(run())
    assert seen["attention"]() is True  # a newer search superseded it
    assert (outcome["attention"], outcome["sparse"]) == ("stopped", "answered")


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
def test_a_sigint_the_caller_ignores_stays_ignored_while_the_query_runs(catalog_file, monkeypatch):
    """A background job (`catalog sql ... &`) starts with SIGINT ignored: the query's own
    Ctrl-C handler replaced that, so the job could be interrupted during its query (and not
    during its start). Now the ignored SIGINT stays ignored throughout, as at start-up."""
    from click.testing import CliRunner

    from catalog.cli import main

    seen = []

    def run_sql(self, statement, *, timeout, cancelled):
        seen.append(signal.getsignal(signal.SIGINT))
        return ["answer"], [(42,)]

    monkeypatch.setattr(Admin, "run_sql", run_sql)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        result = CliRunner().invoke(main, ["--db", str(catalog_file), "sql", "SELECT 42"])
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    assert result.exit_code == 0 and "42" in result.stdout
    assert seen == [signal.SIG_IGN]
