"""The database file, transactions, and migrate-on-open. Alembic is imported only to migrate."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from catalog import sqlite
from catalog.sqlite import Connection

# The newest migration this program knows; a test checks it against migrations/versions.
# Kept here so opening an up-to-date catalog never imports Alembic.
SCHEMA_REVISION = "0003"
# PRAGMA user_version of the default catalog once the bundled seeds are fully imported. Seeding
# imports several files; a process killed half-way leaves this unset and the next run finishes.
SEEDED = 1


class CatalogError(Exception):
    """An error the user can act on; the CLI prints it as one line."""


class Database:
    """One catalog file. Each unit of work borrows a connection of its own, so threads such as
    the TUI's workers never use one at the same time; idle ones are kept, because opening a
    connection (pragmas, schema) costs more than a typical query."""

    KEEP_IDLE = 4

    def __init__(self, path: Path):
        self.path = path
        self._idle: list[Connection] = []
        self._lock = threading.Lock()

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = sqlite.connect(self.path)
        try:
            yield conn
        except BaseException:
            conn.close()  # its state is unknown; don't lend it out again
            raise
        if conn.in_transaction:
            conn.close()
            return
        with self._lock:
            if len(self._idle) < self.KEEP_IDLE:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


@contextmanager
def write(database: Database) -> Iterator[Connection]:
    """One write transaction that holds the write lock from its first statement."""
    with database.connect() as conn:
        sqlite.begin_write(conn)
        try:
            yield conn
        except BaseException:
            conn.rollback()
            raise
        conn.commit()


@contextmanager
def read(database: Database) -> Iterator[Connection]:
    """A read transaction: one consistent snapshot for several queries."""
    with database.connect() as conn:
        sqlite.begin_read(conn)
        try:
            yield conn
        finally:
            conn.rollback()


def _holds_papers(database: Database) -> bool:
    with database.connect() as conn:
        has_table = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='paper'"
        ).first()
        return bool(has_table and conn.execute("SELECT 1 FROM paper LIMIT 1").first())


def backup_copy(path: Path, label: str) -> Path:
    """A consistent copy next to the file, `NAME.LABEL-STAMP.bak`; never overwrites one.

    Written under a `.partial` name and renamed when complete, so a `.bak` is always whole.
    """
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{label}-{stamp}.bak")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.{label}-{stamp}-{n}.bak")
    copy_database(path, target)
    return target


def backup_before_migration(path: Path, revision: str) -> Path:
    return backup_copy(path, f"before-{revision}")


def _refuse_newer(path: Path, revision: str | None) -> None:
    if revision is None or revision == SCHEMA_REVISION:
        return
    from catalog import migrate

    if revision not in migrate.known_revisions():
        raise CatalogError(
            f"{path} was written by a newer version of catalog (schema {revision}); "
            "upgrade catalog to open it"
        )


def _peek_revision(path: Path) -> str | None:
    """The stored revision, read without changing the file: no pragmas, only SELECTs.

    (Not `mode=ro`: a read-only connection cannot remove the -wal and -shm files it opens.)
    """
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        conn = sqlite3.connect(path, timeout=sqlite.BUSY_TIMEOUT_MS / 1000)
        try:
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table'"
                                " AND name = 'alembic_version'").fetchone():
                return None
            row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
            return row[0] if row else None
        finally:
            conn.close()
    except sqlite3.Error:
        return None  # opening it normally gives the real error


def ensure_schema(database: Database, revision: str | None, *, notify=lambda message: None) -> None:
    """Bring a database at `revision` (None: new, or unreadable by a peek) to this program's
    schema. Alembic re-reads the revision inside its own transaction, so a concurrent upgrade
    by another process is harmless."""
    if revision == SCHEMA_REVISION:
        return
    from catalog import migrate

    if revision is not None and _holds_papers(database):
        backup = backup_before_migration(database.path, revision)
        notify(f"Upgrading {database.path} (backup kept at {backup})")
    migrate.upgrade(database.path)


def open_database(path: Path, *, notify=lambda message: None) -> Database:
    if path.exists() and path.is_dir():
        raise CatalogError(f"{path} is a directory, not a catalog database")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CatalogError(f"cannot create {path.parent}: {exc.strerror}") from None
    _check_is_sqlite(path)
    # Read once, without pragmas: a file from a newer catalog is refused before anything
    # touches it, and an up-to-date one needs nothing more.
    revision = _peek_revision(path)
    _refuse_newer(path, revision)
    database = Database(path)
    ensure_schema(database, revision, notify=notify)
    return database


def is_seeded(database: Database) -> bool:
    with database.connect() as conn:
        return conn.execute("PRAGMA user_version").scalar() == SEEDED


def mark_seeded(database: Database) -> None:
    with write(database) as conn:
        conn.execute(f"PRAGMA user_version = {SEEDED}")


def _check_is_sqlite(path: Path) -> None:
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        with path.open("rb") as f:
            magic = f.read(16)
    except OSError as exc:
        raise CatalogError(f"cannot read {path}: {exc.strerror}") from None
    if magic != b"SQLite format 3\x00":
        raise CatalogError(f"{path} is not a catalog database (not an SQLite file)")


def copy_database(path: Path, target: Path) -> None:
    """A consistent copy of the catalog at `path`, safe while others use it. Written under a
    temporary name beside `target` and renamed when complete, so `target` is never half-written."""
    partial = target.with_name(f".{target.name}.partial")
    try:
        source = sqlite3.connect(path, timeout=sqlite.BUSY_TIMEOUT_MS / 1000)
        try:
            copy_connection(source, partial)
        finally:
            source.close()
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def copy_connection(source: sqlite3.Connection, target: Path) -> None:
    """A consistent copy through SQLite's backup API, safe while others use the file."""
    dst = sqlite3.connect(target)
    try:
        source.backup(dst)
    finally:
        dst.close()
