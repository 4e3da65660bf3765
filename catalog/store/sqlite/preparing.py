"""One process at a time makes, migrates and seeds a catalog file.

Several commands started together on a new catalog (the default one on first use, a script's
`catalog import` fan-out) would each try to create, migrate and seed it. SQLite serializes
them only through its busy timeout: on a loaded machine the first process's migration and
seeding outlast it and the others fail with "database is locked". So preparation runs under
an exclusive flock(2) on the catalog's folder, and a process that finds the file unprepared
waits on that lock, however long the first one takes, then finds the work done.

The folder, not a sidecar file, is locked: nothing is left beside the catalog, and a lock held
by a process that was killed is released by the kernel with its descriptor (no stale lock).
Only unprepared files take it, so commands on a ready catalog never wait on anyone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from catalog.store import schema
from catalog.store.sqlite.files import inspect_file

try:
    import fcntl
except ImportError:  # Windows: no flock; preparation falls back to SQLite's busy timeout
    fcntl = None


def is_ready(path: Path, *, seed: bool) -> bool:
    """Whether the file is a catalog at this program's schema (and seeded, when `seed`)."""
    state = inspect_file(path)
    return (state.kind == "catalog" and state.revision == schema.SCHEMA_REVISION
            and (state.seeded or not seed))


@contextmanager
def preparing(path: Path, *, seed: bool, notify: Callable[[str], None]) -> Iterator[None]:
    """Held while the caller opens (creates, migrates) and, with `seed`, seeds the file at
    `path`; other processes doing the same wait here. Not re-entrant within a process."""
    if fcntl is None or is_ready(path, seed=seed):
        yield
        return
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        yield  # opening reports what is wrong with the folder, in its own words
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            notify(f"Waiting for another catalog command to prepare {path}")
            fcntl.flock(fd, fcntl.LOCK_EX)  # Ctrl-C raises KeyboardInterrupt here, fd closes below
        except OSError:
            pass  # a file system without flock (some network mounts): as before, no lock
        yield
    finally:
        os.close(fd)  # releases the lock
