"""attachment, attachment_page: files attached to papers (PDFs first), and their text by page

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07 05:00:00

`attachment`: one file of a paper. `stored` says where it lives: 'managed' (a copy in the
catalog's folder of files, `path` relative to it) or 'linked' (left where it was, `path`
absolute). `sha256` and `size` are the file's when attached (the same bytes attached twice to
one paper are one attachment; doctor finds a moved linked file by its hash). `pages` and
`text_state` are filled when its text is read (NULL: not read yet; 'text', 'no text',
'encrypted', 'unreadable').

`attachment_page`: the text of each page, searched as a lower-weight part of the index: on
SQLite an FTS5 table over it (`page_fts`, external content, kept by triggers), on
PostgreSQL a stored tsvector column with a GIN index.

PostgreSQL: members read every attachment and page; a member adds attachments signed with
their role (`added_by`) and detaches only those (row-level security as 0014's notes). Pages
follow their attachment: whoever may change it may write its pages (its text is derived).
Grants come from the owner's default privileges (0014).
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = "0015"
down_revision: Union[str, None] = "0014"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

ME = "current_user::text"
PAGE_TOKENIZER = "porter unicode61 remove_diacritics 2"
SQLITE_INDEX = [
    f"""CREATE VIRTUAL TABLE page_fts USING fts5(text, content='attachment_page', content_rowid='id',
        tokenize='{PAGE_TOKENIZER}')""",
    """CREATE TRIGGER page_fts_insert AFTER INSERT ON attachment_page BEGIN
        INSERT INTO page_fts(rowid, text) VALUES (new.id, new.text); END""",
    """CREATE TRIGGER page_fts_delete AFTER DELETE ON attachment_page BEGIN
        INSERT INTO page_fts(page_fts, rowid, text) VALUES ('delete', old.id, old.text); END""",
    """CREATE TRIGGER page_fts_update AFTER UPDATE OF id, text ON attachment_page BEGIN
        INSERT INTO page_fts(page_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO page_fts(rowid, text) VALUES (new.id, new.text); END""",
]
POSTGRES_INDEX = [
    """ALTER TABLE attachment_page ADD COLUMN text_vector tsvector GENERATED ALWAYS AS
        (to_tsvector('catalog_stems', catalog_words(text))) STORED""",
    "CREATE INDEX ix_attachment_page_text ON attachment_page USING gin (text_vector)",
    f"ALTER TABLE attachment ALTER COLUMN added_by SET DEFAULT {ME}",
    "ALTER TABLE attachment ENABLE ROW LEVEL SECURITY",
    "CREATE POLICY attachment_read ON attachment FOR SELECT USING (true)",
    f"CREATE POLICY attachment_add ON attachment FOR INSERT WITH CHECK (added_by = {ME})",
    f"CREATE POLICY attachment_change ON attachment FOR UPDATE USING (added_by = {ME}) WITH CHECK (added_by = {ME})",
    f"CREATE POLICY attachment_delete ON attachment FOR DELETE USING (added_by = {ME})",
    "ALTER TABLE attachment_page ENABLE ROW LEVEL SECURITY",
    "CREATE POLICY attachment_page_read ON attachment_page FOR SELECT USING (true)",
    f"""CREATE POLICY attachment_page_write ON attachment_page FOR ALL
        USING (EXISTS (SELECT 1 FROM attachment a WHERE a.id = attachment_id AND a.added_by = {ME}))
        WITH CHECK (EXISTS (SELECT 1 FROM attachment a WHERE a.id = attachment_id AND a.added_by = {ME}))""",
]


def upgrade() -> None:
    op.create_table(
        "attachment",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("paper_id", sa.Integer(), sa.ForeignKey("paper.id", ondelete="CASCADE"), nullable=False),
        sa.Column("stored", sa.String(), nullable=False),
        sa.Column("path", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("sha256", sa.String(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("pages", sa.Integer(), nullable=True),
        sa.Column("text_state", sa.String(), nullable=True),
        sa.Column("added_by", sa.String(), nullable=False, server_default=""),
        sa.Column("added_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("stored IN ('managed', 'linked')", name="ck_attachment_stored"),
        sa.UniqueConstraint("paper_id", "sha256", name="uq_attachment_paper_sha256"),
    )
    op.create_index("ix_attachment_paper_id", "attachment", ["paper_id"])
    op.create_index("ix_attachment_sha256", "attachment", ["sha256"])
    op.create_table(
        "attachment_page",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("attachment_id", sa.Integer(), sa.ForeignKey("attachment.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("page", sa.Integer(), nullable=False),
        sa.Column("text", sa.String(), nullable=False),
        sa.UniqueConstraint("attachment_id", "page", name="uq_attachment_page"),
    )
    for statement in SQLITE_INDEX if op.get_bind().dialect.name == "sqlite" else POSTGRES_INDEX:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE IF EXISTS page_fts")
    op.drop_table("attachment_page")
    op.drop_index("ix_attachment_sha256", table_name="attachment")
    op.drop_index("ix_attachment_paper_id", table_name="attachment")
    op.drop_table("attachment")
