"""Writers and readers in separate processes on one catalog, until each has done its share.

Writers: `catalog import` of several files and `catalog tag` in a loop (CLI processes), and
two long-running processes tagging the same papers with different tags. Readers: `catalog
search` in a loop, a long-running process searching through the library, and a TUI session
(headless Textual, driven by Pilot) searching and moving the cursor.

What must hold: every process exits 0, no stderr mentions a locked database or a traceback,
no worker saw an exception, and every tag that was reported applied is there at the end.
The test stops them once every one has done CATALOG_CONCURRENCY_OPS operations (default 10)
and the imports are in: it waits on their progress, not on a time window, so a loaded machine
makes it slower, never red.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from benchmarks.corpus import write_paper_lists
from catalog.parts import doctor
from catalog.library import Catalog
from tests.concurrency_worker import Run
from tests.conftest import SEEDS

OPS = int(os.environ.get("CATALOG_CONCURRENCY_OPS", "10"))
# A TUI search reloads, renders and moves the cursor while the writers change what it shows:
# a few of them meet every kind of write.
TUI_SEARCHES = max(1, OPS // 3)
# Generous: fires only when a process stops making progress (hangs), never because it is slow.
HANG = 600
ROOT = Path(__file__).resolve().parent.parent
BAD = ("locked", "busy", "Traceback", "database error")


def _has_tui() -> bool:
    try:
        import catalog.tui.app  # noqa: F401
    except ImportError:
        return False
    return True


class CliLoop(threading.Thread):
    """Runs one `catalog` command after another until the run stops (or `make_args` gives
    None); keeps every result."""

    def __init__(self, db: Path, run: Run, make_args):
        super().__init__(daemon=True)
        self.db, self.shared, self.make_args = db, run, make_args
        self.env = None  # the environment of each command (None: this process's)
        self.results: list[tuple[list[str], int, str]] = []

    def run(self) -> None:
        i = 0
        while self.shared.going():
            args = self.make_args(i)
            if args is None:
                break
            out = subprocess.run([sys.executable, "-m", "catalog", "--db", str(self.db), *args],
                                 capture_output=True, text=True, cwd=ROOT, env=self.env)
            self.results.append((args, out.returncode, out.stderr))
            i += 1


def _worker(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.concurrency_worker", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def _what_it_said(name: str, worker: subprocess.Popen) -> str:
    """A finished worker's exit status, summary and stderr: a failure explains itself."""
    stdout, stderr = worker.communicate(timeout=HANG)
    return f"--- {name} exited {worker.returncode}\nstdout: {stdout.strip()}\nstderr:\n{stderr.strip()}"


def _until_each_has_done_its_share(run: Run, workers: dict[str, subprocess.Popen], loops: list[CliLoop],
                                   finished: list[CliLoop] = ()) -> None:
    """Waits until every worker and loop has done OPS operations (the TUI: TUI_SEARCHES) and
    each of `finished` has run out of commands. A worker that exits early ends the wait."""
    deadline = time.monotonic() + HANG
    while True:
        early = [name for name, w in workers.items() if w.poll() is not None]
        if early:
            pytest.fail(f"{early} ended before the run did:\n" + "\n".join(
                _what_it_said(name, workers[name]) for name in early), pytrace=False)
        progress = {name: run.done(name) for name in workers} | {
            f"{loop.make_args(0)[0]} loop {n}": len(loop.results) for n, loop in enumerate(loops)}
        if (all(n >= (TUI_SEARCHES if name == "tui" else OPS) for name, n in progress.items())
                and all(not loop.is_alive() for loop in finished)):
            break
        assert time.monotonic() < deadline, f"no progress in {HANG} s: {progress}"
        time.sleep(0.1)


