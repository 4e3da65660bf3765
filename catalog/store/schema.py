"""The catalog's schema history, one for every backend: the revision this program writes, and
Alembic's view of migrations/ (imported only when a file needs migrating or a `catalog db`
command asks). Each backend runs the migrations its own way (sqlite/migrations.py,
postgres/migrations.py)."""

from __future__ import annotations

from catalog.errors import CatalogError
from catalog.resources import migrations_dir

# The newest migration this program knows; a test checks it against migrations/versions.
# Kept here so opening an up-to-date catalog never imports Alembic.
SCHEMA_REVISION = "0018"


def refuse_newer(location, revision: str | None) -> None:
    """One line for a catalog written by a newer version of catalog."""
    if revision is None or revision == SCHEMA_REVISION:
        return
    if revision not in known_revisions():
        raise CatalogError(f"{location} was written by a newer version of catalog (schema {revision}); "
                           "upgrade catalog to open it")


def alembic_config():
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    return config


def _scripts():
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


def head_revision() -> str:
    return _scripts().get_current_head()


def known_revisions() -> set[str]:
    return {rev.revision for rev in _scripts().walk_revisions()}


def history() -> list[tuple[str, str | None, str]]:
    """(revision, down_revision, message), oldest first."""
    revs = [(r.revision, r.down_revision, r.doc or "") for r in _scripts().walk_revisions()]
    return list(reversed(revs))
