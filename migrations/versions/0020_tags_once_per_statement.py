"""PostgreSQL: a paper's tags (and so its search vectors) written once per statement, not once per tag row (issue 33)

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07 21:00:00

PostgreSQL only (SQLite: nothing changes).

0009's trigger on `paper_tag` ran FOR EACH ROW: every tag row a statement inserted, deleted or
changed wrote its paper's `tags_text` again, and each such write computed both search vectors
again (0019's trigger), added new entries to both GIN indexes, left a dead row version and
logged the paper for the ranked lists. Tagging 10,000 papers with two tags in one statement
wrote each paper twice. Now three statement triggers (one per event: a trigger with transition
tables takes one event) write each paper the statement touched once, after it, with the same
`catalog_tags_text()`: the same tags text, so the same vectors; a paper whose tags text comes
out as it was is not written at all. The downgrade puts 0009's row trigger back. No data
changes either way.

And 0011's log of the papers whose vectors an UPDATE changed (`catalog_rank_top_updated`)
joins the statement's old and new rows; PL/pgSQL planned that join once per session, for the
rows of its first statement: after a one-row update (a single edit, or the tag-row trigger)
a later statement's thousands were joined in a nested loop (3,000 papers' `updated_at` at
100k: 22.7 s in the trigger instead of 0.09 s). The query now runs through EXECUTE: planned
for each statement's rows. The downgrade puts 0011's body back.
"""
from typing import Sequence, Union

from alembic import op


revision: str = "0020"
down_revision: Union[str, None] = "0019"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# Each paper a statement's tag rows name, once; written only when its tags text changes.
_WRITE = ("UPDATE paper p SET tags_text = c.tags FROM (SELECT d.id, catalog_tags_text(d.id) AS tags"
          " FROM (SELECT DISTINCT paper_id AS id FROM ({changed}) AS r) AS d) AS c"
          " WHERE p.id = c.id AND p.tags_text IS DISTINCT FROM c.tags")
FUNCTIONS = {
    "catalog_paper_tags_inserted": _WRITE.format(changed="SELECT paper_id FROM new_tags"),
    "catalog_paper_tags_deleted": _WRITE.format(changed="SELECT paper_id FROM old_tags"),
    "catalog_paper_tags_updated": _WRITE.format(
        changed="SELECT paper_id FROM old_tags UNION ALL SELECT paper_id FROM new_tags"),
}
TRIGGERS = {
    "paper_tags_inserted": ("INSERT", "NEW TABLE AS new_tags", "catalog_paper_tags_inserted"),
    "paper_tags_deleted": ("DELETE", "OLD TABLE AS old_tags", "catalog_paper_tags_deleted"),
    "paper_tags_updated": ("UPDATE", "OLD TABLE AS old_tags NEW TABLE AS new_tags", "catalog_paper_tags_updated"),
}

# 0011's log of updated papers (its LOG, CHANGE_LIMIT 2000), as a static query (the downgrade's)
# and run through EXECUTE (planned for each statement's transition tables).
_UPDATED_LOG = ("INSERT INTO rank_top_change(paper_id) SELECT id FROM (SELECT n.id FROM new_rows n JOIN old_rows o"
                " ON o.id = n.id WHERE n.search_vector IS DISTINCT FROM o.search_vector"
                " OR n.stem_vector IS DISTINCT FROM o.stem_vector LIMIT 2001) AS c WHERE EXISTS (SELECT 1 FROM rank_top_state)")
UPDATED_STATIC = ("CREATE OR REPLACE FUNCTION catalog_rank_top_updated() RETURNS trigger LANGUAGE plpgsql AS $$"
                  f" BEGIN {_UPDATED_LOG}; RETURN NULL; END $$")
UPDATED_PLANNED_EACH_TIME = ("CREATE OR REPLACE FUNCTION catalog_rank_top_updated() RETURNS trigger LANGUAGE plpgsql AS $$"
                             f" BEGIN EXECUTE $q${_UPDATED_LOG}$q$; RETURN NULL; END $$")

# 0009's, for the downgrade.
ROW_FUNCTION = """CREATE FUNCTION catalog_paper_tag_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            UPDATE paper SET tags_text = catalog_tags_text(OLD.paper_id) WHERE id = OLD.paper_id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            UPDATE paper SET tags_text = catalog_tags_text(NEW.paper_id) WHERE id = NEW.paper_id;
        END IF;
        RETURN NULL;
    END $$"""
ROW_TRIGGER = """CREATE TRIGGER paper_tag_changed AFTER INSERT OR UPDATE OR DELETE ON paper_tag
        FOR EACH ROW EXECUTE FUNCTION catalog_paper_tag_changed()"""


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER IF EXISTS paper_tag_changed ON paper_tag")
    op.execute("DROP FUNCTION IF EXISTS catalog_paper_tag_changed()")
    for name, body in FUNCTIONS.items():
        op.execute(f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$"
                   f" BEGIN {body}; RETURN NULL; END $$")
    for name, (event, tables, function) in TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} AFTER {event} ON paper_tag REFERENCING {tables}"
                   f" FOR EACH STATEMENT EXECUTE FUNCTION {function}()")
    op.execute(UPDATED_PLANNED_EACH_TIME)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for name in TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name} ON paper_tag")
    for name in FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS {name}()")
    op.execute(ROW_FUNCTION)
    op.execute(ROW_TRIGGER)
    op.execute(UPDATED_STATIC)
