"""Alembic environment: run by `catalog db upgrade` (and on first use) or by `alembic` by hand."""

from __future__ import annotations

import os

from alembic import context

from catalog.store.sqlite.fts import is_hand_made_table

config = context.config


def target_metadata():
    """The models, for autogenerate and `alembic check`. Upgrades and downgrades run the
    scripts alone (catalog/store/sqlite/migrations.py says so), and skip importing SQLModel (~0.1 s)."""
    if config.attributes.get("scripts_only"):
        return None
    from sqlmodel import SQLModel

    import catalog.models  # noqa: F401  (registers the tables on SQLModel.metadata)

    return SQLModel.metadata


# PostgreSQL's full-text search is made by hand (0009), as SQLite's FTS5 tables are.
HAND_MADE_ON_POSTGRESQL = {("column", "search_vector"), ("index", "ix_paper_search"),
                           ("column", "stem_vector"), ("index", "ix_paper_stems"),
                           ("index", "ix_paper_listing"),
                           ("column", "text_vector"), ("index", "ix_attachment_page_text")}
# PostgreSQL's ranked lists (0011), derived data the models do not describe.
RANK_TOP_TABLES = {"rank_top", "rank_top_state", "rank_top_change"}


def include_name(name, type_, parent_names):
    # FTS5 tables, their shadow tables and the views are created by hand; autogenerate
    # cannot see them and would otherwise propose dropping them.
    if type_ == "table":
        return not is_hand_made_table(name) and name not in RANK_TOP_TABLES
    return (type_, name) not in HAND_MADE_ON_POSTGRESQL


def compare_type(context, inspected_column, metadata_column, inspected_type, metadata_type):
    """Timestamps are stored as plain TIMESTAMP; the models read them as UTC (a decorator)."""
    from sqlalchemy import DateTime, TypeDecorator

    if isinstance(metadata_type, TypeDecorator) and isinstance(metadata_type.impl, DateTime):
        return not isinstance(inspected_type, DateTime)
    return None  # the default comparison


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata(),
        include_name=include_name,
        render_as_batch=True,  # SQLite alters tables by copying them
        compare_type=compare_type,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    url = context.get_x_argument(as_dictionary=True).get("db") or os.environ.get("CATALOG_DB")
    if not url:
        raise SystemExit("Set CATALOG_DB or pass -x db=PATH to say which catalog to migrate.")
    from catalog.store.sqlite.migrations import sqlalchemy_engine

    with sqlalchemy_engine(url).connect() as conn:
        _run(conn)
