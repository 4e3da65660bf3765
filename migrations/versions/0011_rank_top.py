"""PostgreSQL's ranked lists: the best papers of each frequent word, in ts_rank order (issue 15)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 12:00:00

PostgreSQL only (SQLite has its own lists, 0010; there this revision changes nothing).

`rank_top` holds, for each word (lexeme) in many papers, the head of its full ranking as a
search ranks it (`-ts_rank(weights, vector, query, 1)`, then paper id): position, paper id,
score; one list per index (`exact`: search_vector, `stems`: stem_vector), keyed by the index's
name and the tsquery's text (`exact 'influence'`). `rank_top_state` has one row a list: the
change it was ranked after (`built_at`), the weights, how many papers it lists and how many
match. ts_rank with normalization 1 reads no collection statistics: a paper's score for a word
depends on that paper alone, so a list stays right for every paper whose vectors did not
change.

`rank_top_change` logs the papers whose vectors changed (statement triggers on `paper`:
inserts, deletes, and updates that change a vector), in order (`seq`). A search takes a list's
entries minus the papers changed since it was ranked, ranks those changed papers itself, and
serves the page when the list proves it (catalog/store/postgres/topk.py). Each statement logs
at most CHANGE_LIMIT + 1 papers: past CHANGE_LIMIT changes a list is not read but ranked again
(imports do it, or `catalog doctor --fix`). Derived data only: the tables start empty, and a
downgrade drops them. No user data is touched.
"""
from typing import Sequence, Union

from alembic import op


revision: str = "0011"
down_revision: Union[str, None] = "0010"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

CHANGE_LIMIT = 2000  # postgres/topk.py's CHANGE_LIMIT
# Only while any list exists: a catalog without lists logs nothing.
LOG = ("INSERT INTO rank_top_change(paper_id) SELECT id FROM ({changed} LIMIT %d) AS c"
       " WHERE EXISTS (SELECT 1 FROM rank_top_state)") % (CHANGE_LIMIT + 1)
FUNCTIONS = {
    "catalog_rank_top_inserted": LOG.format(changed="SELECT id FROM new_rows"),
    "catalog_rank_top_deleted": LOG.format(changed="SELECT id FROM old_rows"),
    "catalog_rank_top_updated": LOG.format(
        changed="SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id"
                " WHERE n.search_vector IS DISTINCT FROM o.search_vector"
                " OR n.stem_vector IS DISTINCT FROM o.stem_vector"),
}
TRIGGERS = {
    "rank_top_paper_insert": ("INSERT", "NEW TABLE AS new_rows", "catalog_rank_top_inserted"),
    "rank_top_paper_delete": ("DELETE", "OLD TABLE AS old_rows", "catalog_rank_top_deleted"),
    "rank_top_paper_update": ("UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows", "catalog_rank_top_updated"),
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":  # SQLite keeps its own lists (0010)
        return
    op.execute("""CREATE TABLE rank_top (
        key text NOT NULL,
        position integer NOT NULL,
        paper_id integer NOT NULL,
        score real NOT NULL,
        PRIMARY KEY (key, position))""")
    op.execute("""CREATE TABLE rank_top_state (
        key text PRIMARY KEY,
        built_at bigint NOT NULL,
        weights text NOT NULL,
        listed integer NOT NULL,
        matches integer NOT NULL)""")
    op.execute("CREATE TABLE rank_top_change (seq bigserial PRIMARY KEY, paper_id integer NOT NULL)")
    for name, body in FUNCTIONS.items():
        op.execute(f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$"
                   f" BEGIN {body}; RETURN NULL; END $$")
    for name, (event, tables, function) in TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} AFTER {event} ON paper REFERENCING {tables}"
                   f" FOR EACH STATEMENT EXECUTE FUNCTION {function}()")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for name in TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name} ON paper")
    for name in FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS {name}()")
    for table in ("rank_top_change", "rank_top_state", "rank_top"):
        op.execute(f"DROP TABLE IF EXISTS {table}")
