"""word forms: a stemmed index beside the exact one, its vocabulary, and acronyms

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 02:30:00

`paper_stem` indexes the same columns of `paper` as `paper_fts`, through FTS5's porter
stemmer, so a word finds its other forms (neurons/neuron, pruning/prune, LLMs/LLM). `paper_fts`
stays as it was: the words as written, for exact forms (`=word`, ranked first), prefixes and
the vocabulary. Its triggers mirror paper_fts's; bulk imports drop both insert triggers.

`paper_vocab` (fts5vocab over paper_fts) lists the indexed words with the number of papers
holding each (typo suggestions, completion).

`acronym` holds the acronyms abstracts define ("Sparse Autoencoders (SAEs)"), learned at
import (catalog/searching/acronyms.py); existing papers are read once here. No user data is touched.
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = "0008"
down_revision: Union[str, None] = "0007"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# Frozen copies: later revisions may change catalog/store/sqlite/fts.py, never these.
FTS_COLUMNS = "user_title, title, headline, abstract_text, authors, tags_text, notes_text, search_extra"
NEW_VALUES = ", ".join(f"new.{c.strip()}" for c in FTS_COLUMNS.split(","))
OLD_VALUES = ", ".join(f"old.{c.strip()}" for c in FTS_COLUMNS.split(","))
HASH_BYTES = 32 << 20


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:  # PostgreSQL's word forms came with the PostgreSQL backend (0009)
        _stem_index()
    op.create_table(
        "acronym",
        sa.Column("short", _nocase(), nullable=False),
        sa.Column("long_key", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("long", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("papers", sa.Integer(), nullable=False),
        sa.Column("ordinary", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("short", "long_key"),
    )
    op.create_index("ix_acronym_long_key", "acronym", ["long_key"], unique=False)
    if sqlite:  # no catalog was on PostgreSQL before 0009
        _learn_acronyms(op.get_bind())


def _nocase():
    """Case-insensitive text: SQLite's NOCASE collation; citext on PostgreSQL."""
    from sqlalchemy.dialects.postgresql import CITEXT

    return sa.String(collation="NOCASE").with_variant(CITEXT(), "postgresql")


def _stem_index() -> None:
    op.execute("DROP TABLE IF EXISTS paper_stem")
    # content='paper' in single quotes: Datasette looks for content="paper" and must keep
    # finding paper_fts, the index of the words as written, for its search box.
    op.execute(f"""CREATE VIRTUAL TABLE paper_stem USING fts5({FTS_COLUMNS},
        content='paper', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')""")
    op.execute(f"INSERT INTO paper_stem(paper_stem, rank) VALUES ('hashsize', {HASH_BYTES})")
    op.execute(f"""CREATE TRIGGER paper_stem_insert AFTER INSERT ON paper BEGIN
        INSERT INTO paper_stem(rowid, {FTS_COLUMNS}) VALUES (new.id, {NEW_VALUES});
    END""")
    op.execute(f"""CREATE TRIGGER paper_stem_delete AFTER DELETE ON paper BEGIN
        INSERT INTO paper_stem(paper_stem, rowid, {FTS_COLUMNS}) VALUES ('delete', old.id, {OLD_VALUES});
    END""")
    op.execute(f"""CREATE TRIGGER paper_stem_update AFTER UPDATE OF id, {FTS_COLUMNS} ON paper BEGIN
        INSERT INTO paper_stem(paper_stem, rowid, {FTS_COLUMNS}) VALUES ('delete', old.id, {OLD_VALUES});
        INSERT INTO paper_stem(rowid, {FTS_COLUMNS}) VALUES (new.id, {NEW_VALUES});
    END""")
    op.execute("INSERT INTO paper_stem(paper_stem) VALUES ('rebuild')")
    op.execute("CREATE VIRTUAL TABLE IF NOT EXISTS paper_vocab USING fts5vocab(paper_fts, 'row')")


def _learn_acronyms(bind) -> None:
    """The acronyms the catalog's papers define, as imports learn them from now on."""
    from collections import Counter

    from catalog.searching.acronyms import definitions, long_key, used_as_words

    counts: Counter = Counter()
    surface: dict = {}
    texts = [row[0] for row in bind.exec_driver_sql("SELECT abstract_text FROM paper")]
    for text in texts:
        for (short, key), long in {(s, long_key(lf)): lf for s, lf in definitions(text)}.items():
            counts[(short, key)] += 1
            surface.setdefault((short, key), long)
    ordinary = used_as_words({short.lower() for short, _ in counts}, texts)
    rows = [(short, key, surface[(short, key)], n, short.lower() in ordinary) for (short, key), n in counts.items()]
    if rows:
        bind.exec_driver_sql(
            "INSERT INTO acronym(short, long_key, long, papers, ordinary) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT(short, long_key) DO UPDATE SET papers = acronym.papers + excluded.papers", rows)


def downgrade() -> None:
    op.drop_index("ix_acronym_long_key", table_name="acronym")
    op.drop_table("acronym")
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DROP TABLE IF EXISTS paper_vocab")
    for name in ("insert", "delete", "update"):
        op.execute(f"DROP TRIGGER IF EXISTS paper_stem_{name}")
    op.execute("DROP TABLE IF EXISTS paper_stem")
