"""PostgreSQL: both search vectors computed by one trigger, each field's words split once (issue 33)

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-07 18:00:00

PostgreSQL only (SQLite: nothing changes).

0009's generated columns `search_vector` and `stem_vector` each ran `catalog_vector()`:
`catalog_words()` on each of a paper's eight fields (ASCII punctuation made spaces), then
`to_tsvector` in its configuration. So every field's words were split twice. Now a BEFORE
trigger splits each field once and makes both vectors from that text, exactly as
`catalog_vector()` does (field by field, the same weights, in the same order): the same
vectors. Inserting papers costs less (5,000 papers of the 100k corpus, alternated: see
docs/benchmarks.md, PostgreSQL).

The two columns become plain columns and keep their values (DROP EXPRESSION: nothing is
rewritten or computed again). The trigger fires on INSERT and on an UPDATE of any of the eight
fields or of the vectors themselves (a vector written by hand is computed again, as a
generated column could not be written); an UPDATE of other columns leaves them as they are,
where a generated column computed them again. The downgrade makes them generated columns
again (the table rewritten, both indexes built again).
"""
from typing import Sequence, Union

from alembic import op


revision: str = "0019"
down_revision: Union[str, None] = "0018"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# The eight fields as catalog_vector() takes them, with their weights.
FIELDS = (("user_title", "A"), ("title", "A"), ("headline", "A"), ("tags_text", "B"), ("authors", "C"),
          ("notes_text", "C"), ("abstract_text", "D"), ("search_extra", "D"))


def _vector(config: str) -> str:
    return " || ".join(f"setweight(to_tsvector('{config}', w_{field}), '{weight}')" for field, weight in FIELDS)


FUNCTION = f"""CREATE FUNCTION catalog_paper_vectors() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        {' '.join(f'w_{field} text := catalog_words(NEW.{field});' for field, _ in FIELDS)}
    BEGIN
        NEW.search_vector := {_vector('catalog_words')};
        NEW.stem_vector := {_vector('catalog_stems')};
        RETURN NEW;
    END $$"""
TRIGGER = (f"CREATE TRIGGER paper_vectors BEFORE INSERT OR UPDATE OF {', '.join(f for f, _ in FIELDS)},"
           " search_vector, stem_vector ON paper FOR EACH ROW EXECUTE FUNCTION catalog_paper_vectors()")

# 0009's columns, for the downgrade.
GENERATED = [
    """ALTER TABLE paper ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (catalog_vector('catalog_words',
        user_title, title, headline, tags_text, authors, notes_text, abstract_text, search_extra)) STORED""",
    "CREATE INDEX ix_paper_search ON paper USING gin (search_vector)",
    """ALTER TABLE paper ADD COLUMN stem_vector tsvector GENERATED ALWAYS AS (catalog_vector('catalog_stems',
        user_title, title, headline, tags_text, authors, notes_text, abstract_text, search_extra)) STORED""",
    "CREATE INDEX ix_paper_stems ON paper USING gin (stem_vector)",
    "ALTER TABLE paper ALTER COLUMN search_vector SET STORAGE MAIN, ALTER COLUMN stem_vector SET STORAGE MAIN",
]


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER TABLE paper ALTER COLUMN search_vector DROP EXPRESSION,"
               " ALTER COLUMN stem_vector DROP EXPRESSION")
    op.execute(FUNCTION)
    op.execute(TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER IF EXISTS paper_vectors ON paper")
    op.execute("DROP FUNCTION IF EXISTS catalog_paper_vectors()")
    op.execute("ALTER TABLE paper DROP COLUMN search_vector, DROP COLUMN stem_vector")
    for statement in GENERATED:
        op.execute(statement)
