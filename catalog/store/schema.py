"""The catalog's schema history, one for every backend: the revision this program writes, and
Alembic's view of migrations/ (imported only when a file needs migrating or a `catalog db`
command asks). Each backend runs the migrations its own way (sqlite/migrations.py,
postgres/migrations.py)."""

from __future__ import annotations

from catalog.errors import CatalogError
from catalog.resources import migrations_dir
from catalog.store.rows import Revision

# The newest migration this program knows; a test checks it against migrations/versions.
# Kept here so opening an up-to-date catalog never imports Alembic.
SCHEMA_REVISION = "0021"

# Migrations that leave a SQLite file as it was (PostgreSQL only; a test compares the file's
# schema before and after each). A SQLite catalog behind by these alone is not copied before its
# upgrade: the copy of a million-paper catalog is 6.5 GB and minutes, for a version stamp.
SQLITE_UNCHANGED = frozenset({"0019", "0020", "0021"})

# Every table of papers and what people made of them, for copying a catalog (store/copying.py)
# and keeping a deleted paper's rows (store/imports.py): parents before children, with the
# columns both backends have (not PostgreSQL's generated search_vector, not SQLite's FTS tables).
TABLES = (
    ("source", "id, path, sha256, venue, year, format, imported_at, warnings"),
    ("paper", "id, key, fingerprint, abstract, abstract_text, search_extra, headline, title, user_title,"
              " authors, venue, year, doi, arxiv_id, url, kind, tags_text, notes_text, added_at, updated_at"),
    ("provenance", "paper_id, source_id, position"),
    ("kept_record", "source_id, position, paper_id, entry_type, cite_key, fields"),
    ("citekey", "paper_id, key, generated"),
    ("paper_author", "paper_id, position, name, family, folded, folded_family, folded_short"),
    ("paper_merge", "id, paper_id, source_id, position, evidence, filled, record, merged_at"),
    ("tag", "id, name"),
    ("paper_tag", "paper_id, tag_id"),
    ("note", "id, paper_id, body, author, created_at, updated_at"),
    ("paper_reader", "paper_id, reader, status, rating, updated_at"),
    ("saved_search", "id, name, query, created_at"),
    ("paper_link", "paper_id, rel, url, source_id"),
    ("paper_notice", "paper_id, kind, doi, label, updated, source_id"),
    # What imports learned and discovery numbered: acronyms widen searches, topics keep numbers.
    ("acronym", "short, long_key, long, papers, ordinary"),
    ("acronym_added", "short, long_key, long, added_at"),
    ("topic", "scope, paper_id, number, label, rank"),
)


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


def changes_sqlite(revision: str) -> bool:
    """Whether bringing a SQLite file from `revision` to this program's schema changes it."""
    revisions = [rev.revision for rev in history()]
    later = revisions[revisions.index(revision) + 1:] if revision in revisions else revisions
    return any(rev not in SQLITE_UNCHANGED for rev in later)


def history() -> list[Revision]:
    """Every migration, oldest first."""
    revs = [Revision(r.revision, r.down_revision, r.doc or "") for r in _scripts().walk_revisions()]
    return list(reversed(revs))
