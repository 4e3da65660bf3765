"""PostgreSQL: who you are is the database role; each role reads and writes only its own marks

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 00:00:00

PostgreSQL only (SQLite: nothing changes; a file is one person's).

Until 0013 a shared catalog took its reader's name from the `catalog.user` setting, which the
program set from CATALOG_USER and which any session could set to anyone's name: every role
read and changed everyone's marks. From here on the database role is the reader, and the
server itself keeps each person's rows theirs (row-level security):

- `paper_reader` (status and rating): a role sees, adds, changes and deletes only the rows
  whose `reader` is its own name.
- `note`: everyone reads every note; a role adds notes signed with its own name, and edits
  and deletes only those.
- `paper_reader.reader` and `note.author` default to the role (SQL written by hand signs as
  its writer); `catalog_user()`, which the views read, is the role (`current_user`).
- The views (`papers`, `paper_tags`, `paper_notes`) read with the privileges of whoever
  queries them (`security_invoker`; a security barrier before PostgreSQL 15). A view reads as
  its owner otherwise, whom the policies exempt: a member's own function in a query on
  `papers` (one that raises a notice of each rating it is shown) was given everyone's ratings
  before the view's join kept only the member's. A revision that makes a view again sets this
  again.

The role that owns the tables (the one that created the catalog) is not bound by these
policies: PostgreSQL exempts a table's owner, who could turn them off anyway. It administers
the catalog (upgrades, backups with everyone's marks, members); people read as member roles.
Members get their privileges from `catalog share add-member` (catalog/store/postgres/
sharing.py), and tables made by later revisions reach them through the owner's default
privileges, so such a revision grants nothing itself (a table members may only read revokes
their writes).

Marks written before this revision keep the name they were written under (CATALOG_USER, else
the login name); where that is not the person's role, the owner renames them (docs/sharing.md).
The downgrade drops the policies and brings back 0009's catalog_user().
"""
from typing import Sequence, Union

from alembic import op


revision: str = "0014"
down_revision: Union[str, None] = "0013"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

ME = "current_user::text"
UPGRADE = [
    f"CREATE OR REPLACE FUNCTION catalog_user() RETURNS text LANGUAGE sql STABLE AS $$ SELECT {ME} $$",
    "ALTER TABLE paper_reader ENABLE ROW LEVEL SECURITY",
    f"CREATE POLICY paper_reader_own ON paper_reader USING (reader = {ME}) WITH CHECK (reader = {ME})",
    f"ALTER TABLE paper_reader ALTER COLUMN reader SET DEFAULT {ME}",
    "ALTER TABLE note ENABLE ROW LEVEL SECURITY",
    "CREATE POLICY note_read ON note FOR SELECT USING (true)",
    f"CREATE POLICY note_add ON note FOR INSERT WITH CHECK (author = {ME})",
    f"CREATE POLICY note_change ON note FOR UPDATE USING (author = {ME}) WITH CHECK (author = {ME})",
    f"CREATE POLICY note_delete ON note FOR DELETE USING (author = {ME})",
    f"ALTER TABLE note ALTER COLUMN author SET DEFAULT {ME}",
]
DOWNGRADE = [
    "ALTER TABLE note ALTER COLUMN author SET DEFAULT ''",
    *(f"DROP POLICY IF EXISTS {name} ON note" for name in ("note_read", "note_add", "note_change", "note_delete")),
    "ALTER TABLE note DISABLE ROW LEVEL SECURITY",
    "ALTER TABLE paper_reader ALTER COLUMN reader DROP DEFAULT",
    "DROP POLICY IF EXISTS paper_reader_own ON paper_reader",
    "ALTER TABLE paper_reader DISABLE ROW LEVEL SECURITY",
    # 0009's: the `catalog.user` setting, else the session's role.
    """CREATE OR REPLACE FUNCTION catalog_user() RETURNS text LANGUAGE sql STABLE AS $$
        SELECT coalesce(nullif(current_setting('catalog.user', true), ''), session_user::text) $$""",
]


VIEWS = ("papers", "paper_tags", "paper_notes")


def _view_option() -> str:
    """How the views read as their reader: security_invoker from PostgreSQL 15; before it a
    security barrier, which keeps a query's own functions above the view's join."""
    version = op.get_bind().exec_driver_sql("SHOW server_version_num").scalar()
    return "security_invoker" if int(version) >= 150000 else "security_barrier"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for statement in UPGRADE:
            op.execute(statement)
        for view in VIEWS:
            op.execute(f"ALTER VIEW {view} SET ({_view_option()} = true)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for view in VIEWS:
            op.execute(f"ALTER VIEW {view} RESET ({_view_option()})")
        for statement in DOWNGRADE:
            op.execute(statement)