def test_writers_and_readers_at_once(tmp_path):
    db = tmp_path / "shared.db"
    catalog = Catalog.open(db)
    catalog.import_paths([SEEDS])
    keys = [p.key for p in catalog.search("", limit=30, snippets=False)]
    catalog.close()
    files = write_paper_lists(2400, tmp_path / "lists", per_file=600)

    start = time.monotonic()
    run = Run(tmp_path / "run")
    run.folder.mkdir()
    workers = {
        "tagger-a": _worker("tagger", str(db), str(run.folder), "a", *keys[:20]),
        "tagger-b": _worker("tagger", str(db), str(run.folder), "b", *keys[:20]),
        "reader": _worker("reader", str(db), str(run.folder)),
    }
    if _has_tui():
        workers["tui"] = _worker("tui", str(db), str(run.folder))
    cli_keys = keys[20:30]
    loops = [
        CliLoop(db, run, lambda i: ["import", str(files[i])] if i < len(files) else None),
        CliLoop(db, run, lambda i: ["tag", cli_keys[i % len(cli_keys)], f"+cli{i}"]),
        CliLoop(db, run, lambda i: ["search", ("attention", "graph", "tag:cli1 OR tag:a1")[i % 3]]),
    ]
    for loop in loops:
        loop.start()
    try:
        _until_each_has_done_its_share(run, workers, loops[1:], finished=loops[:1])
    finally:
        run.stop()
    summaries = []
    for w in workers.values():
        stdout, stderr = w.communicate(timeout=HANG)
        assert w.returncode == 0 and not any(b in stderr for b in BAD), stdout + stderr
        summaries.append(json.loads(stdout))
    for loop in loops:
        loop.join(timeout=HANG)
    elapsed = time.monotonic() - start
    imports = loops[0].results
    assert len(imports) == len(files)

    # No process saw an error; no "database is locked" reached anyone.
    for loop in loops:
        for args, code, stderr in loop.results:
            assert code == 0 and not any(b in stderr for b in BAD), (args, stderr)
    for s in summaries:
        assert s["errors"] == [], s
        assert s.get("warnings", []) == [], s

    # No write lost.
    catalog = Catalog.open(db)
    try:
        tags_of = {st.key: set(st.tags) for st in catalog.snapshot(keys)}
        for s in summaries:
            for key, tags in s.get("expected", {}).items():
                prefix = tags[0][0] if tags else None
                if prefix:
                    assert {t for t in tags_of[key] if t[0] == prefix and t[1:].isdigit()} == set(tags)
        for args, _, _ in loops[1].results:
            key, tag = args[1], args[2][1:]
            assert tag in tags_of[key], (key, tag)
        stats = catalog.stats()
        assert stats.sources == 5 + len(files)
        assert stats.papers == 90 + 2400
        assert doctor.run(catalog.store).healthy
    finally:
        catalog.close()

    taggers = [s for s in summaries if s["role"] == "tagger"]
    print(f"\nconcurrency: {elapsed:.1f} s, {len(workers) + sum(len(lp.results) for lp in loops)} processes;"
          f" tagger ops {[t['ops'] for t in taggers]},"
          f" reader ops {[s['ops'] for s in summaries if s['role'] == 'reader']},"
          f" TUI {[(s['searches'], s['ops']) for s in summaries if s['role'] == 'tui'] or 'skipped'},"
          f" CLI imports {len(imports)}, CLI tags {len(loops[1].results)},"
          f" CLI searches {len(loops[2].results)}; all writes present")
    assert all(t["ops"] >= OPS for t in taggers)


@pytest.mark.skipif(not _has_tui(), reason="catalog.tui.app.CatalogApp does not exist yet, so "
                    "test_writers_and_readers_at_once runs without a TUI session")
def test_the_tui_session_takes_part():
    assert _has_tui()


