"""top-k lists: the best papers of each frequent word and prefix, in ranking order (issue 16)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 05:30:00

`term_top` holds, for each word or prefix in many papers, the first papers of its full bm25
ranking on paper_fts (position, paper id, score); `term_top_state` one row a list: the FTS5
structure record it was ranked on (a stamp: any write to the index changes it, and a stale list
is never read), the column weights, how many papers it lists and how many match. Both start
empty; the next import (or `catalog doctor --fix`) builds them (catalog/store/sqlite/topk.py).
Derived data only: downgrading drops them. No user data is touched.
"""
from typing import Sequence, Union

from alembic import op


revision: str = "0009"
down_revision: Union[str, None] = "0008"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.execute("""CREATE TABLE IF NOT EXISTS term_top (
        term TEXT NOT NULL,
        position INTEGER NOT NULL,
        paper_id INTEGER NOT NULL,
        score REAL NOT NULL,
        PRIMARY KEY (term, position)
    ) WITHOUT ROWID""")
    op.execute("""CREATE TABLE IF NOT EXISTS term_top_state (
        term TEXT NOT NULL PRIMARY KEY,
        stamp BLOB,
        weights TEXT NOT NULL,
        listed INTEGER NOT NULL,
        matches INTEGER NOT NULL
    )""")


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS term_top_state")
    op.execute("DROP TABLE IF EXISTS term_top")
