"""The schema of a catalog file: its revision, bringing it to this program's, and Alembic
driven from code (`catalog db upgrade|current|history`). Alembic and SQLAlchemy are imported
only when a file needs migrating or a `catalog db` command asks."""

from __future__ import annotations

from pathlib import Path

from catalog.errors import CatalogError
from catalog.store import schema
from catalog.store.sqlite.connection import BUSY_TIMEOUT_MS, Pool, configure_connection
from catalog.store.sqlite.files import backup_copy


def ensure_schema(pool: Pool, revision: str | None, *, notify=lambda message: None) -> None:
    """Bring a file at `revision` (None: new) to this program's schema, keeping a copy first
    when it holds papers and a migration changes it. Alembic re-reads the revision inside its
    own transaction, so a concurrent upgrade by another process is harmless."""
    if revision == schema.SCHEMA_REVISION:
        return
    if revision is not None and _holds_papers(pool) and schema.changes_sqlite(revision):
        backup = backup_copy(pool.path, f"before-{revision}")
        notify(f"Upgrading {pool.path} (backup kept at {backup})")
    try:
        upgrade(pool.path)
    except Exception as exc:  # SQLAlchemy wraps SQLite's errors; the user gets one line
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        if "readonly" in reason or "unable to open" in reason:
            doing = "create a catalog" if revision is None else f"upgrade the catalog (schema {revision})"
            raise CatalogError(f"cannot {doing} at {pool.path}: it is read-only") from None
        raise CatalogError(f"cannot prepare {pool.path}: {reason}") from None


def _holds_papers(pool: Pool) -> bool:
    with pool.connection() as conn:
        has_table = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'paper'").first()
        return bool(has_table and conn.execute("SELECT 1 FROM paper LIMIT 1").first())


# --- Alembic --------------------------------------------------------------------------------

def sqlalchemy_engine(path: Path | str):
    """An SQLAlchemy engine on the file, with the catalog's pragmas (Alembic needs one)."""
    from sqlalchemy import create_engine, event

    url = str(path) if "://" in str(path) else f"sqlite:///{path}"
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
    event.listen(engine, "connect", lambda dbapi_conn, _record: configure_connection(dbapi_conn))
    return engine


def _run_in_one_transaction(path: Path, action) -> None:
    # SQLite DDL is transactional: the whole upgrade commits at once or not at all, so a
    # process killed mid-migration leaves the database at its old revision.
    #
    # Foreign keys are off while migrating (SQLite's documented recipe for altering tables):
    # batch mode rebuilds a table by dropping it, and dropping `paper` with foreign keys on
    # cascades to every tag, note and provenance row. The pragma is a no-op inside a
    # transaction, so it is set before BEGIN, and the keys are checked before COMMIT instead.
    config = schema.alembic_config()
    engine = sqlalchemy_engine(path)
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA foreign_keys = OFF")
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            try:
                config.attributes["connection"] = conn
                config.attributes["scripts_only"] = True  # no models needed (migrations/env.py)
                action(config)
                broken = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
                if broken:
                    raise RuntimeError(f"migration left rows pointing nowhere: {broken[:5]}")
            except BaseException:
                conn.rollback()
                raise
            conn.commit()
        finally:
            conn.exec_driver_sql("PRAGMA foreign_keys = ON")
    engine.dispose()


def upgrade(path: Path, revision: str = "head") -> None:
    from alembic import command

    _run_in_one_transaction(path, lambda config: command.upgrade(config, revision))


def downgrade(path: Path, revision: str) -> None:
    from alembic import command

    _run_in_one_transaction(path, lambda config: command.downgrade(config, revision))


def current(path: Path) -> str | None:
    from alembic.runtime.migration import MigrationContext

    engine = sqlalchemy_engine(path)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()