def test_first_use_by_several_processes_at_once(tmp_path):
    """Four commands start together on a new default catalog: one creates, migrates and
    seeds it; the others wait; all succeed and the seeds are in once."""
    env = {k: v for k, v in os.environ.items() if k != "CATALOG_DB"}
    env.update(HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    procs = [subprocess.Popen([sys.executable, "-m", "catalog", *args], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for args in (["stats", "--json"], ["search", "attention"], ["tags"], ["list", "-n", "3"])]
    for p in procs:
        stdout, stderr = p.communicate(timeout=HANG)
        assert p.returncode == 0 and not any(b in stderr for b in BAD), stderr
    out = subprocess.run([sys.executable, "-m", "catalog", "stats", "--json"], env=env,
                         capture_output=True, text=True, cwd=ROOT)
    stats = json.loads(out.stdout)
    assert (stats["papers"], stats["sources"]) == (90, 5)


def test_a_command_waiting_for_first_use_can_be_stopped_and_outlives_a_killed_preparer(tmp_path):
    """A command waiting while another prepares the new default catalog: Ctrl-C ends it with
    one line; a preparer killed mid-way holds nobody up (the kernel drops its lock), and the
    next command makes the catalog whole."""
    env = {k: v for k, v in os.environ.items() if k != "CATALOG_DB"}
    env.update(HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    folder = tmp_path / "data" / "catalog"
    folder.mkdir(parents=True)
    # Stands for a command busy preparing the catalog: it holds the lock as they do.
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys, time; "
                               "fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); "
                               "print('held', flush=True); time.sleep(3600)", str(folder)],
                              stdout=subprocess.PIPE, text=True)

    def waiting(args: list[str]) -> subprocess.Popen:
        # Ctrl-C as in a terminal: pytest-xdist's workers ignore SIGINT, and a child inherits that.
        proc = subprocess.Popen([sys.executable, "-m", "catalog", *args], env=env, cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert "Waiting for another catalog command" in proc.stderr.readline()
        return proc

    try:
        assert holder.stdout.readline() == "held\n"
        stopped = waiting(["stats", "--json"])
        stopped.send_signal(signal.SIGINT)
        _, stderr = stopped.communicate(timeout=HANG)
        assert (stopped.returncode, stderr.strip()) == (130, "catalog: interrupted")

        patient = waiting(["search", "attention"])
        holder.kill()
        stdout, stderr = patient.communicate(timeout=HANG)
        assert patient.returncode == 0 and stdout.strip() and not any(b in stderr for b in BAD), stderr
    finally:
        holder.kill()
        holder.wait()
    out = subprocess.run([sys.executable, "-m", "catalog", "stats", "--json"], env=env,
                         capture_output=True, text=True, cwd=ROOT)
    stats = json.loads(out.stdout)
    assert (stats["papers"], stats["sources"]) == (90, 5)


def test_writers_at_once_on_postgresql(pg_server, tmp_path):
    """Several processes tag and rate the same papers on a server at once, a TUI session
    searches meanwhile: nothing fails, no update is lost (writers queue on one lock)."""
    from tests.conftest import OWNER
    from tests.pg_server import as_role

    people = [f"reader{n}" for n in range(3)]  # each a role of its own: who rates is the role
    pg_server.ensure_roles(*people)
    url = as_role(pg_server.create(owner=OWNER), OWNER)
    catalog = Catalog.open(url)
    catalog.import_paths([SEEDS])
    for who in people:
        catalog.admin.add_member(who)
    keys = [p.key for p in catalog.search("", limit=20, snippets=False)]
    catalog.close()
    run = Run(tmp_path / "run")
    run.folder.mkdir()
    workers = {"tagger-a": _worker("tagger", url, str(run.folder), "a", *keys[:12]),
               "tagger-b": _worker("tagger", url, str(run.folder), "b", *keys[:12])}
    if _has_tui():
        workers["tui"] = _worker("tui", url, str(run.folder))
    raters = [CliLoop(as_role(url, who), run, lambda i: ["rate", keys[12 + i % 8], str(1 + i % 5)])
              for who in people]
    for loop in raters:
        loop.start()
    try:
        _until_each_has_done_its_share(run, workers, raters)
    finally:
        run.stop()
    summaries = []
    for w in workers.values():
        stdout, stderr = w.communicate(timeout=HANG)
        assert w.returncode == 0 and not any(b in stderr for b in BAD), stdout + stderr
        summaries.append(json.loads(stdout))
    for loop in raters:
        loop.join(timeout=HANG)
    try:
        for s in summaries:
            assert s["errors"] == [] and s.get("warnings", []) == [], s
        for who, loop in zip(people, raters):
            assert loop.results and all(code == 0 for _, code, _ in loop.results), loop.results[:3]
            last = {args[1]: int(args[2]) for args, _, _ in loop.results}  # each paper's last rating
            mine = Catalog.open(as_role(url, who))
            try:
                assert {k: mine.get(k).summary.rating for k in last} == last, who
            finally:
                mine.close()
        check = Catalog.open(url)
        tags_of = {st.key: set(st.tags) for st in check.snapshot(keys)}
        check.close()
        for s in summaries:
            for key, tags in s.get("expected", {}).items():
                if tags:
                    assert {t for t in tags_of[key] if t[0] == tags[0][0] and t[1:].isdigit()} == set(tags)
        assert all(s["ops"] >= OPS for s in summaries if s["role"] == "tagger"), summaries
    finally:
        pg_server.drop(url)
