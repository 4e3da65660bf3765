"""The discovery cache brought up to date in a process of its own after `catalog import`.

    python -m catalog.discover.refresher DB      # what `start` runs, detached
    CATALOG_REFRESH_SERVER=URL python -m catalog.discover.refresher --server   # a PostgreSQL catalog

It also ranks the ranked lists of frequent words (catalog/store/lists/) that searches cannot
read, before the discovery cache: those `catalog import` left when it was cut short (it ranks
them itself before it returns), or a search found left (it starts this process when none is at
work). Each list is ranked in a read transaction, so writers never wait on it. Searches
keep no list of their own while it runs (they give way), a write held up by another writer is
tried again, and what it ranked stays ranked: a run cut short is resumed by the next.

An import that adds papers leaves the cache stale, or (a catalog that never used discovery)
missing; the next `similar`, `recommend`, `topics` or triage would pay for it, a wait of
minutes on a large catalog. So `catalog import` starts this process and exits at once; it
updates the cache (incrementally where it can: build.py's rule) while the user reads the
import's report, and a discovery command that comes meanwhile waits on the engine's build
lock for what is left, then finds the cache fresh.

- One at a time: a process that finds another holding `refresh.lock` (in the cache folder)
  leaves; the one running checks the catalog's version again after each update, so papers
  imported while it worked are taken in before it stops.
- Never in the way: its own session (a Ctrl-C at the terminal does not reach it), lowest
  priority, no terminal: its output and any error go to `refresh.log` in the cache folder
  (kept under LOG_LIMIT), never to the screen, and the import's exit status is the import's.
- Derived data: if it fails or is killed, the next discovery command builds what is missing,
  as it always did.

`CATALOG_DISCOVER_REFRESH=inline` updates an existing cache inside the import instead (the
tests use it: no process outlives a test), `off` leaves it to the next discovery command.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

from catalog.extras import installed

MODE_VARIABLE = "CATALOG_DISCOVER_REFRESH"
# A server catalog's URL reaches the process here, not in its arguments (which `ps` shows to
# everyone on the machine: a URL may hold a password).
SERVER_VARIABLE = "CATALOG_REFRESH_SERVER"
LOCK = "refresh.lock"
LOG = "refresh.log"
LOG_LIMIT = 1_000_000  # bytes: the log starts again beyond this
ROUNDS = 5  # updates in one run at most (each for papers imported while the last one ran)


def mode() -> str:
    """"background" (the default), "inline" or "off"."""
    value = os.environ.get(MODE_VARIABLE, "background").strip().lower()
    return value if value in ("background", "inline", "off") else "background"


def start(db: Path | str, cache_dir: Path) -> subprocess.Popen | None:
    """Start the refresh of the catalog at `db` (a file, or a postgresql:// URL; its cache in
    `cache_dir`) and return at once; None when it cannot start (the next discovery command
    builds the cache instead)."""
    from catalog.paths import is_server_url

    env = None
    args = [str(db)]
    if is_server_url(db):
        env, args = {**os.environ, SERVER_VARIABLE: str(db)}, ["--server"]
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        log_path = cache_dir / LOG
        too_long = log_path.exists() and log_path.stat().st_size > LOG_LIMIT
        with open(log_path, "wb" if too_long else "ab") as log:
            detached = ({"start_new_session": True} if os.name == "posix" else
                        {"creationflags": getattr(subprocess, "DETACHED_PROCESS", 0)
                         | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)})
            return subprocess.Popen([sys.executable, "-m", "catalog.discover.refresher", *args],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                    close_fds=True, env=env, **detached)
    except OSError:
        return None


def main(argv: list[str] | None = None) -> int:
    """Refresh the cache of the catalog named in `argv` unless another process is at it;
    0 when done or not needed, 1 on an error (written to the log, not raised)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m catalog.discover.refresher DB", file=sys.stderr)
        return 2
    if args[0] == "--server":
        db: Path | str = os.environ.get(SERVER_VARIABLE, "")
        if not db:
            return 2
    else:
        db = Path(args[0])
        if not db.exists():  # removed since the import: nothing to do (and create nothing)
            return 0
    try:
        os.nice(19)
    except (AttributeError, OSError):
        pass
    from catalog.discover.source import engine
    from catalog.store import open_store

    store = None
    try:
        store = open_store(db)
        cache_dir = engine(store).cache_dir
        cache_dir.mkdir(parents=True, exist_ok=True)
        with _only_one(cache_dir / LOCK) as mine:
            if not mine:
                return 0
            for _ in range(ROUNDS):
                # The lists first: until they are ranked a frequent word's search ranks every
                # match, while discovery waits only for its own commands.
                built = _ranked_lists(store, cache_dir)
                # None when it was fresh, or when there is no discovery to keep (no extra)
                report = engine(store).refresh() if installed("discover") else None
                if report is not None:
                    _log(cache_dir, f"{report.kind} {report.papers} papers "
                                    f"(+{report.added} ~{report.changed} -{report.removed}) "
                                    f"in {report.seconds:.1f} s")
                if report is None and not built:  # both fresh
                    break
        return 0
    except Exception:  # noqa: BLE001 - derived data: written down, never shown
        try:
            if store is None and not isinstance(db, Path):
                raise  # a server that would not open: the traceback goes to the log below
            _log(engine(store).cache_dir if store else db.parent,
                 "failed:\n" + traceback.format_exc())
        except Exception:  # noqa: BLE001
            traceback.print_exc()  # into the log file the process writes to
        return 1
    finally:
        if store is not None:
            store.close()


def _ranked_lists(store, cache_dir: Path) -> int:
    """The ranked lists of frequent words searches cannot read, ranked again: how many.
    Only when behind (a cheap check), so a small import costs nothing here."""
    if not store.lists.behind():
        return 0
    start = time.perf_counter()
    built, left = store.lists.refresh(budget=None, rescored=True)
    _log(cache_dir, f"ranked lists: built {built}, {left} left, in {time.perf_counter() - start:.1f} s")
    return built


def running(cache_dir: Path) -> bool:
    """Whether a refresher is at work on this cache now (for `catalog doctor`)."""
    path = cache_dir / LOCK
    if not path.exists():
        return False
    with _only_one(path) as free:
        return not free


class _only_one:
    """A non-blocking exclusive lock on `path`: `mine` is False when another process has it."""

    def __init__(self, path: Path):
        self.path = path
        self.file = None

    def __enter__(self) -> bool:
        try:
            import fcntl
        except ImportError:  # no flock: the engine's own build lock still keeps builds apart
            return True
        self.file = open(self.path, "a+b")
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.file.close()
            self.file = None
            return False
        return True

    def __exit__(self, *exc) -> None:
        if self.file is not None:
            self.file.close()  # closing releases the lock


def _log(cache_dir: Path, line: str) -> None:
    with open(cache_dir / LOG, "a", encoding="utf-8") as f:
        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} pid {os.getpid()}: {line}\n")


if __name__ == "__main__":
    sys.exit(main())
