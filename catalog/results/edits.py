"""What users change: each change says what it did, so that undo takes back exactly that
(an Edit holds them); and who may change a shared catalog (its members)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from catalog.results.papers import NoteView, PaperSummary


@dataclass(frozen=True)
class TagsChanged:
    key: str
    added: tuple[str, ...]  # only tags the paper did not have
    removed: tuple[str, ...]  # only tags it had


@dataclass(frozen=True)
class FieldChanged:
    key: str
    field: str  # "status", "rating" or "user_title"
    before: str | int | None
    after: str | int | None


@dataclass(frozen=True)
class NoteChanged:
    key: str
    note_id: int
    before: str | None  # None: the note was created
    after: str | None  # None: the note was deleted
    created_at: datetime  # a deleted note comes back in its place
    author: str = ""  # and signed by whoever wrote it


@dataclass(frozen=True)
class SavedSearchChanged:
    name: str
    before: str | None  # the query it had; None: it was created
    after: str | None  # None: it was deleted


@dataclass(frozen=True)
class PaperEdited:
    """A hand edit of a paper's own fields (title, authors, venue, year, DOI, URL): the values
    before and after, and its kept records' fields (source id, position, JSON) before and
    after, which the edit rewrote so that exports write what the user wrote."""

    key: str
    before: tuple[tuple[str, object], ...]
    after: tuple[tuple[str, object], ...]
    kept_before: tuple[tuple[int, int, str], ...] = ()
    kept_after: tuple[tuple[int, int, str], ...] = ()


@dataclass(frozen=True)
class PaperDeleted:
    """A paper deleted (`deleted`), or brought back by an undo (not `deleted`): every row it
    had (store Imports.paper_rows), so the other can be done again."""

    key: str
    rows: tuple
    deleted: bool = True


Change = TagsChanged | FieldChanged | NoteChanged | SavedSearchChanged | PaperEdited | PaperDeleted


@dataclass(frozen=True)
class Edit:
    """What one command did: its changes (for undo), and the papers as they are now."""

    changes: tuple[Change, ...]
    papers: tuple[PaperSummary, ...] = ()
    note: NoteView | None = None  # the note written or deleted, for note commands
    # An undo leaves alone what someone changed since; each entry says what and why.
    conflicts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Members:
    """Who uses a catalog on a server: the role that owns it, its member roles, and you (the
    role this session is)."""

    owner: str
    names: tuple[str, ...]
    you: str
