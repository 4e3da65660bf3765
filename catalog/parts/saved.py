"""A catalog's saved searches: a query kept under a name, which the TUI's sidebar lists and
runs. Catalog (library.py) makes one as `catalog.saved`; each change returns an Edit that
Catalog.undo takes back."""

from __future__ import annotations

from catalog import rules
from catalog.parts import changes
from catalog.errors import CatalogError
from catalog.results import Edit, SavedQuery
from catalog.searching.query import parse
from catalog.store import Store


class SavedSearches:
    """One catalog's saved searches; one transaction of the store per call."""

    def __init__(self, store: Store):
        self.store = store

    def save_search(self, name: str, query: str) -> Edit:
        """Save `query` under `name`, replacing the query a search of that name had."""
        name, query = rules.user_line(name), rules.user_line(query)
        if not name:
            raise CatalogError("a saved search needs a name")
        parse(query)  # refuse a query that would only ever give an error
        with self.store.write() as tx:
            return Edit((changes.save_search(tx, name, query),))

    def delete_saved_search(self, name: str) -> Edit:
        with self.store.write() as tx:
            if tx.edits.saved_query(name) is None:
                raise CatalogError(f"no saved search named {name!r}")
            return Edit((changes.save_search(tx, name, None),))

    def saved_searches(self) -> tuple[SavedQuery, ...]:
        with self.store.read() as tx:
            return tx.edits.saved_searches()
