"""Alembic, driven from code: upgrade, current, history. Imported only when needed."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine

from catalog import sqlite
from catalog.resources import migrations_dir


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    return config


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def known_revisions() -> set[str]:
    script = ScriptDirectory.from_config(alembic_config())
    return {rev.revision for rev in script.walk_revisions()}


def sqlalchemy_engine(path: Path | str) -> Engine:
    """An SQLAlchemy engine on the file, with the catalog's pragmas (Alembic needs one)."""
    url = str(path) if "://" in str(path) else f"sqlite:///{path}"
    engine = create_engine(url, connect_args={"timeout": sqlite.BUSY_TIMEOUT_MS / 1000})
    event.listen(engine, "connect", lambda dbapi_conn, _record: sqlite.configure_connection(dbapi_conn))
    return engine


def _run_in_one_transaction(path: Path, action) -> None:
    # SQLite DDL is transactional: the whole upgrade commits at once or not at all, so a
    # process killed mid-migration leaves the database at its old revision.
    #
    # Foreign keys are off while migrating (SQLite's documented recipe for altering tables):
    # batch mode rebuilds a table by dropping it, and dropping `paper` with foreign keys on
    # cascades to every tag, note and provenance row. The pragma is a no-op inside a
    # transaction, so it is set before BEGIN, and the keys are checked before COMMIT instead.
    config = alembic_config()
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
    _run_in_one_transaction(path, lambda config: command.upgrade(config, revision))


def downgrade(path: Path, revision: str) -> None:
    _run_in_one_transaction(path, lambda config: command.downgrade(config, revision))


def current(path: Path) -> str | None:
    engine = sqlalchemy_engine(path)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def history() -> list[tuple[str, str | None, str]]:
    """(revision, down_revision, message), oldest first."""
    script = ScriptDirectory.from_config(alembic_config())
    revs = [(r.revision, r.down_revision, r.doc or "") for r in script.walk_revisions()]
    return list(reversed(revs))
