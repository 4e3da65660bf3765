"""paper_merge: each record that joined a paper, with its evidence, so a merge can be undone

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 09:00:00

Importing folds a record into a paper already seen when the DOI, arXiv id, abstract or title
says it is the same paper (catalog/importing/dedupe.py). Each such record is now kept: its file and
position (as in provenance), the evidence, the fields the paper took from it, and the record
itself as JSON, so `catalog import --verbose` can list the merges and `catalog split KEY` can
make a wrong one two papers again.

A new table only: nothing is copied or rebuilt, so no batch mode and no trigger work. Papers
merged before this revision have no rows; `catalog split` says so for them.
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = "0003"
down_revision: Union[str, None] = "0002"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "paper_merge",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("evidence", sa.String(), nullable=False),
        sa.Column("filled", sa.String(), nullable=False),
        sa.Column("record", sa.String(), nullable=False),
        sa.Column("merged_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["source_id"], ["source.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_paper_merge_paper_id", "paper_merge", ["paper_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_paper_merge_paper_id", table_name="paper_merge")
    op.drop_table("paper_merge")
