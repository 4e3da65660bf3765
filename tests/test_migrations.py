"""Migrations: a stairway up and down from empty, no drift between models and migrations."""

from __future__ import annotations

import sqlite3

import pytest
from alembic import command
from alembic.script import ScriptDirectory

from catalog.errors import CatalogError
from catalog.store.sqlite import migrations as migrate
from catalog.library import Catalog
from tests.conftest import SEEDS


def revisions() -> list[str]:
    return [rev for rev, _, _ in migrate.history()]


def test_program_knows_the_newest_migration():
    assert migrate.SCHEMA_REVISION == migrate.head_revision()


def test_stairway_upgrade_downgrade_upgrade(tmp_path):
    path = tmp_path / "stairs.db"
    previous = "base"
    for revision in revisions():
        migrate.upgrade(path, revision)
        migrate.downgrade(path, previous)
        migrate.upgrade(path, revision)
        assert migrate.current(path) == revision
        previous = revision
    migrate.downgrade(path, "base")
    with sqlite3.connect(tmp_path / "stairs.db") as conn:
        left = conn.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name != 'alembic_version'").fetchall()
    assert left == []


def test_models_and_migrations_agree(tmp_path):
    path = tmp_path / "check.db"
    migrate.upgrade(path)
    config = migrate.alembic_config()
    with migrate.sqlalchemy_engine(path).connect() as conn:
        config.attributes["connection"] = conn
        command.check(config)  # raises when autogenerate would change anything


def test_a_database_from_a_newer_catalog_is_refused(tmp_path):
    path = tmp_path / "future.db"
    Catalog.open(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = 'ffff_from_the_future'")
    with pytest.raises(CatalogError, match="newer version of catalog"):
        Catalog.open(path)


def test_not_a_database_is_refused(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    with pytest.raises(CatalogError, match="not a catalog database"):
        Catalog.open(path)
    assert path.read_text() == "hello"


def test_the_checkout_finds_migrations():
    assert (migrate.alembic_config().get_main_option("script_location"))
    assert ScriptDirectory.from_config(migrate.alembic_config()).get_current_head()
    assert SEEDS.is_dir()


def test_on_postgresql_the_stairway_holds_and_models_agree(pg_server):
    """The same history on a real server: up, down to nothing, up again; then no drift."""
    import psycopg

    from catalog.store.postgres import migrations as pg

    url = pg_server.create()
    try:
        pg.upgrade(url)
        pg.downgrade(url, "base")
        with psycopg.connect(url) as conn:
            left = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                                " AND tablename != 'alembic_version'").fetchall()
        assert left == []
        pg.upgrade(url)
        config = migrate.alembic_config()
        engine = pg.engine(url)
        with engine.connect() as conn:
            config.attributes["connection"] = conn
            command.check(config)
        engine.dispose()
    finally:
        pg_server.drop(url)
