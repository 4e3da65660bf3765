"""PostgreSQL: a paper's row kept whole in its page, and catalog_words() skipping ASCII text's digit replacements (issue 33)

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-08 00:00:00

PostgreSQL only (SQLite: nothing changes).

A paper's row is about 6 KB at 100k papers of the benchmarks' corpus (the abstract twice, as
written and as text, and the two search vectors). Past 2 KB (the default toast_tuple_target)
every insert and every write of a paper went through the toaster: it tried to compress the
abstracts and the vectors with pglz (which found too little to save and kept none of it),
then moved both abstracts out of the row into the TOAST table, one more row and index entry
each. With the target at its largest (8160 bytes) a row under a page stays as it is, in its
page: the same values, written once. COPY of 5,000 papers into a catalog of 25,000: 0.72x the
server's CPU time (docs/benchmarks.md, PostgreSQL). Rows written before keep their place
until they are written again.

catalog_words() replaced twenty super- and subscript digits one `replace()` at a time in
every field of every paper written, though abstracts are most often plain ASCII (no byte
past 127: then none of those digits is in it). Now it skips them for such text in a UTF-8
database, the same words either way (tests/test_migrations.py compares every kind of digit).

The downgrade puts the default target and 0012's body back.
"""
from typing import Sequence, Union

from alembic import op


revision: str = "0021"
down_revision: Union[str, None] = "0020"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

ROW_TARGET = 8160  # the largest PostgreSQL takes (a page less its headers)
SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"
SPLIT = r"'[!-/:-@\[-`{-~]+', ' ', 'g'"


def _digits() -> str:
    text = "coalesce(value, '')"
    for n, (sup, sub) in enumerate(zip(SUPERSCRIPTS, SUBSCRIPTS)):
        text = f"replace(replace({text}, '{sup}', '{n}'), '{sub}', '{n}')"
    return text


def _body(digits: str) -> str:
    return (r"CREATE OR REPLACE FUNCTION catalog_words(value text) RETURNS text"
            " LANGUAGE sql IMMUTABLE PARALLEL SAFE"
            f" AS $$ SELECT regexp_replace({digits}, {SPLIT}) $$")


# ASCII text (in UTF-8 as many bytes as characters) holds no super- or subscript digit. (In a
# single-byte encoding such as LATIN1 `²` is one byte too: such a database keeps 0012's body.)
FAST = _body(f"CASE WHEN octet_length(value) = length(value) THEN value ELSE {_digits()} END")
OLD = _body(_digits())  # 0012's


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(f"ALTER TABLE paper SET (toast_tuple_target = {ROW_TARGET})")
    if op.get_bind().exec_driver_sql("SELECT getdatabaseencoding()").scalar() == "UTF8":
        op.execute(FAST)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER TABLE paper RESET (toast_tuple_target)")
    op.execute(OLD)
