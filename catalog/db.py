"""The engine, transactions, and migrate-on-open. Alembic is imported only to migrate."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, Engine

from catalog import sqlite

# The newest migration this program knows; a test checks it against migrations/versions.
# Kept here so opening an up-to-date catalog never imports Alembic.
SCHEMA_REVISION = "0001"


class CatalogError(Exception):
    """An error the user can act on; the CLI prints it as one line."""


def make_engine(path: Path) -> Engine:
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 30, "check_same_thread": False})
    sqlite.install_pragmas(engine)
    return engine


@contextmanager
def write(engine: Engine) -> Iterator[Connection]:
    """One write transaction that holds the write lock from its first statement."""
    with engine.connect() as conn:
        sqlite.begin_write(conn)
        try:
            yield conn
        except BaseException:
            conn.rollback()
            raise
        conn.commit()


@contextmanager
def read(engine: Engine) -> Iterator[Connection]:
    """A read transaction: one consistent snapshot for several queries."""
    with engine.connect() as conn:
        sqlite.begin_read(conn)
        try:
            yield conn
        finally:
            conn.rollback()


def stored_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        has_table = conn.exec_driver_sql(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='alembic_version'"
        ).first()
        if not has_table:
            return None
        return conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()


def _holds_papers(engine: Engine) -> bool:
    with engine.connect() as conn:
        has_table = conn.exec_driver_sql(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='paper'"
        ).first()
        return bool(has_table and conn.exec_driver_sql("SELECT 1 FROM paper LIMIT 1").first())


def backup_before_migration(path: Path, revision: str) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.before-{revision}-{stamp}.bak")
    src = sqlite3.connect(path)
    try:
        copy_connection(src, target)
    finally:
        src.close()
    return target


def ensure_schema(engine: Engine, path: Path, *, notify=lambda message: None) -> None:
    """Create or migrate the database to this program's schema."""
    revision = stored_revision(engine)
    if revision == SCHEMA_REVISION:
        return
    from catalog import migrate

    if revision is not None and revision not in migrate.known_revisions():
        raise CatalogError(
            f"{path} was written by a newer version of catalog (schema {revision}); "
            "upgrade catalog to open it"
        )
    if revision is not None and _holds_papers(engine):
        backup = backup_before_migration(path, revision)
        notify(f"Upgrading {path} (backup kept at {backup})")
    migrate.upgrade(engine)


def open_engine(path: Path, *, notify=lambda message: None) -> Engine:
    if path.exists() and path.is_dir():
        raise CatalogError(f"{path} is a directory, not a catalog database")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CatalogError(f"cannot create {path.parent}: {exc.strerror}") from None
    _check_is_sqlite(path)
    engine = make_engine(path)
    ensure_schema(engine, path, notify=notify)
    return engine


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


def copy_connection(source: sqlite3.Connection, target: Path) -> None:
    """A consistent copy through SQLite's backup API, safe while others use the file."""
    dst = sqlite3.connect(target)
    try:
        source.backup(dst)
    finally:
        dst.close()
