"""acronym_added: acronyms users add (`catalog acronyms add SHORT "long form"`)

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07 05:00:00

A search widens an acronym to its long form and back through three sources: those the
abstracts define (`acronym`, learned at import), the field's common ones bundled with the
program (catalog/searching/acronyms.tsv), and these, which users add and which win over both.
A short form may have several long forms (a row each). A new table on both backends; nothing
else changes. On PostgreSQL members reach it through the owner's default privileges (0014):
everyone sharing a catalog shares its acronyms, as its tags.
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = "0018"
down_revision: Union[str, None] = "0017"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _nocase():
    """Case-insensitive text: SQLite's NOCASE collation; citext on PostgreSQL."""
    from sqlalchemy.dialects.postgresql import CITEXT

    return sa.String(collation="NOCASE").with_variant(CITEXT(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "acronym_added",
        sa.Column("short", _nocase(), nullable=False),
        sa.Column("long_key", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("long", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("added_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("short", "long_key"),
    )


def downgrade() -> None:
    op.drop_table("acronym_added")
