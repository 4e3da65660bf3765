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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


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
        deadline = time.monotonic() + 120  # generous: fires only when the watchdog never acts
        while _alive(postmaster) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(postmaster), "the server outlived the killed process that started it"
        while folder.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not folder.exists()
    finally:
        like_pytest.kill()
        if _alive(postmaster):  # the watchdog failed: don't leave the server behind
            pg_server._stop_server(folder)
