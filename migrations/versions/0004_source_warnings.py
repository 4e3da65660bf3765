"""source.warnings: what an import skipped, reported again when the file is imported again

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 21:00:00

A file whose bytes were imported before is not read again, so the entries it skipped (a
broken BibTeX entry, a CSV row without an abstract) were reported only the first time. They
are kept with the file, one per line, each as "LINE: what" without the file's name (the same
bytes may come back under another name).
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = "0004"
down_revision: Union[str, None] = "0003"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # ALTER TABLE ADD COLUMN: no table rebuild, so triggers and foreign keys are untouched.
    op.add_column("source", sa.Column("warnings", sa.String(), server_default="", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("source") as batch:
        batch.drop_column("warnings")
