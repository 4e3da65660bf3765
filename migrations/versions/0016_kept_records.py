"""kept_record: every field of every imported record as written; citekey: each paper's cite key; paper_author: authors as people

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07 05:00:00

One new table, `kept_record`: one row per record of a structured file (BibTeX, RIS, JSON,
CSV; paper lists have no fields to keep), named by its file and position like `provenance`,
with the paper it became, its entry type (BibTeX `article`, RIS `JOUR`, CSL `type`), its own
key (BibTeX's cite key, RIS `ID`, CSL `id`) and its fields in file order as a JSON array of
`[name, value]` pairs (`[name, value, "bare"]` for a BibTeX value written with a macro, like
`month = jan`). Exports in the record's format write these back (docs/formats.md).

A second table, `citekey`: each paper's cite key, the one exports and LaTeX citations use, unique
across papers and compared without case: the key its file gave it, or one generated once when
it was first imported (`generated` true), never changed by a later import, merge or edit.
Papers imported before this revision have none until `catalog citekey regen` gives them one
(exports meanwhile make one as they always did).

A third, `paper_author`: one row per author of a paper, in order (catalog/ingest/people.py: "et al."
is not a person, an organisation's name is kept whole), with the forms `author:` compares
(accents and case folded). It is filled here from every paper's `authors`, and by imports after.

The view `paper_fields` shows one row per field: the paper's key, the file, its format, the
record's position, entry type and cite key, the field's place, name and value.

Records imported before this revision have no row (their files were read before fields were
kept); importing the file again does not add them (its bytes are known), `catalog import` of an
edited copy does. PostgreSQL members reach the new table through the owner's default
privileges (0014); the view reads as its reader like the others.
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import CITEXT


revision: str = "0016"
down_revision: Union[str, None] = "0015"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

NOCASE = sa.String(collation="NOCASE").with_variant(CITEXT(), "postgresql")
SQLITE_VIEW = """CREATE VIEW paper_fields AS
    SELECT p.key, s.path AS source, s.format, r.position, r.entry_type, r.cite_key,
           f.key + 1 AS n, f.value ->> 0 AS name, f.value ->> 1 AS value
    FROM kept_record r JOIN paper p ON p.id = r.paper_id JOIN source s ON s.id = r.source_id,
         json_each(r.fields) f"""
POSTGRES_VIEW = """CREATE VIEW paper_fields AS
    SELECT p.key, s.path AS source, s.format, r.position, r.entry_type, r.cite_key,
           f.n, f.item ->> 0 AS name, f.item ->> 1 AS value
    FROM kept_record r JOIN paper p ON p.id = r.paper_id JOIN source s ON s.id = r.source_id,
         jsonb_array_elements(r.fields::jsonb) WITH ORDINALITY AS f(item, n)"""


def upgrade() -> None:
    op.create_table(
        "kept_record",
        sa.Column("source_id", sa.Integer(), sa.ForeignKey("source.id", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), sa.ForeignKey("paper.id", ondelete="CASCADE"), nullable=False),
        sa.Column("entry_type", sa.String(), nullable=True),
        sa.Column("cite_key", NOCASE, nullable=True),
        sa.Column("fields", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("source_id", "position"),
    )
    op.create_table(
        "citekey",
        sa.Column("paper_id", sa.Integer(), sa.ForeignKey("paper.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key", NOCASE, nullable=False),
        sa.Column("generated", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("paper_id"),
        sa.UniqueConstraint("key", name="uq_citekey_key"),
    )
    op.create_table(
        "paper_author",
        sa.Column("paper_id", sa.Integer(), sa.ForeignKey("paper.id", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("family", sa.String(), nullable=False),
        sa.Column("folded", sa.String(), nullable=False),
        sa.Column("folded_family", sa.String(), nullable=False),
        sa.Column("folded_short", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("paper_id", "position"),
    )
    op.create_index("ix_paper_author_name", "paper_author", ["name"])
    _fill_authors()
    op.create_index("ix_kept_record_paper_id", "kept_record", ["paper_id"])
    op.create_index("ix_kept_record_cite_key", "kept_record", ["cite_key"],
                    sqlite_where=sa.text("cite_key IS NOT NULL"), postgresql_where=sa.text("cite_key IS NOT NULL"))
    if op.get_bind().dialect.name == "postgresql":
        op.execute(POSTGRES_VIEW)
        version = op.get_bind().exec_driver_sql("SHOW server_version_num").scalar()
        option = "security_invoker" if int(version) >= 150000 else "security_barrier"
        op.execute(f"ALTER VIEW paper_fields SET ({option} = true)")
    else:
        op.execute(SQLITE_VIEW)


def _fill_authors() -> None:
    """Every paper's authors as people (catalog/ingest/people.py, as imports make them)."""
    from catalog.ingest.people import people

    conn = op.get_bind()
    rows = conn.execute(sa.text("SELECT id, authors FROM paper WHERE authors IS NOT NULL AND authors != ''"))
    batch = []
    insert = sa.text("INSERT INTO paper_author(paper_id, position, name, family, folded, folded_family,"
                     " folded_short) VALUES (:paper_id, :position, :name, :family, :folded, :folded_family,"
                     " :folded_short)")
    for paper_id, authors in rows.fetchall():
        batch.extend({"paper_id": paper_id, **p._asdict()} for p in people(authors))
        if len(batch) >= 5000:
            conn.execute(insert, batch)
            batch = []
    if batch:
        conn.execute(insert, batch)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS paper_fields")
    op.drop_table("citekey")
    op.drop_index("ix_paper_author_name", table_name="paper_author")
    op.drop_table("paper_author")
    op.drop_index("ix_kept_record_cite_key", table_name="kept_record")
    op.drop_index("ix_kept_record_paper_id", table_name="kept_record")
    op.drop_table("kept_record")
