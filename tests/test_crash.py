"""SIGKILL at random points: during a large import, while the default catalog is created and
seeded, and during a migration. After every kill the file is consistent (integrity_check and
FTS5 integrity-check clean, no half-imported file, the schema either absent or complete), and
running the command again finishes the job.

Kill delays are random but seeded; CATALOG_CRASH_KILLS raises the number of kills for a
longer soak run. Each test prints its figures (run pytest with -s to see them).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.corpus import write_paper_lists
from catalog.store.sqlite import migrations as migrate
from catalog.importing.dedupe import fingerprint
from catalog.importing.importer import file_sha256
from catalog.ingest.paperlist import read_paper_list
from catalog.library import Catalog
from tests import future_schema
from tests.test_upgrades import user_data

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")

KILLS = int(os.environ.get("CATALOG_CRASH_KILLS", "12"))
FILES, PER_FILE = 5, 1000
SEED = 20261130


def catalog_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "catalog", *args]


@dataclass
class Expected:
    by_sha: dict[str, frozenset[str]]  # file sha256 -> fingerprints of its abstracts
    positions: dict[str, int]  # file sha256 -> number of abstracts


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, Expected]:
    folder = tmp_path_factory.mktemp("corpus")
    files = write_paper_lists(FILES * PER_FILE, folder, per_file=PER_FILE)
    by_sha, positions = {}, {}
    for path in files:
        with read_paper_list(path) as paper_list:
            records = list(paper_list.records)
        sha = file_sha256(path)
        by_sha[sha] = frozenset(fingerprint(r) for r in records)
        positions[sha] = len(records)
    all_fps = [fp for fps in by_sha.values() for fp in fps]
    assert len(all_fps) == len(set(all_fps)) == FILES * PER_FILE  # every abstract distinct
    return folder, Expected(by_sha, positions)


def remove_db(path: Path) -> None:
    for leftover in path.parent.glob(path.name + "*"):
        leftover.unlink()


def tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger', 'view')")}


def assert_consistent(path: Path) -> sqlite3.Connection | None:
    """The checks every kill must pass; returns an open connection when the schema exists."""
    if not path.exists():
        return None
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    present = tables(conn)
    if "alembic_version" not in present:
        # Killed before the first migration committed: nothing half-made is visible.
        assert present == set(), present
        conn.close()
        return None
    assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(migrate.head_revision(),)]
    assert {"paper", "paper_fts", "paper_fts_insert", "papers", "note_insert"} <= present
    conn.execute("INSERT INTO paper_fts(paper_fts, rank) VALUES ('integrity-check', 1)")
    conn.rollback()
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    return conn


def assert_whole_files(conn: sqlite3.Connection, expected: Expected) -> int:
    """No half-imported file: each source row has all its provenance rows, and the papers
    are exactly those of the files recorded as imported. Returns the number of such files."""
    sources = conn.execute("SELECT id, sha256 FROM source").fetchall()
    for source_id, sha in sources:
        n = conn.execute("SELECT count(*) FROM provenance WHERE source_id = ?", (source_id,)).fetchone()[0]
        assert n == expected.positions[sha]
    want = frozenset().union(*(expected.by_sha[sha] for _, sha in sources))
    have = {r[0] for r in conn.execute("SELECT fingerprint FROM paper")}
    assert have == want
    return len(sources)


def kill_after(args: list[str], delay: float, env: dict | None = None,
               once: Callable[[], bool] | None = None) -> bool:
    """Start, wait `delay` s (counted from when `once()` is true, if given), SIGKILL.

    True if it was still running when killed (a real kill point)."""
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    while once is not None and proc.poll() is None and not once():
        time.sleep(0.002)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return True
    err = proc.stderr.read().decode()
    assert proc.returncode == 0 and "Traceback" not in err, err
    return False


def timed_run(args: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return time.perf_counter() - start


def test_kill_during_a_large_import(corpus, tmp_path):
    folder, expected = corpus
    # A clean import first: the reference, and how long a whole run takes.
    clean = tmp_path / "clean.db"
    duration = timed_run(catalog_cmd("--db", str(clean), "import", str(folder)))
    with sqlite3.connect(clean) as conn:
        assert assert_whole_files(conn, expected) == FILES
        reference = sorted(conn.execute("SELECT key, fingerprint, headline FROM paper"))

    startup = timed_run(catalog_cmd("--db", str(clean), "stats"))
    per_file = max(0.05, (duration - startup) / FILES)

    path = tmp_path / "killed.db"
    rng = random.Random(SEED)
    kills, finished, resets, progress, done = 0, 0, 0, [], 0
    while kills < KILLS and finished < KILLS:
        # Aim at the import itself: after start-up, before the remaining files are done.
        was_killed = kill_after(catalog_cmd("--db", str(path), "import", str(folder)),
                                rng.uniform(0.8 * startup, startup + (FILES - done) * per_file))
        kills += was_killed
        finished += not was_killed
        conn = assert_consistent(path)
        done = assert_whole_files(conn, expected) if conn else 0
        if conn:
            conn.close()
        progress.append(done)
        if done == FILES:  # start again so later kills land in early imports too
            remove_db(path)
            resets += 1

    # Running the import again completes it, equal to the clean import.
    timed_run(catalog_cmd("--db", str(path), "import", str(folder)))
    conn = assert_consistent(path)
    assert assert_whole_files(conn, expected) == FILES
    assert sorted(conn.execute("SELECT key, fingerprint, headline FROM paper")) == reference
    conn.close()
    print(f"\nimport kills: {kills} kill points ({finished} runs finished first, {resets} restarts),"
          f" files whole after each: {progress}; clean import {duration:.1f} s")
    assert kills == KILLS


def test_kill_while_the_default_catalog_is_created_and_seeded(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CATALOG_DB"}
    env.update(HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    path = Path(subprocess.run(catalog_cmd("db", "path"), env=env, capture_output=True,
                               text=True).stdout.strip())
    reference = tmp_path / "reference"
    ref_env = {**env, "XDG_DATA_HOME": str(reference)}
    duration = timed_run(catalog_cmd("stats"), env=ref_env)
    startup = timed_run(catalog_cmd("stats"), env=ref_env)
    window = max(0.1, duration - startup)  # creating, migrating and seeding
    rng = random.Random(SEED + 1)
    kills, seen, runs = 0, [], 0
    while kills < max(6, KILLS // 2) and runs < 3 * KILLS:
        runs += 1
        # Counted from when the file appears (kills land in the migration and the seeding), or
        # every other time from when the schema is committed (kills land in the seeding).
        if runs % 2:
            delay, ready = rng.uniform(0, window), path.exists
        else:
            delay, ready = rng.uniform(0, 0.1 * window), lambda: _has_schema(path)
        kills += kill_after(catalog_cmd("stats"), delay, env=env, once=ready)
        conn = assert_consistent(path)
        seen.append(conn.execute("SELECT count(*) FROM paper").fetchone()[0] if conn else None)
        if conn:
            conn.close()
        if seen[-1] == 90:
            remove_db(path)
    out = subprocess.run(catalog_cmd("stats", "--json"), env=env, capture_output=True, text=True)
    assert '"papers": 90' in out.stdout, out.stdout + out.stderr
    conn = assert_consistent(path)
    assert conn.execute("SELECT count(*) FROM source").fetchone() == (5,)
    conn.close()
    print(f"\nseeding kills: {kills} kill points, papers after each: {seen}")
    assert kills == max(6, KILLS // 2)


def _has_schema(path: Path) -> bool:
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=0.01)
        try:
            return bool(conn.execute("SELECT 1 FROM alembic_version").fetchone())
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def test_kill_during_a_migration(corpus, tmp_path):
    """`catalog db upgrade` to a pretend next revision that rebuilds the paper table,
    killed at random points (during the backup copy, the table copy, the FTS rebuild)."""
    folder, _ = corpus
    migrations = future_schema.install(tmp_path)
    start = tmp_path / "start.db"
    catalog = Catalog.open(start)
    catalog.import_paths(sorted(folder.iterdir())[:3])
    keys = [p.key for p in catalog.search("", limit=300, snippets=False)]
    for i, key in enumerate(keys):
        catalog.tag([key], add=[f"t{i % 9}", "all"])
        if i % 3 == 0:
            catalog.add_note(key, f"note {i} [red]literal[/red]")
        catalog.set_status([key], ("read", "queued", "reading")[i % 3])
        catalog.set_rating([key], 1 + i % 5)
    catalog.close()
    with sqlite3.connect(start) as conn:
        before = user_data(conn)

    upgrade = [sys.executable, "-c", future_schema.prelude(migrations) + "main()", "--db"]
    reference = tmp_path / "reference.db"
    shutil.copy(start, reference)
    duration = timed_run([*upgrade, str(reference), "db", "upgrade"])

    startup = timed_run([*upgrade, str(reference), "stats"])

    path = tmp_path / "killed.db"
    shutil.copy(start, path)
    rng = random.Random(SEED + 2)
    kills, outcomes, runs = 0, [], 0
    while kills < max(6, KILLS // 2) and runs < 3 * KILLS:
        runs += 1
        kills += kill_after([*upgrade, str(path), "db", "upgrade"],
                            rng.uniform(0.8 * startup, duration))
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        columns = {r[1] for r in conn.execute("PRAGMA table_info(paper)")}
        assert revision in (migrate.head_revision(), future_schema.FUTURE_REVISION)
        assert ("read_at" in columns) == (revision == future_schema.FUTURE_REVISION)
        conn.execute("INSERT INTO paper_fts(paper_fts, rank) VALUES ('integrity-check', 1)")
        conn.rollback()
        assert user_data(conn) == before
        conn.close()
        outcomes.append(revision)
        # Any backup that exists is whole (copies are written aside and renamed).
        for bak in tmp_path.glob("killed.db.*.bak"):
            with sqlite3.connect(bak) as b:
                assert user_data(b) == before
            bak.unlink()
        if revision == future_schema.FUTURE_REVISION:  # done: start again from the old file
            remove_db(path)
            shutil.copy(start, path)
    # Running it again finishes the upgrade.
    timed_run([*upgrade, str(path), "db", "upgrade"])
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (
            future_schema.FUTURE_REVISION,)
        assert user_data(conn) == before
    print(f"\nmigration kills: {kills} kill points, revision after each: {outcomes};"
          f" a whole upgrade takes {duration:.1f} s")
    assert kills == max(6, KILLS // 2)
