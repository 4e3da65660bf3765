"""The schema of a catalog file: its revision, bringing it to this program's, and Alembic
driven from code (`catalog db upgrade|current|history`). Alembic and SQLAlchemy are imported
only when a file needs migrating or a `catalog db` command asks."""

from __future__ import annotations

from pathlib import Path

from catalog.errors import CatalogError
from catalog.resources import migrations_dir
from catalog.store.sqlite.connection import BUSY_TIMEOUT_MS, Pool, configure_connection
from catalog.store.sqlite.files import backup_copy

# The newest migration this program knows; a test checks it against migrations/versions.
# Kept here so opening an up-to-date catalog never imports Alembic.
SCHEMA_REVISION = "0014"


def refuse_newer(path: Path, revision: str | None) -> None:
    if revision is None or revision == SCHEMA_REVISION:
        return
    if revision not in known_revisions():
        raise CatalogError(
            f"{path} was written by a newer version of catalog (schema {revision}); "
            "upgrade catalog to open it"
        )


def ensure_schema(pool: Pool, revision: str | None, *, notify=lambda message: None) -> None:
    """Bring a file at `revision` (None: new) to this program's schema, keeping a copy first
    when it holds papers. Alembic re-reads the revision inside its own transaction, so a
    concurrent upgrade by another process is harmless."""
    if revision == SCHEMA_REVISION:
        return
    if revision is not None and _holds_papers(pool):
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

def alembic_config():
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    return config


def _scripts():
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


def head_revision() -> str:
    return _scripts().get_current_head()


def known_revisions() -> set[str]:
    return {rev.revision for rev in _scripts().walk_revisions()}


def history() -> list[tuple[str, str | None, str]]:
    """(revision, down_revision, message), oldest first."""
    revs = [(r.revision, r.down_revision, r.doc or "") for r in _scripts().walk_revisions()]
    return list(reversed(revs))


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
