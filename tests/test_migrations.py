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
        _revision_0019_computes_the_same_vectors_by_trigger(url)
        _revision_0020_tags_papers_once_with_the_same_vectors(url)
        _revision_0021_keeps_rows_whole_and_the_same_words(url)
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


_VECTORS_ANEW = ("SELECT id, catalog_vector('catalog_words', user_title, title, headline, tags_text, authors,"
                 " notes_text, abstract_text, search_extra)::text, catalog_vector('catalog_stems', user_title, title,"
                 " headline, tags_text, authors, notes_text, abstract_text, search_extra)::text FROM paper ORDER BY id")


def _revision_0019_computes_the_same_vectors_by_trigger(url):
    """At 0019 the vectors are plain columns a trigger fills: the stored ones are kept, and
    every insert and edit (a title, a tag, a note, a vector written by hand) leaves each paper
    the vectors 0009's catalog_vector() computes; the downgrade makes them generated again,
    the same vectors, and searches find the same papers."""
    import psycopg

    from catalog.store.postgres import migrations as pg

    query = "SELECT id, search_vector::text, stem_vector::text FROM paper ORDER BY id"
    pg.downgrade(url, "0018")
    with psycopg.connect(url) as conn:
        before = conn.execute(query).fetchall()
        assert conn.execute("SELECT count(*) FROM pg_attribute WHERE attrelid = 'paper'::regclass"
                            " AND attgenerated = 's'").fetchone()[0] == 2
    pg.upgrade(url)
    with psycopg.connect(url) as conn:
        assert conn.execute(query).fetchall() == before
        assert conn.execute("SELECT count(*) FROM pg_attribute WHERE attrelid = 'paper'::regclass"
                            " AND attgenerated = 's'").fetchone()[0] == 0
    catalog = Catalog.open(url)
    key = catalog.search("purify")[0].key
    catalog.set_title(key, "Naïve multi-agent purification, version 20.04")
    catalog.tag([key], ["clean-water"])
    catalog.add_note(key, "Café notes on H₂O")
    catalog.close()
    with psycopg.connect(url) as conn:
        conn.execute("UPDATE paper SET search_vector = 'junk', stem_vector = NULL")
        conn.execute("INSERT INTO paper (key, fingerprint, abstract, abstract_text, search_extra, headline, title,"
                     " added_at, updated_at) VALUES ('handmade', 'fp-handmade', 'A naïve abstract', 'A naïve abstract',"
                     " 'extra words', 'Headline', 'By hand', now(), now())")
        after = conn.execute(query).fetchall()
        assert after == conn.execute(_VECTORS_ANEW).fetchall() and after != before
        assert any("'purif'" in row[2] and "'cafe':" in row[1] for row in after)  # the title's, the note's
    pg.downgrade(url, "0018")
    with psycopg.connect(url) as conn:
        assert conn.execute(query).fetchall() == after
    pg.upgrade(url)
    catalog = Catalog.open(url)
    try:
        assert [p.key for p in catalog.search("purification")] == [key]
        assert [p.key for p in catalog.search("purified")] == [key]  # another form: the stems
    finally:
        catalog.close()


