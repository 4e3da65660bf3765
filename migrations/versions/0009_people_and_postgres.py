"""people on a shared catalog: reading status and rating per person, notes signed; PostgreSQL

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 00:00:00

A catalog can be shared (on PostgreSQL): papers, tags, notes and saved searches are everyone's,
reading status and rating are each person's own. They move from `paper.status` and
`paper.rating` to `paper_reader` (paper_id, reader, status, rating, updated_at), one row per
person and paper they marked; no row reads as unread and unrated. `note.author` says who wrote
each note. `catalog_setting` holds facts about the catalog: `owner`, the person whose
catalog it was before it was shared (CATALOG_USER, else the login name, when this ran):
existing statuses, ratings and notes are theirs, the SQLite views show their status, and a
SQLite catalog takes you for them when CATALOG_USER is not set.

SQLite: `paper` is rebuilt without the two columns (batch mode, with foreign keys off as the
migration runner keeps them): its triggers are dropped with it and created again, the views
are created again reading the owner's row; the FTS index is untouched (ids are kept).

PostgreSQL: no catalog existed before this revision, so the full-text search and the triggers
that revisions 0001 and 0006 made for SQLite are made here, PostgreSQL's way:
`paper.search_vector` (a stored generated tsvector with weights: titles A, tags B, authors and
notes C, abstract and search_extra D; ASCII punctuation splits words as FTS5's unicode61
does; accents folded by `unaccent`), a GIN index on it, the triggers that copy tags and notes
onto the paper row, the re-derive trigger, statement triggers that NOTIFY `catalog_changed`
(so open TUIs notice other people's changes), and the views, which show the status of
`catalog_user()`: the `catalog.user` setting (the program sets it), else the database role.
"""
import getpass
import os
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = "0009"
down_revision: Union[str, None] = "0008"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

STATUSES = "('unread', 'queued', 'reading', 'read', 'skipped')"
# Frozen copies of the SQLite objects paper's rebuild drops (0001, 0002, 0006, 0008).
FTS_COLUMNS = "user_title, title, headline, abstract_text, authors, tags_text, notes_text, search_extra"
NEW_VALUES = ", ".join(f"new.{c.strip()}" for c in FTS_COLUMNS.split(","))
OLD_VALUES = ", ".join(f"old.{c.strip()}" for c in FTS_COLUMNS.split(","))
SQLITE_TRIGGERS = [
    f"""CREATE TRIGGER paper_fts_insert AFTER INSERT ON paper BEGIN
        INSERT INTO paper_fts(rowid, {FTS_COLUMNS}) VALUES (new.id, {NEW_VALUES});
    END""",
    f"""CREATE TRIGGER paper_fts_delete AFTER DELETE ON paper BEGIN
        INSERT INTO paper_fts(paper_fts, rowid, {FTS_COLUMNS}) VALUES ('delete', old.id, {OLD_VALUES});
    END""",
    f"""CREATE TRIGGER paper_fts_update AFTER UPDATE OF id, {FTS_COLUMNS} ON paper BEGIN
        INSERT INTO paper_fts(paper_fts, rowid, {FTS_COLUMNS}) VALUES ('delete', old.id, {OLD_VALUES});
        INSERT INTO paper_fts(rowid, {FTS_COLUMNS}) VALUES (new.id, {NEW_VALUES});
    END""",
    f"""CREATE TRIGGER paper_stem_insert AFTER INSERT ON paper BEGIN
        INSERT INTO paper_stem(rowid, {FTS_COLUMNS}) VALUES (new.id, {NEW_VALUES});
    END""",
    f"""CREATE TRIGGER paper_stem_delete AFTER DELETE ON paper BEGIN
        INSERT INTO paper_stem(paper_stem, rowid, {FTS_COLUMNS}) VALUES ('delete', old.id, {OLD_VALUES});
    END""",
    f"""CREATE TRIGGER paper_stem_update AFTER UPDATE OF id, {FTS_COLUMNS} ON paper BEGIN
        INSERT INTO paper_stem(paper_stem, rowid, {FTS_COLUMNS}) VALUES ('delete', old.id, {OLD_VALUES});
        INSERT INTO paper_stem(rowid, {FTS_COLUMNS}) VALUES (new.id, {NEW_VALUES});
    END""",
    """CREATE TRIGGER paper_abstract_edited AFTER UPDATE OF abstract ON paper
        WHEN new.abstract IS NOT old.abstract AND new.abstract_text IS old.abstract_text BEGIN
        INSERT OR IGNORE INTO paper_rederive(paper_id) VALUES (new.id);
    END""",
]
TITLE = "coalesce(p.user_title, p.title, p.headline)"


