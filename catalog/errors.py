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
