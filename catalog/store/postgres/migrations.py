"""The schema of a catalog on PostgreSQL: the same Alembic history as SQLite's, run in one
transaction (PostgreSQL's DDL is transactional) under an advisory lock, so two programs
opening a new database at once never both create it."""

from __future__ import annotations

from catalog.store.schema import alembic_config

# pg_advisory_xact_lock keys: schema changes, and the one writer at a time (store.py).
MIGRATION_LOCK = 7_311_500_001


def sqlalchemy_url(url: str) -> str:
    """A libpq URL as SQLAlchemy names it with psycopg 3."""
    scheme, rest = url.split("://", 1)
    return f"postgresql+psycopg://{rest}"


def engine(url: str):
    from sqlalchemy import create_engine

    return create_engine(sqlalchemy_url(url), connect_args={"options": "-c timezone=UTC"})


def _run(url: str, action) -> None:
    config = alembic_config()
    made = engine(url)
    try:
        with made.connect() as conn:
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
            config.attributes["connection"] = conn
            config.attributes["scripts_only"] = True
            action(config)
            conn.commit()
    finally:
        made.dispose()


def upgrade(url: str, revision: str = "head") -> None:
    from alembic import command

    _run(url, lambda config: command.upgrade(config, revision))


def downgrade(url: str, revision: str) -> None:
    from alembic import command

    _run(url, lambda config: command.downgrade(config, revision))
