"""tests/pg_server.py: a PostgreSQL test server does not outlive the pytest that started it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import pg_server

ROOT = Path(__file__).resolve().parent.parent
STARTS_A_SERVER = ("import sys, time\n"
                   "from tests.pg_server import Server\n"
                   "print(Server().start().folder, flush=True)\n"
                   "time.sleep(600)\n")


_alive = pg_server._alive


def _gone(postmaster: int, folder: Path) -> bool:
    """Whether the server stops and its folder goes, waiting for the watchdog to act."""
    deadline = time.monotonic() + 120  # generous: fires only when the watchdog never acts
    while (_alive(postmaster) or folder.exists()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(postmaster) and not folder.exists()


@pytest.mark.skipif(bool(pg_server.skip_reason() or os.environ.get(pg_server.ENV_VAR)),
                    reason="starts a PostgreSQL server of its own")
def test_a_server_stops_when_the_pytest_that_started_it_is_killed():
    like_pytest = subprocess.Popen([sys.executable, "-c", STARTS_A_SERVER], cwd=ROOT,
                                   stdout=subprocess.PIPE, text=True)
    folder = Path(like_pytest.stdout.readline().strip())
    postmaster = int((folder / "data" / "postmaster.pid").read_text().split()[0])
    try:
        assert _alive(postmaster)
        like_pytest.kill()  # SIGKILL: no finalizer, no atexit runs
        like_pytest.wait()
        assert _gone(postmaster, folder), "the server outlived the killed process that started it"
    finally:
        like_pytest.kill()
        if _alive(postmaster):  # the watchdog failed: don't leave the server behind
            pg_server._stop_server(folder)


STARTS_A_SERVER_FOR = ("import sys\n"
                       "from tests.pg_server import Server\n"
                       "print(Server().start(owner=int(sys.argv[1])).folder, flush=True)\n")


@pytest.mark.skipif(bool(pg_server.skip_reason() or os.environ.get(pg_server.ENV_VAR)),
                    reason="starts a PostgreSQL server of its own")
def test_a_server_started_for_another_process_outlives_its_starter_and_stops_with_that_one():
    """As pytest-xdist's workers share one server (tests/conftest.py): the first to need it
    starts it for the run's controlling process; the worker ending leaves it running."""
    like_the_run = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    folder = None
    try:
        # stderr not read: the watchdog inherits it, and lives on with the server
        like_a_worker = subprocess.run([sys.executable, "-c", STARTS_A_SERVER_FOR, str(like_the_run.pid)],
                                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                       check=True)
        folder = Path(like_a_worker.stdout.strip())
        postmaster = int((folder / "data" / "postmaster.pid").read_text().split()[0])
        assert _watched(folder) == like_the_run.pid, "its watchdog waits on the process that started it, not the one it was started for"
        assert _alive(postmaster)
        like_the_run.kill()
        like_the_run.wait()
        assert _gone(postmaster, folder), "the server outlived the process it was started for"
    finally:
        like_the_run.kill()
        if folder is not None and (folder / "data" / "postmaster.pid").exists():
            pg_server._stop_server(folder)


def _watched(folder: Path) -> int | None:
    """The process whose end the watchdog of the server in `folder` waits for."""
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().decode().rstrip("\0").split("\0")
        except (OSError, ValueError):
            continue
        if len(argv) > 3 and argv[-3].endswith("pg_server.py") and argv[-1] == str(folder):
            return int(argv[-2])
    return None