def _views(reader: str) -> list[str]:
    """The views for SQL users; `reader`: whose status and rating `papers` shows."""
    return [
        f"""CREATE VIEW papers AS
        SELECT p.key, {TITLE} AS title, p.venue, p.year,
               coalesce(r.status, 'unread') AS status, r.rating, replace(p.tags_text, ' ', ', ') AS tags,
               (SELECT count(*) FROM note n WHERE n.paper_id = p.id) AS notes,
               p.authors, p.doi, p.arxiv_id, p.url, p.abstract, p.added_at, p.id AS paper_id
        FROM paper p LEFT JOIN paper_reader r ON r.paper_id = p.id AND r.reader = {reader}""",
        f"""CREATE VIEW paper_tags AS
        SELECT p.key, t.name AS tag, {TITLE} AS title
        FROM paper_tag pt JOIN paper p ON p.id = pt.paper_id JOIN tag t ON t.id = pt.tag_id""",
        f"""CREATE VIEW paper_notes AS
        SELECT p.key, {TITLE} AS title, n.body AS note, n.author,
               n.created_at, n.updated_at
        FROM note n JOIN paper p ON p.id = n.paper_id""",
    ]


OLD_VIEWS = [  # 0001's, for the downgrade
    """CREATE VIEW papers AS
        SELECT p.key, coalesce(p.user_title, p.title, p.headline) AS title, p.venue, p.year,
               p.status, p.rating, replace(p.tags_text, ' ', ', ') AS tags,
               (SELECT count(*) FROM note n WHERE n.paper_id = p.id) AS notes,
               p.authors, p.doi, p.arxiv_id, p.url, p.abstract, p.added_at, p.id AS paper_id
        FROM paper p""",
    """CREATE VIEW paper_tags AS
        SELECT p.key, t.name AS tag, coalesce(p.user_title, p.title, p.headline) AS title
        FROM paper_tag pt JOIN paper p ON p.id = pt.paper_id JOIN tag t ON t.id = pt.tag_id""",
    """CREATE VIEW paper_notes AS
        SELECT p.key, coalesce(p.user_title, p.title, p.headline) AS title, n.body AS note,
               n.created_at, n.updated_at
        FROM note n JOIN paper p ON p.id = n.paper_id""",
]

# --- PostgreSQL ---------------------------------------------------------------------------------

