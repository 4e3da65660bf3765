"""Migrations: a stairway up and down from empty, no drift between models and migrations."""

from __future__ import annotations

import sqlite3

import pytest
from alembic import command
from alembic.script import ScriptDirectory

from catalog.errors import CatalogError
from catalog.store import schema
from catalog.store.sqlite import migrations as migrate
from catalog.library import Catalog
from tests.conftest import SEEDS


def revisions() -> list[str]:
    return [rev for rev, _, _ in schema.history()]


def test_program_knows_the_newest_migration():
    assert schema.SCHEMA_REVISION == schema.head_revision()


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
    config = schema.alembic_config()
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
    assert (schema.alembic_config().get_main_option("script_location"))
    assert ScriptDirectory.from_config(schema.alembic_config()).get_current_head()
    assert SEEDS.is_dir()


def test_on_postgresql_the_stairway_holds_and_models_agree(pg_server, tmp_path):
    """The same history on a real server: up, down to nothing, up again; then no drift; then
    revision 0012 on that database with user data (one database for both: each costs seconds)."""
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
        config = schema.alembic_config()
        engine = pg.engine(url)
        with engine.connect() as conn:
            config.attributes["connection"] = conn
            command.check(config)
        engine.dispose()
        _revision_0012_keeps_vectors_words_and_user_data(url, tmp_path)
    finally:
        pg_server.drop(url)


# Text catalog_words() must turn into the same words before and after revision 0012.
WORDS = ["", "x⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉y", "C²R and MCR² with H₂O", "¹²³ ₉₈₇ a²²b",
         "naïve Café multi-agent 20.04 https://x.org/a_b", "日本語の論文 ²₂", "²", "₂"]


def _revision_0012_keeps_vectors_words_and_user_data(url, tmp_path):
    """A catalog at 0011 with user data: after 0012 catalog_words() gives the same text for
    every kind of digit and punctuation, the stored vectors are kept, vectors computed anew
    equal them, user data is kept and searches find the digits' words; the downgrade
    restores 0009's body."""
    import psycopg

    from catalog.store.postgres import migrations as pg

    papers = tmp_path / "ICML_2024.txt"
    papers.write_text("ICML 2024 Papers\n\nWe purify water with H₂O² filters and C²R nets.\n\n"
                      "A naïve café study of multi-agent MCR² coding rates, version 20.04.\n\n"
                      "Sparse attention for language models in x₁₂ dimensions.\n", encoding="utf-8")
    catalog = Catalog.open(url)
    assert not catalog.import_paths([papers]).errors
    key = catalog.search("purify")[0].key
    catalog.tag([key], ["water²"])
    catalog.add_note(key, "see H₂O-like x⁵ results")
    catalog.close()
    pg.downgrade(url, "0011")
    query = "SELECT id, search_vector::text, stem_vector::text FROM paper ORDER BY id"
    with psycopg.connect(url) as conn:
        assert "translate(" in conn.execute("SELECT prosrc FROM pg_proc WHERE proname = 'catalog_words'").fetchone()[0]
        words = [conn.execute("SELECT catalog_words(%s)", (w,)).fetchone()[0] for w in WORDS]
        words.append(conn.execute("SELECT catalog_words(NULL)").fetchone()[0])
        vectors = conn.execute(query).fetchall()
        user = conn.execute("SELECT (SELECT string_agg(tags_text || '|' || notes_text, ',' ORDER BY id) FROM paper),"
                            " (SELECT count(*) FROM note), (SELECT count(*) FROM paper_tag)").fetchone()
    assert words[1] == "x01234567890123456789y" and "MCR2" in words[2] and "H2O" in words[2]
    pg.upgrade(url)
    with psycopg.connect(url) as conn:
        assert "translate(" not in conn.execute("SELECT prosrc FROM pg_proc WHERE proname = 'catalog_words'").fetchone()[0]
        assert [conn.execute("SELECT catalog_words(%s)", (w,)).fetchone()[0] for w in WORDS] == words[:-1]
        assert conn.execute("SELECT catalog_words(NULL)").fetchone()[0] == words[-1]
        assert conn.execute(query).fetchall() == vectors
        conn.execute("UPDATE paper SET title = coalesce(title, '')")  # every vector computed anew
        conn.execute("UPDATE paper SET title = NULL WHERE title = ''")
        assert conn.execute(query).fetchall() == vectors
        assert conn.execute("SELECT (SELECT string_agg(tags_text || '|' || notes_text, ',' ORDER BY id) FROM paper),"
                            " (SELECT count(*) FROM note), (SELECT count(*) FROM paper_tag)").fetchone() == user
    catalog = Catalog.open(url)
    try:
        for query_text, expected in (("mcr2", 1), ("h2o", 1), ("x5", 1), ("x12", 1), ("water2", 1), ("water", 1)):
            assert len(catalog.search(query_text)) == expected, query_text
    finally:
        catalog.close()
