"""paper.kind: what kind of publication a paper is (journal article, conference paper, ...)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 15:00:00

One nullable column on `paper`: `article` (a journal article), `conference`, `chapter`, `book`,
`thesis`, `report`, `preprint`, or NULL when no source said (paper lists never do; papers
imported before this revision have NULL until a file that names their type is imported again).
Imports fill it from each format's type (catalog/ingest/kinds.py); exports write it back
(@article, TY JOUR, article-journal ...). A plain ADD COLUMN on both backends: no table is
rebuilt, no row is rewritten, no trigger is touched.

The `papers` view shows it after `year`; the view is dropped and created again with it (frozen
here: 0009's view plus the column). 0012 before it
rewrote only PostgreSQL's catalog_words(), neither `paper` nor the views.
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = "0013"
down_revision: Union[str, None] = "0012"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

TITLE = "coalesce(p.user_title, p.title, p.headline)"
SQLITE_READER = "(SELECT value FROM catalog_setting WHERE name = 'owner')"
POSTGRES_READER = "catalog_user()"


def _papers_view(reader: str, kind: bool) -> str:
    return f"""CREATE VIEW papers AS
        SELECT p.key, {TITLE} AS title, p.venue, p.year,{' p.kind,' if kind else ''}
               coalesce(r.status, 'unread') AS status, r.rating, replace(p.tags_text, ' ', ', ') AS tags,
               (SELECT count(*) FROM note n WHERE n.paper_id = p.id) AS notes,
               p.authors, p.doi, p.arxiv_id, p.url, p.abstract, p.added_at, p.id AS paper_id
        FROM paper p LEFT JOIN paper_reader r ON r.paper_id = p.id AND r.reader = {reader}"""


def _reader() -> str:
    return SQLITE_READER if op.get_bind().dialect.name == "sqlite" else POSTGRES_READER


def upgrade() -> None:
    op.add_column("paper", sa.Column("kind", sa.String(), nullable=True))
    op.execute("DROP VIEW IF EXISTS papers")
    op.execute(_papers_view(_reader(), kind=True))


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS papers")
    op.drop_column("paper", "kind")
    op.execute(_papers_view(_reader(), kind=False))