NOTIFIED = ("paper", "paper_tag", "tag", "note", "paper_reader", "saved_search", "source", "provenance")
POSTGRES = [
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    # `simple` (no stemming, no stop words, lower case) after unaccent, as unicode61 with
    # remove_diacritics folds accents.
    "CREATE TEXT SEARCH CONFIGURATION catalog_words (COPY = simple)",
    """ALTER TEXT SEARCH CONFIGURATION catalog_words ALTER MAPPING FOR
        asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword, numhword, hword_numpart
        WITH unaccent, simple""",
    # Word forms (as 0008's paper_stem): the same words through the Porter stemmer FTS5's
    # `porter` tokenizer uses (Snowball's "porter"), without stop words.
    "CREATE TEXT SEARCH DICTIONARY catalog_porter (TEMPLATE = snowball, Language = porter)",
    "CREATE TEXT SEARCH CONFIGURATION catalog_stems (COPY = simple)",
    """ALTER TEXT SEARCH CONFIGURATION catalog_stems ALTER MAPPING FOR
        asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword, numhword, hword_numpart
        WITH unaccent, catalog_porter""",
    # ASCII punctuation separates words, as in FTS5's unicode61: `multi-agent` is two words,
    # `20.04` too (PostgreSQL's parser would keep them, and URLs and paths, whole); super- and
    # subscript digits are digits of the word (unicode61 keeps `C²R` one word).
    r"""CREATE FUNCTION catalog_words(value text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT regexp_replace(translate(coalesce(value, ''), '⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉',
            '01234567890123456789'), '[!-/:-@\[-`{-~]+', ' ', 'g') $$""",
    """CREATE FUNCTION catalog_vector(config regconfig, user_title text, title text, headline text,
            tags text, authors text, notes text, abstract text, extra text) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT
            setweight(to_tsvector(config, catalog_words(user_title)), 'A')
            || setweight(to_tsvector(config, catalog_words(title)), 'A')
            || setweight(to_tsvector(config, catalog_words(headline)), 'A')
            || setweight(to_tsvector(config, catalog_words(tags)), 'B')
            || setweight(to_tsvector(config, catalog_words(authors)), 'C')
            || setweight(to_tsvector(config, catalog_words(notes)), 'C')
            || setweight(to_tsvector(config, catalog_words(abstract)), 'D')
            || setweight(to_tsvector(config, catalog_words(extra)), 'D') $$""",
    """ALTER TABLE paper ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (catalog_vector('catalog_words',
        user_title, title, headline, tags_text, authors, notes_text, abstract_text, search_extra)) STORED""",
    "CREATE INDEX ix_paper_search ON paper USING gin (search_vector)",
    """ALTER TABLE paper ADD COLUMN stem_vector tsvector GENERATED ALWAYS AS (catalog_vector('catalog_stems',
        user_title, title, headline, tags_text, authors, notes_text, abstract_text, search_extra)) STORED""",
    "CREATE INDEX ix_paper_stems ON paper USING gin (stem_vector)",
    # Kept in the row (compressed), not in the TOAST table: ranking reads the vector of every
    # match, and a TOAST fetch per paper made that 3-5x slower at 100k papers.
    "ALTER TABLE paper ALTER COLUMN search_vector SET STORAGE MAIN, ALTER COLUMN stem_vector SET STORAGE MAIN",
    # Listings run newest year first with papers without a year last (as SQLite orders NULLs):
    # this index hands rows over in that order, so LIMIT stops early.
    "CREATE INDEX ix_paper_listing ON paper (year DESC NULLS LAST, id DESC)",
    # Tags and notes copied onto the paper row, so the vector covers them (as SQLite's triggers).
    """CREATE FUNCTION catalog_tags_text(pid integer) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT coalesce(string_agg(t.name::text, ' ' ORDER BY t.name), '')
        FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.paper_id = pid $$""",
    """CREATE FUNCTION catalog_notes_text(pid integer) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT coalesce(string_agg(body, E'\\n' ORDER BY created_at, id), '')
        FROM note WHERE paper_id = pid $$""",
    """CREATE FUNCTION catalog_paper_tag_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            UPDATE paper SET tags_text = catalog_tags_text(OLD.paper_id) WHERE id = OLD.paper_id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            UPDATE paper SET tags_text = catalog_tags_text(NEW.paper_id) WHERE id = NEW.paper_id;
        END IF;
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER paper_tag_changed AFTER INSERT OR UPDATE OR DELETE ON paper_tag
        FOR EACH ROW EXECUTE FUNCTION catalog_paper_tag_changed()""",
    """CREATE FUNCTION catalog_tag_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE paper SET tags_text = catalog_tags_text(paper.id)
        WHERE id IN (SELECT paper_id FROM paper_tag WHERE tag_id = NEW.id);
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER tag_rename AFTER UPDATE OF name ON tag
        FOR EACH ROW EXECUTE FUNCTION catalog_tag_renamed()""",
    """CREATE FUNCTION catalog_note_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            UPDATE paper SET notes_text = catalog_notes_text(OLD.paper_id) WHERE id = OLD.paper_id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            UPDATE paper SET notes_text = catalog_notes_text(NEW.paper_id) WHERE id = NEW.paper_id;
        END IF;
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER note_changed AFTER INSERT OR UPDATE OR DELETE ON note
        FOR EACH ROW EXECUTE FUNCTION catalog_note_changed()""",
    # A hand edit of `abstract` (psql) queues the paper for deriving its text again (0006).
    """CREATE FUNCTION catalog_abstract_edited() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NEW.abstract IS DISTINCT FROM OLD.abstract
           AND NEW.abstract_text IS NOT DISTINCT FROM OLD.abstract_text THEN
            INSERT INTO paper_rederive(paper_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
        END IF;
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER paper_abstract_edited AFTER UPDATE OF abstract ON paper
        FOR EACH ROW EXECUTE FUNCTION catalog_abstract_edited()""",
    # Changes are announced at COMMIT (one notification per table and transaction).
    """CREATE FUNCTION catalog_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_notify('catalog_changed', TG_TABLE_NAME);
        RETURN NULL;
    END $$""",
    *(f"""CREATE TRIGGER {table}_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table}
        FOR EACH STATEMENT EXECUTE FUNCTION catalog_notify()""" for table in NOTIFIED),
    """CREATE FUNCTION catalog_user() RETURNS text LANGUAGE sql STABLE AS $$
        SELECT coalesce(nullif(current_setting('catalog.user', true), ''), session_user::text) $$""",
    *_views("catalog_user()"),
]
POSTGRES_DROP = [
    "DROP VIEW IF EXISTS papers", "DROP VIEW IF EXISTS paper_tags", "DROP VIEW IF EXISTS paper_notes",
    "DROP FUNCTION IF EXISTS catalog_user()",
    *(f"DROP TRIGGER IF EXISTS {table}_notify ON {table}" for table in NOTIFIED),
    "DROP FUNCTION IF EXISTS catalog_notify()",
    "DROP TRIGGER IF EXISTS paper_abstract_edited ON paper",
    "DROP FUNCTION IF EXISTS catalog_abstract_edited()",
    "DROP TRIGGER IF EXISTS note_changed ON note", "DROP FUNCTION IF EXISTS catalog_note_changed()",
    "DROP TRIGGER IF EXISTS tag_rename ON tag", "DROP FUNCTION IF EXISTS catalog_tag_renamed()",
    "DROP TRIGGER IF EXISTS paper_tag_changed ON paper_tag",
    "DROP FUNCTION IF EXISTS catalog_paper_tag_changed()",
    "DROP FUNCTION IF EXISTS catalog_notes_text(integer)", "DROP FUNCTION IF EXISTS catalog_tags_text(integer)",
    "DROP INDEX IF EXISTS ix_paper_search",
    "DROP INDEX IF EXISTS ix_paper_listing",
    "DROP INDEX IF EXISTS ix_paper_stems",
    "ALTER TABLE paper DROP COLUMN IF EXISTS search_vector",
    "ALTER TABLE paper DROP COLUMN IF EXISTS stem_vector",
    "DROP FUNCTION IF EXISTS catalog_vector(regconfig, text, text, text, text, text, text, text, text)",
    "DROP FUNCTION IF EXISTS catalog_words(text)",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS catalog_words",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS catalog_stems",
    "DROP TEXT SEARCH DICTIONARY IF EXISTS catalog_porter",
]


