"""Errors the user can act on. The CLI prints each as one line; the TUI as a notification."""

from __future__ import annotations


class CatalogError(Exception):
    """Something the user can fix or should know: a bad key, a file that is not a catalog."""


class Interrupted(Exception):
    """A statement stopped before it finished because it was told to (a newer search, Ctrl-C)."""


class StoreError(Exception):
    """The database itself failed (locked for longer than the busy timeout, a full disk, a
    damaged page); the message is the database's own."""


class TooFewPositives(CatalogError):
    """`recommend` has fewer than two papers to learn from (no tag, or one paper tagged):
    triage catches it to keep its own order until the user has said enough."""


class NoCatalog(CatalogError):
    """A command that only reads was given a file that does not exist (or is empty): a typo in
    --db or $CATALOG_DB must not leave a new, empty catalog behind."""

    def __init__(self, path) -> None:
        import shlex

        super().__init__(f"no catalog at {path}; import papers into it first: "
                         f"catalog --db {shlex.quote(str(path))} import FILE")
        self.path = path
