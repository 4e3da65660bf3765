"""A pretend next schema revision, for testing upgrades before a real second migration exists.

`install(folder)` copies migrations/ and adds a revision after the real head that rebuilds
the `paper` table the way Alembic's batch mode does on SQLite (create a copy, copy the rows,
drop the old table, rename): the most dangerous kind of migration for user data, because
dropping `paper` with foreign keys on cascades to every tag, note and provenance row, and
because the copy loses the table's triggers. The revision does what a real one must: drops
and recreates the triggers and views around the batch operation and rebuilds the FTS index.

`patch(monkeypatch, folder)` points this process at the copy; `PRELUDE` does the same in a
subprocess (`python -c PRELUDE + "main()"`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from catalog.store import schema
from catalog.resources import migrations_dir

FUTURE_REVISION = "9001_test_future"

_MIGRATION = '''"""test only: paper.read_at, added by rebuilding the paper table (batch mode)

Revision ID: {revision}
Revises: {down}
"""
import sqlalchemy as sa
from alembic import op

revision = {revision!r}
down_revision = {down!r}
branch_labels = None
depends_on = None


def _rebuild_paper(change):
    bind = op.get_bind()
    saved = bind.exec_driver_sql(
        "SELECT type, name, sql FROM sqlite_master"
        " WHERE type IN ('view', 'trigger') AND sql IS NOT NULL").all()
    for kind, name, _ in saved:
        op.execute(f'DROP {{kind.upper()}} "{{name}}"')
    # Reflection loses `COLLATE NOCASE` on venue: a real revision must say it again.
    with op.batch_alter_table("paper", recreate="always",
                              reflect_args=[sa.Column("venue", sa.String(collation="NOCASE"))]) as batch:
        change(batch)
    for _, _, sql in saved:
        op.execute(sql)
    op.execute("INSERT INTO paper_fts(paper_fts) VALUES ('rebuild')")


def upgrade():
    _rebuild_paper(lambda batch: batch.add_column(sa.Column("read_at", sa.DateTime(), nullable=True)))


def downgrade():
    _rebuild_paper(lambda batch: batch.drop_column("read_at"))
'''


def install(folder: Path) -> Path:
    """A copy of migrations/ with the pretend revision on top; returns the copy."""
    target = folder / "migrations"
    shutil.copytree(migrations_dir(), target, ignore=shutil.ignore_patterns("__pycache__"))
    down = schema.head_revision()
    (target / "versions" / f"{FUTURE_REVISION}.py").write_text(
        _MIGRATION.format(revision=FUTURE_REVISION, down=down), encoding="utf-8")
    return target


def patch(monkeypatch, migrations: Path) -> None:
    monkeypatch.setattr(schema, "migrations_dir", lambda: migrations)
    monkeypatch.setattr(schema, "SCHEMA_REVISION", FUTURE_REVISION)


def prelude(migrations: Path) -> str:
    """Python source that makes a fresh interpreter use the copy; then call catalog's main."""
    return (
        "import pathlib, catalog.store.schema as m\n"
        f"m.migrations_dir = lambda: pathlib.Path({str(migrations)!r})\n"
        f"m.SCHEMA_REVISION = {FUTURE_REVISION!r}\n"
        "from catalog.cli import main\n"
    )
