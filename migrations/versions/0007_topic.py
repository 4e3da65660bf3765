"""topic: the stored topics of a list (catalog topics, the TUI's topics facet)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05 10:00:00

`catalog topics [FILTERS]` groups a list of papers into labelled topics (catalog/discover/):
one row per paper, so `sqlite3` users can query them. `scope` names the list grouped: "" for
the whole catalog, else the query text; grouping a list again replaces its rows. A paper is in
at most one topic of a scope; deleting it deletes its rows.

A new table only: nothing is copied or rebuilt, so no batch mode and no trigger work.
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "0007"
down_revision: Union[str, None] = "0006"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "topic",
        sa.Column("scope", sa.String(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("scope", "paper_id"),
        if_not_exists=True,
    )
    op.create_index("ix_topic_paper_id", "topic", ["paper_id"], unique=False, if_not_exists=True)


def downgrade() -> None:
    op.drop_index("ix_topic_paper_id", table_name="topic", if_exists=True)
    op.drop_table("topic", if_exists=True)
