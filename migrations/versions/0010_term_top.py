"""top-k lists: the best papers of each frequent word and prefix, in ranking order (issue 16)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 05:30:00

`term_top` holds, for each word or prefix in many papers, the first papers of its full bm25
ranking on paper_fts (position, paper id, score); `term_top_state` one row a list: the FTS5
structure record it was ranked on (a stamp: any write to the index changes it, and a stale list
is never read), the column weights, how many papers it lists and how many match. Both start
empty; the next import (or `catalog doctor --fix`) builds them (catalog/store/sqlite/topk.py).
Derived data only: downgrading drops them. No user data is touched. SQLite only (the lists
rank FTS5's bm25); on PostgreSQL this revision changes nothing.

Edits and small imports do not make the lists useless: `term_top_dirty` holds the papers whose
indexed text changed since the lists were last all rebuilt (filled by the triggers below and by
the bulk import), `term_top_was` their text as it was then (an FTS5 table of its own: counting
which of them matched a word), `term_top_now` their text now (and `term_top_now_words`, its
word instances: a paper's term frequency). A search rescores a list's papers and these under
the current statistics and proves the page with a bound (topk.py). Past DIRTY_LIMIT papers the
triggers stop (the lists are rebuilt instead). Self-contained: the column list is frozen here.
"""
from typing import Sequence, Union

from alembic import op


revision: str = "0010"
down_revision: Union[str, None] = "0009"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

FTS_COLUMNS = "user_title, title, headline, abstract_text, authors, tags_text, notes_text, search_extra"
NEW_VALUES = ", ".join(f"new.{c.strip()}" for c in FTS_COLUMNS.split(","))
OLD_VALUES = ", ".join(f"old.{c.strip()}" for c in FTS_COLUMNS.split(","))
DIRTY_LIMIT = 2000  # topk.DIRTY_LIMIT: beyond it the lists are rebuilt, not rescored
# Only while lists exist and the dirty set is small (counting at most DIRTY_LIMIT + 1 rows).
TRACKING = (f"EXISTS (SELECT 1 FROM term_top) AND (SELECT count(*) FROM (SELECT 1 FROM term_top_dirty"
            f" LIMIT {DIRTY_LIMIT + 1})) <= {DIRTY_LIMIT}")
# The text as it was when the lists were built: only the first change since then keeps it.
WAS = ("INSERT INTO term_top_was(rowid, {cols}) SELECT old.id, {old}"
       " WHERE NOT EXISTS (SELECT 1 FROM term_top_dirty WHERE paper_id = old.id);")
TRIGGERS = {
    # Dropped during bulk loads like paper_fts_insert (store.py's bulk_load: fts.INSERT_TRIGGERS);
    # the bulk import marks its new papers itself (index_papers_from).
    "term_top_paper_insert": f"""CREATE TRIGGER term_top_paper_insert AFTER INSERT ON paper
        WHEN {TRACKING} BEGIN
        INSERT OR IGNORE INTO term_top_dirty(paper_id) VALUES (new.id);
        DELETE FROM term_top_now WHERE rowid = new.id;
        INSERT INTO term_top_now(rowid, {FTS_COLUMNS}) VALUES (new.id, {NEW_VALUES});
    END""",
    "term_top_paper_update": f"""CREATE TRIGGER term_top_paper_update AFTER UPDATE OF id, {FTS_COLUMNS} ON paper
        WHEN {TRACKING} BEGIN
        {WAS.format(cols=FTS_COLUMNS, old=OLD_VALUES)}
        INSERT OR IGNORE INTO term_top_dirty(paper_id) VALUES (old.id);
        INSERT OR IGNORE INTO term_top_dirty(paper_id) VALUES (new.id);
        DELETE FROM term_top_now WHERE rowid IN (old.id, new.id);
        INSERT INTO term_top_now(rowid, {FTS_COLUMNS}) VALUES (new.id, {NEW_VALUES});
    END""",
    "term_top_paper_delete": f"""CREATE TRIGGER term_top_paper_delete AFTER DELETE ON paper
        WHEN {TRACKING} BEGIN
        {WAS.format(cols=FTS_COLUMNS, old=OLD_VALUES)}
        INSERT OR IGNORE INTO term_top_dirty(paper_id) VALUES (old.id);
        DELETE FROM term_top_now WHERE rowid = old.id;
    END""",
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":  # the lists rank FTS5's bm25: SQLite only
        return
    op.execute("""CREATE TABLE IF NOT EXISTS term_top (
        term TEXT NOT NULL,
        position INTEGER NOT NULL,
        paper_id INTEGER NOT NULL,
        score REAL NOT NULL,
        freq REAL,
        length INTEGER,
        PRIMARY KEY (term, position)
    ) WITHOUT ROWID""")
    op.execute("""CREATE TABLE IF NOT EXISTS term_top_state (
        term TEXT NOT NULL PRIMARY KEY,
        stamp BLOB,
        weights TEXT NOT NULL,
        listed INTEGER NOT NULL,
        matches INTEGER NOT NULL,
        papers INTEGER,
        tokens INTEGER,
        base INTEGER
    )""")
    op.execute("CREATE TABLE IF NOT EXISTS term_top_dirty (paper_id INTEGER NOT NULL PRIMARY KEY)")
    for name in ("term_top_was", "term_top_now"):
        op.execute(f"""CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING fts5({FTS_COLUMNS},
            tokenize="unicode61 remove_diacritics 2")""")
    op.execute("CREATE VIRTUAL TABLE IF NOT EXISTS term_top_now_words USING fts5vocab(term_top_now, 'instance')")
    for name, sql in TRIGGERS.items():
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute(sql)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for name in TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    for name in ("term_top_now_words", "term_top_now", "term_top_was", "term_top_dirty"):
        op.execute(f"DROP TABLE IF EXISTS {name}")
    op.execute("DROP TABLE IF EXISTS term_top_state")
    op.execute("DROP TABLE IF EXISTS term_top")
