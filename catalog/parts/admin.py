"""Looking after a catalog as a whole: backups and copies, read-only SQL, its schema
revision, and who may use a shared one. Catalog (library.py) makes one as `catalog.admin`;
the work itself is the store's (catalog/store/)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from time import monotonic

from catalog.errors import CatalogError, Interrupted
from catalog.results import Members
from catalog.store import Store, copy_catalog, open_store

Notify = Callable[[str], None]
Stop = Callable[[], bool]


class Admin:
    """One catalog's backups, copies, SQL and members; one step of the store each."""

    def __init__(self, store: Store):
        self.store = store

    def backup(self, target: Path, *, force: bool = False) -> Path:
        """A consistent copy, safe while the TUI has the catalog open (into a folder: under
        the catalog's name). Written as catalog/export/filewriter.py writes any file: never over
        this catalog or anything but a regular file, over an existing file only with `force`."""
        from catalog.errors import StoreError
        from catalog.export import filewriter as files

        target = Path(target)
        if target.is_dir():
            target = target / (self.store.path.name if self.store.path else "catalog.db")
        try:
            with files.replacing(target, force=force, protected=files.database_files(self.store.path)) as temporary:
                self.store.backup(temporary)
        except StoreError as exc:
            raise CatalogError(f"cannot back up to {target}: {exc}") from None
        return target

    def copy_to(self, location, *, notify: Notify = lambda m: None) -> dict[str, int]:
        """Copy the whole catalog (papers, tags, notes, everyone's marks, saved searches) into
        a new catalog at `location` (a file or a postgresql:// URL; created, or an empty
        database); rows copied per table. Keys stay the same."""
        target = open_store(location, notify=notify)
        try:
            if target.location == self.store.location:
                raise CatalogError(f"{target.location} is this catalog; copy it somewhere else")
            counts = copy_catalog(self.store, target)
            # What an import leaves behind: the backend's upkeep after a large load, and the
            # discovery cache built in the background (catalog/discover/refresher.py).
            target.imported(counts.get("paper", 0))
            from catalog.discover import related

            related.refresh_after_import(target, background=True)
            return counts
        finally:
            target.close()

    # --- SQL and schema --------------------------------------------------------------------

    def run_sql(self, statement: str, *, timeout: float | None = None,
                cancelled: Stop | None = None) -> tuple[list[str], list[tuple]]:
        """Run one read-only statement; writes, ATTACH and extensions are refused. It stops
        after `timeout` seconds (CatalogError), or once `cancelled()` is true (Interrupted). A
        server stops it at `timeout` by itself too (statement_timeout)."""
        deadline = None if not timeout else monotonic() + timeout
        late = lambda: deadline is not None and monotonic() > deadline  # noqa: E731
        try:
            return self.store.run_sql(statement, stop=lambda: late() or bool(cancelled and cancelled()),
                                      timeout=timeout)
        except Interrupted:
            if cancelled and cancelled():
                raise
            raise CatalogError(f"stopped after {timeout:g} s (--timeout SECONDS allows longer)") from None

    def schema_revision(self) -> str | None:
        return self.store.schema_revision()

    # --- sharing: who may use a catalog on a server (docs/sharing.md) ---------------------------

    def members(self) -> Members:
        return self._sharing().members()

    def add_member(self, role: str) -> bool:
        """Let the database role `role` use this catalog (the owner's to do); False when it could."""
        return self._sharing().add(role)

    def remove_member(self, role: str) -> bool:
        """Take `role`'s access away; its marks and notes stay. False when it had none."""
        return self._sharing().remove(role)

    def _sharing(self):
        if self.store.sharing is None:
            raise CatalogError(f"{self.store.location} is a catalog file, one person's: a catalog is shared on a "
                               "PostgreSQL server (docs/sharing.md)")
        return self.store.sharing
