"""The discovery cache after `catalog import`: built or updated by a detached process
(catalog/discover/refresher.py), so the first discovery command after an import waits for nothing.
Every test waits for the process it caused: none outlives its test."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import time
from pathlib import Path

import pytest

from catalog.discover import Discovery, refresher, related
from catalog.library import Catalog

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"


def _wait_until_fresh(catalog: Catalog, timeout: float = 180) -> None:
    """Until the refresher an import started has made the cache fresh and exited."""
    deadline = time.monotonic() + timeout
    while catalog.discovery.discovery_status().state != "fresh":
        assert time.monotonic() < deadline, "the cache is still not fresh"
        time.sleep(0.2)
    _wait_until_done(related.engine(catalog.store).cache_dir, deadline - time.monotonic())


def _wait_until_done(cache_dir: Path, timeout: float = 180) -> None:
    """Until no refresher holds the lock (it holds it from start to exit)."""
    deadline = time.monotonic() + timeout
    lock = cache_dir / refresher.LOCK
    while time.monotonic() < deadline:
        if lock.exists():
            with open(lock, "a+b") as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    time.sleep(0.2)
                    continue
            return
        time.sleep(0.2)
    raise AssertionError("the refresher is still running")


def _catalog(args: list[str], db: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "catalog", "--db", str(db), *args],
                          capture_output=True, text=True, cwd=REPO)


def test_an_import_builds_the_cache_in_the_background(tmp_path, monkeypatch):
    monkeypatch.setenv(refresher.MODE_VARIABLE, "background")
    db = tmp_path / "c.db"
    first, *rest = sorted(SEEDS.glob("*.txt"))
    done = _catalog(["import", str(first)], db)
    assert done.returncode == 0 and "discovery" not in done.stderr + done.stdout
    catalog = Catalog.open(db)
    cache_dir = related.engine(catalog.store).cache_dir
    _wait_until_fresh(catalog)  # built with no discovery command run
    # A later import: the same process updates it; the next `similar` has nothing to build.
    assert _catalog(["import", *map(str, rest)], db).returncode == 0
    _wait_until_fresh(catalog)
    assert catalog.discovery.discovery_status().papers == 90
    engine = related.engine(catalog.store)
    assert engine.similar(1, 3) and engine.last_update is None
    log = (cache_dir / refresher.LOG).read_text(encoding="utf-8")
    assert "rebuilt" in log and "failed" not in log
    catalog.close()


def test_a_refresher_leaves_when_another_is_at_work(tmp_path):
    db = tmp_path / "c.db"
    catalog = Catalog.open(db)
    catalog.import_paths([SEEDS])
    cache_dir = related.engine(catalog.store).cache_dir
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / refresher.LOCK, "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert refresher.main([str(db)]) == 0
        assert catalog.discovery.discovery_status().state == "missing"  # it built nothing
    assert refresher.main([str(db)]) == 0
    assert catalog.discovery.discovery_status().state == "fresh"
    catalog.close()


def test_a_refresher_writes_its_errors_to_the_log_not_the_terminal(tmp_path, monkeypatch, capfd):
    db = tmp_path / "c.db"
    catalog = Catalog.open(db)
    catalog.import_paths([SEEDS])

    def broken(engine):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Discovery, "refresh", broken)
    assert refresher.main([str(db)]) == 1
    out, err = capfd.readouterr()
    assert out == err == ""
    log = (related.engine(catalog.store).cache_dir / refresher.LOG).read_text(encoding="utf-8")
    assert "failed" in log and "disk on fire" in log
    catalog.close()


def test_a_refresher_for_a_catalog_removed_since_creates_nothing(tmp_path):
    assert refresher.main([str(tmp_path / "gone.db")]) == 0
    assert not (tmp_path / "gone.db").exists()


@pytest.mark.parametrize("value, expected", [(None, "background"), ("inline", "inline"),
                                             ("OFF", "off"), ("nonsense", "background")])
def test_the_mode_is_read_from_the_environment(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv(refresher.MODE_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(refresher.MODE_VARIABLE, value)
    assert refresher.mode() == expected


def test_the_import_does_not_wait_for_the_build(tmp_path, monkeypatch):
    """The import returns while the refresher cannot build (the test holds the engine's build
    lock): it started a process and did not wait for it."""
    monkeypatch.setenv(refresher.MODE_VARIABLE, "background")
    db = tmp_path / "c.db"
    catalog = Catalog.open(db)
    cache_dir = related.engine(catalog.store).cache_dir
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / "lock", "a+b") as build_lock:
        fcntl.flock(build_lock, fcntl.LOCK_EX)
        assert _catalog(["import", str(SEEDS)], db).returncode == 0  # returns: no deadlock
        assert catalog.discovery.discovery_status().state == "missing"
    _wait_until_fresh(catalog)
    catalog.close()


def test_doctor_says_when_the_cache_is_being_built(tmp_path):
    from catalog.parts.doctor import derived_data

    catalog = Catalog.open(tmp_path / "c.db")
    catalog.import_paths([SEEDS])
    cache_dir = related.engine(catalog.store).cache_dir
    cache_dir.mkdir(parents=True, exist_ok=True)
    assert "not built yet" in derived_data(catalog.store)[0]
    with open(cache_dir / refresher.LOCK, "a+b") as held:  # as a refresher at work holds it
        fcntl.flock(held, fcntl.LOCK_EX)
        assert derived_data(catalog.store)[0] == (
            "discovery cache: being built in the background since the last import")
    assert not refresher.running(cache_dir)
    catalog.close()


def test_an_import_into_a_server_catalog_builds_its_cache_in_the_background(pg_server, monkeypatch):
    """On PostgreSQL the refresher opens the catalog by its URL (given through the environment,
    so a password never shows in the process list) and builds the same cache."""
    monkeypatch.setenv(refresher.MODE_VARIABLE, "background")
    url = pg_server.create()
    try:
        done = _catalog(["import", str(SEEDS)], url)
        assert done.returncode == 0, done.stderr
        catalog = Catalog.open(url)
        _wait_until_fresh(catalog)
        assert catalog.discovery.discovery_status().papers == 90
        log = (related.engine(catalog.store).cache_dir / refresher.LOG).read_text(encoding="utf-8")
        assert "failed" not in log
        catalog.close()
    finally:
        pg_server.drop(url)


def test_a_refresher_names_a_server_catalog_in_its_environment_only(monkeypatch):
    seen = {}

    class Popen:
        def __init__(self, args, **kwargs):
            seen.update(args=args, env=kwargs.get("env"))

    monkeypatch.setattr(refresher.subprocess, "Popen", Popen)
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        refresher.start("postgresql://ann:secret@host/lab", Path(cache))
    assert not any("secret" in a for a in seen["args"])
    assert seen["env"][refresher.SERVER_VARIABLE] == "postgresql://ann:secret@host/lab"
