"""derived text follows hand edits of paper.abstract

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 22:00:00

`abstract_text`, `headline`, `search_extra` and `fingerprint` are derived from `abstract` in
Python (TeX rendering, headlines), which SQLite cannot run. When someone edits `abstract` in
the sqlite3 shell and leaves `abstract_text` as it was, this trigger notes the paper in
`paper_rederive`; the next catalog command that opens the file (or writes to it) derives the
text again and empties the table. `catalog doctor` finds the edits the trigger cannot see (rows
inserted by hand, abstract_text edited too) by their fingerprint.
"""
from typing import Sequence, Union

from alembic import op


revision: str = "0006"
down_revision: Union[str, None] = "0005"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.execute("CREATE TABLE paper_rederive (paper_id INTEGER NOT NULL PRIMARY KEY)")
    if op.get_bind().dialect.name != "sqlite":
        return  # PostgreSQL's trigger came with the PostgreSQL backend (0007)
    # The program sets abstract_text with abstract; a change of abstract alone is a hand edit.
    op.execute("""CREATE TRIGGER paper_abstract_edited AFTER UPDATE OF abstract ON paper
        WHEN new.abstract IS NOT old.abstract AND new.abstract_text IS old.abstract_text BEGIN
        INSERT OR IGNORE INTO paper_rederive(paper_id) VALUES (new.id);
    END""")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS paper_abstract_edited")
    op.execute("DROP TABLE IF EXISTS paper_rederive")