def _owner() -> str:
    """Whose catalog this was: CATALOG_USER, else the login name."""
    name = " ".join((os.environ.get("CATALOG_USER") or "").split())
    if not name:
        try:
            name = getpass.getuser()
        except Exception:  # no login name (a container without a passwd entry)
            name = "me"
    return name


def upgrade() -> None:
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    owner = _owner()
    op.create_table(
        "catalog_setting",
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("value", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    bind.execute(sa.text("INSERT INTO catalog_setting(name, value) VALUES ('owner', :owner)"), {"owner": owner})
    op.create_table(
        "paper_reader",
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("reader", sa.String(), nullable=False),
        sa.Column("status", sa.String(), server_default="unread", nullable=False),
        sa.Column("rating", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint(f"status IN {STATUSES}", name="ck_paper_reader_status"),
        sa.CheckConstraint("rating IS NULL OR rating BETWEEN 1 AND 5", name="ck_paper_reader_rating"),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("paper_id", "reader"),
    )
    op.create_index("ix_paper_reader_status", "paper_reader", ["reader", "status"])
    op.create_index("ix_paper_reader_rating", "paper_reader", ["reader", "rating"])
    bind.execute(sa.text(
        "INSERT INTO paper_reader(paper_id, reader, status, rating, updated_at)"
        " SELECT id, :owner, status, rating, updated_at FROM paper"
        " WHERE status != 'unread' OR rating IS NOT NULL"), {"owner": owner})
    op.add_column("note", sa.Column("author", sa.String(), server_default="", nullable=False))
    bind.execute(sa.text("UPDATE note SET author = :owner"), {"owner": owner})

    for name in ("papers", "paper_tags", "paper_notes"):
        op.execute(f"DROP VIEW IF EXISTS {name}")
    op.drop_index("ix_paper_status_year", table_name="paper")
    op.drop_index("ix_paper_rating", table_name="paper")
    if sqlite:
        _rebuild_paper(lambda batch: (
            batch.drop_constraint("ck_paper_status", type_="check"),
            batch.drop_constraint("ck_paper_rating", type_="check"),
            batch.drop_column("status"),
            batch.drop_column("rating"),
        ))
        for statement in _views("(SELECT value FROM catalog_setting WHERE name = 'owner')"):
            op.execute(statement)
    else:
        op.drop_constraint("ck_paper_status", "paper", type_="check")
        op.drop_constraint("ck_paper_rating", "paper", type_="check")
        op.drop_column("paper", "status")
        op.drop_column("paper", "rating")
        for statement in POSTGRES:
            op.execute(statement)


def _rebuild_paper(change) -> None:
    """SQLite: rebuild `paper` (batch mode) and give it back what the copy loses: its
    triggers, and the partial indexes with their WHERE clauses."""
    for name in ("paper_fts_insert", "paper_fts_delete", "paper_fts_update", "paper_stem_insert",
                 "paper_stem_delete", "paper_stem_update", "paper_abstract_edited"):
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    partial = ("doi", "arxiv_id", "user_title")
    for column in partial:
        op.execute(f"DROP INDEX IF EXISTS ix_paper_{column}")
    # Renaming the copy back to `paper` would make SQLite re-check every trigger on other
    # tables that names `paper` (tags, notes) while `paper` is missing; the legacy rename
    # leaves them alone, and they find the new table by name.
    op.execute("PRAGMA legacy_alter_table = ON")
    # Reflection loses `COLLATE NOCASE` (venue:icml must still find ICML): say it again.
    with op.batch_alter_table("paper", recreate="always",
                              reflect_args=[sa.Column("venue", sa.String(collation="NOCASE"))]) as batch:
        change(batch)
    op.execute("PRAGMA legacy_alter_table = OFF")
    for column in partial:
        op.execute(f"CREATE INDEX ix_paper_{column} ON paper ({column}) WHERE {column} IS NOT NULL")
    for statement in SQLITE_TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    if sqlite:
        for name in ("papers", "paper_tags", "paper_notes"):
            op.execute(f"DROP VIEW IF EXISTS {name}")
        _rebuild_paper(lambda batch: (
            batch.add_column(sa.Column("status", sa.String(), server_default="unread", nullable=False)),
            batch.add_column(sa.Column("rating", sa.Integer(), nullable=True)),
            batch.create_check_constraint("ck_paper_status", f"status IN {STATUSES}"),
            batch.create_check_constraint("ck_paper_rating", "rating IS NULL OR rating BETWEEN 1 AND 5"),
        ))
    else:
        for statement in POSTGRES_DROP:
            op.execute(statement)
        op.add_column("paper", sa.Column("status", sa.String(), server_default="unread", nullable=False))
        op.add_column("paper", sa.Column("rating", sa.Integer(), nullable=True))
        op.create_check_constraint("ck_paper_status", "paper", f"status IN {STATUSES}")
        op.create_check_constraint("ck_paper_rating", "paper", "rating IS NULL OR rating BETWEEN 1 AND 5")
    # The owner's status and rating go back onto the papers; other people's are dropped.
    bind.execute(sa.text(
        "UPDATE paper SET status = coalesce((SELECT r.status FROM paper_reader r WHERE r.paper_id = paper.id"
        " AND r.reader = (SELECT value FROM catalog_setting WHERE name = 'owner')), 'unread'),"
        " rating = (SELECT r.rating FROM paper_reader r WHERE r.paper_id = paper.id"
        " AND r.reader = (SELECT value FROM catalog_setting WHERE name = 'owner'))"))
    op.create_index("ix_paper_status_year", "paper", ["status", "year"],
                    sqlite_where=sa.text("status != 'unread'"))
    op.create_index("ix_paper_rating", "paper", ["rating"], sqlite_where=sa.text("rating IS NOT NULL"))
    op.execute("ALTER TABLE note DROP COLUMN author")  # not batch mode: that drops note's triggers
    op.drop_index("ix_paper_reader_rating", table_name="paper_reader")
    op.drop_index("ix_paper_reader_status", table_name="paper_reader")
    op.drop_table("paper_reader")
    op.drop_table("catalog_setting")
    if sqlite:
        for statement in OLD_VIEWS:
            op.execute(statement)
