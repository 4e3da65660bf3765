"""Deleting papers, and bringing them back. A paper goes with everything that is its own (its
records and where they came from, tags, notes, marks, links, its cite key); the files it came
from stay imported, so importing them again does not bring it back (undo does). A paper with
attached files is refused: detach them first (`catalog detach`), as the files themselves
would stay behind. On a server only the catalog's owner deletes papers (a member would take
everyone's marks and notes along: docs/sharing.md). Each deletion is a results.PaperDeleted
that `Catalog.undo` takes back, with the same key, tags, notes and marks. Reached as
`catalog.deleting`."""

from __future__ import annotations

from collections.abc import Sequence

from catalog.errors import CatalogError
from catalog.results import Edit, PaperDeleted



class Deleting:
    def __init__(self, catalog):  # the Catalog (not imported: it imports this part)
        self.catalog = catalog

    def delete(self, keys: Sequence[str]) -> Edit:
        """Delete these papers (all or none)."""
        from catalog.searching.lookup import resolve_key

        if not keys:
            raise CatalogError("name the papers to delete by key")
        with self.catalog.store.write() as tx:
            ids = list(dict.fromkeys(resolve_key(tx, k) for k in keys))
            with_files = [tx.papers.key_of(pid) for pid in tx.papers.with_files(ids)]
            if with_files:
                raise CatalogError(f"{', '.join(sorted(with_files))} {'has' if len(with_files) == 1 else 'have'} "
                                   "attached files: detach them first (catalog detach KEY), then delete")
            done = [_delete(tx, pid) for pid in ids]
        self.catalog.citing.keep_current()
        return Edit(tuple(done))


def _delete(tx, pid: int) -> PaperDeleted:
    change = PaperDeleted(tx.papers.key_of(pid), tx.edits.paper_rows(pid))
    tx.edits.delete_paper(pid)
    return change


def revert(tx, pid: int | None, change: PaperDeleted) -> tuple[PaperDeleted | None, str | None]:
    """Bring a deleted paper back (or, undoing that, delete it again)."""
    if not change.deleted:
        return (_delete(tx, pid), None) if pid is not None else (None, None)
    if tx.papers.paper_id(change.key) is not None:
        return None, f"paper {change.key} is in the catalog again: left as is"
    from catalog.store.rows import row_value

    fingerprint = row_value(change.rows, "paper", "fingerprint")
    if tx.imports.fingerprint_taken(fingerprint):
        return None, f"paper {change.key} was imported again since, under another key: not brought back"
    tx.edits.restore_paper(change.rows)
    return PaperDeleted(change.key, change.rows, deleted=False), None
