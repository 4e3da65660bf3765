"""paper_link and paper_notice: what the web says of a paper beyond its fields

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07 05:00:00

Two new tables, filled by `catalog add` and `catalog enrich` (catalog/fetching/):

- `paper_link`: links a service gave for a paper, by relation (`pdf`: where its full text is,
  arXiv's, OpenReview's or the publisher's), each with the source (the service's answer)
  that gave it.
- `paper_notice`: notices about a paper a service knows (Crossref's `updated-by`: a
  retraction, withdrawal, correction, expression of concern), with the notice's DOI, its
  label as the publisher wrote it and its date; `catalog show` shows them.

Both hang off `paper` and `source` and go with either (ON DELETE CASCADE). No table is
rebuilt, no trigger touched. On PostgreSQL members reach the new tables through the owner's
default privileges (0014): they are the catalog's shared facts, like `paper`, not anyone's
own marks, so no row-level security.
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = "0017"
down_revision: Union[str, None] = "0016"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _paper_and_source() -> list[sa.Column]:
    return [sa.Column("paper_id", sa.Integer(), sa.ForeignKey("paper.id", ondelete="CASCADE"), nullable=False),
            sa.Column("source_id", sa.Integer(), sa.ForeignKey("source.id", ondelete="CASCADE"), nullable=False)]


def upgrade() -> None:
    op.create_table(
        "paper_link", *_paper_and_source(),
        sa.Column("rel", sa.String(), nullable=False),
        sa.Column("url", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("paper_id", "rel", "url"))
    op.create_table(
        "paper_notice", *_paper_and_source(),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("doi", sa.String(), nullable=False),
        sa.Column("label", sa.String(), nullable=False, server_default=""),
        sa.Column("updated", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("paper_id", "kind", "doi"))


def downgrade() -> None:
    op.drop_table("paper_notice")
    op.drop_table("paper_link")