def _revision_0020_tags_papers_once_with_the_same_vectors(url):
    """0020's statement triggers on `paper_tag` leave each paper the tags text and vectors
    0009's row trigger did: the same tag rows added (two to every paper, one statement),
    changed and removed at 0019 and at 0020 give the same stored rows, the vectors catalog_vector()
    computes; upgrading and downgrading change no paper, and the downgrade puts the row
    trigger back."""
    import psycopg

    from catalog.store.postgres import migrations as pg

    query = "SELECT id, tags_text, search_vector::text, stem_vector::text FROM paper ORDER BY id"
    anew = ("SELECT id, tags_text, catalog_vector('catalog_words', user_title, title, headline, tags_text, authors,"
            " notes_text, abstract_text, search_extra)::text, catalog_vector('catalog_stems', user_title, title,"
            " headline, tags_text, authors, notes_text, abstract_text, search_extra)::text FROM paper ORDER BY id")
    triggers = ("SELECT tgname FROM pg_trigger WHERE tgrelid = 'paper_tag'::regclass AND NOT tgisinternal"
                " AND tgname NOT LIKE '%notify' ORDER BY 1")  # not the NOTIFY of 0009
    tagged = {}
    with psycopg.connect(url) as conn:
        start = conn.execute(query).fetchall()
    for revision in ("0019", "0020"):
        if revision == "0019":
            pg.downgrade(url, revision)
        else:
            pg.upgrade(url)
        with psycopg.connect(url) as conn:
            assert conn.execute(query).fetchall() == start, revision
            assert [r[0] for r in conn.execute(triggers)] == (
                ["paper_tag_changed"] if revision == "0019" else
                ["paper_tags_deleted", "paper_tags_inserted", "paper_tags_updated"])
            conn.execute("INSERT INTO tag(name) VALUES ('stair'), ('stair-sub'), ('landing')")
            conn.execute("INSERT INTO paper_tag(paper_id, tag_id) SELECT p.id, t.id FROM paper p, tag t"
                         " WHERE t.name IN ('stair', 'stair-sub')")
            conn.execute("UPDATE paper_tag SET tag_id = (SELECT id FROM tag WHERE name = 'landing')"
                         " WHERE tag_id = (SELECT id FROM tag WHERE name = 'stair-sub') AND paper_id % 2 = 0")
            tagged[revision] = conn.execute(query).fetchall()
            assert tagged[revision] == conn.execute(anew).fetchall()
            assert all("stair" in row[1] and "'stair'" in row[2] for row in tagged[revision])
            assert any("landing" in row[1] for row in tagged[revision])
        with psycopg.connect(url) as conn:
            conn.execute("DELETE FROM paper_tag WHERE tag_id IN (SELECT id FROM tag WHERE name IN ('stair', 'stair-sub',"
                         " 'landing'))")
            conn.execute("DELETE FROM tag WHERE name IN ('stair', 'stair-sub', 'landing')")
            assert conn.execute(query).fetchall() == start
    assert tagged["0019"] == tagged["0020"] != start


def _revision_0021_keeps_rows_whole_and_the_same_words(url):
    """At 0021 a paper of a long abstract is written whole into its row (at 0020 its abstracts
    went to the TOAST table), with the vectors catalog_vector() computes; catalog_words() gives
    the same text for every kind of digit and punctuation, ASCII or not; the downgrade puts
    both back."""
    import psycopg

    from catalog.store.postgres import migrations as pg

    long_text = "We rank sparse attention heads, 20.04 of them (x2) per layer; " * 40  # 2.6 KB, ASCII
    in_toast = "SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'paper'"
    words_of = [*WORDS, long_text, long_text + " H₂O"]
    found = {}
    for revision in ("0020", "0021", "0020"):
        if revision == "0021":
            pg.upgrade(url)
        else:
            pg.downgrade(url, revision)
        with psycopg.connect(url) as conn:
            toast = conn.execute(in_toast).fetchone()[0]
            before = conn.execute(f"SELECT count(*) FROM {toast}").fetchone()[0]
            conn.execute("INSERT INTO paper(key, fingerprint, abstract, abstract_text, search_extra, headline,"
                         " tags_text, notes_text, added_at, updated_at) VALUES (%s, %s, %s, %s, '', 'Heads', '', '',"
                         " now(), now())", (f"long-{len(found)}", f"fp-long-{len(found)}", long_text, long_text))
            chunks = conn.execute(f"SELECT count(*) FROM {toast}").fetchone()[0] - before
            assert (chunks == 0) == (revision == "0021"), (revision, chunks)
            assert conn.execute(_VECTORS_ANEW).fetchall() == conn.execute(
                "SELECT id, search_vector::text, stem_vector::text FROM paper ORDER BY id").fetchall()
            found.setdefault(revision, []).append(
                [conn.execute("SELECT catalog_words(%s)", (w,)).fetchone()[0] for w in words_of]
                + [conn.execute("SELECT catalog_words(NULL)").fetchone()[0]])
            conn.execute("DELETE FROM paper WHERE key LIKE 'long-%'")
    assert found["0020"][0] == found["0021"][0] == found["0020"][1]
    assert "H2O" in found["0021"][0][-2] and found["0021"][0][-1] == ""
    pg.upgrade(url)
