"""The edits role (`tx.edits`): what users write: tags, marks, titles, notes, saved searches,
annotations, attachments, added acronyms; papers deleted and brought back."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime

from catalog.results import AddedAcronym, SavedQuery
from catalog.store.base.role import Role
from catalog.store.rows import TableRows, TagOnPaper


class Edits(Role):
    """What users write: tags, status, rating and their own title, notes, saved searches; and
    the annotations file's view of them."""

    @abstractmethod
    def tags_of(self, paper_id: int) -> list[str]: ...

    @abstractmethod
    def add_tag(self, paper_id: int, name: str) -> bool:
        """Tag the paper; whether it was not tagged so before."""

    @abstractmethod
    def remove_tag(self, paper_id: int, name: str) -> None: ...

    @abstractmethod
    def drop_unused_tags(self) -> None: ...

    @abstractmethod
    def tags_on_papers(self, names: Sequence[str]) -> list[TagOnPaper]:
        """A TagOnPaper (store/rows.py) for each paper carrying one of these tags (by name,
        without case), by paper id."""

    @abstractmethod
    def rename_tags(self, renames: Sequence[tuple[str, str | None]]) -> None:
        """Rename each tag (old, new) on every paper at once, or take it off them (new None);
        into a tag that exists, the two become one. The papers are touched. Set-based: a
        paper's text is indexed again once per tag it changes, by the triggers, with no
        statement per paper."""

    @abstractmethod
    def change_tags(self, adds: Sequence[tuple[int, str]], removes: Sequence[tuple[int, str]]) -> None:
        """Tag and untag many papers at once: each (paper id, tag name) of `adds` added (the tag
        made if new), each of `removes` taken off. The papers are touched, and each one's text
        is indexed again once, however many of its tags change (an undo of a rename on 5,000
        papers re-indexed 12,000 times, once per tag row). The caller knows the tags: adds are
        not on their paper yet, removes are."""

    @abstractmethod
    def user_field(self, paper_id: int, field: str) -> str | int | None: ...

    @abstractmethod
    def set_user_field(self, paper_id: int, field: str, value) -> None: ...

    @abstractmethod
    def touch(self, paper_id: int) -> None: ...

    @abstractmethod
    def add_note(self, paper_id: int, body: str, created: datetime,
                 updated: datetime | None = None, *, author: str | None = None) -> int: ...

    @abstractmethod
    def note_body(self, note_id: int) -> str | None: ...

    @abstractmethod
    def set_note(self, note_id: int, body: str) -> None: ...

    @abstractmethod
    def delete_note(self, note_id: int) -> None: ...

    @abstractmethod
    def note_bodies(self, paper_id: int) -> list[str]: ...

    @abstractmethod
    def add_attachment(self, paper_id: int, *, stored: str, path: str, name: str, sha256: str, size: int,
                       added_at: datetime) -> int | None:
        """Attach a file; None when the paper has these bytes (`sha256`) attached already."""

    @abstractmethod
    def attachment_with(self, paper_id: int, sha256: str) -> int | None:
        """The id of the paper's attachment with these bytes, if any."""

    @abstractmethod
    def remove_attachment(self, attachment_id: int) -> None:
        """Detach (CatalogError for another member's on a server: row-level security)."""

    @abstractmethod
    def move_attachment(self, attachment_id: int, path: str) -> None:
        """The file is now at `path` (renamed in the folder of files, or found elsewhere)."""

    @abstractmethod
    def saved_searches(self) -> tuple[SavedQuery, ...]: ...

    @abstractmethod
    def saved_query(self, name: str) -> str | None: ...

    @abstractmethod
    def save_query(self, name: str, query: str | None) -> None: ...

    @abstractmethod
    def added_acronyms(self) -> list[AddedAcronym]:
        """The AddedAcronyms users added, by short form."""

    @abstractmethod
    def add_acronym(self, short: str, long_key: str, long: str) -> bool:
        """Whether it is new (adding it again changes nothing)."""

    @abstractmethod
    def remove_acronyms(self, short: str, long_key: str | None = None) -> int:
        """Remove a short form's added long forms (all, or the one of `long_key`); how many."""

    @abstractmethod
    def annotated_papers(self) -> list[dict]: ...

    @abstractmethod
    def paper_with(self, column: str, value) -> int | None: ...

    @abstractmethod
    def fingerprint_of(self, paper_id: int) -> str: ...

    # --- deleting a paper, and bringing it back (undo) ----------------------------------------

    @abstractmethod
    def paper_rows(self, paper_id: int) -> tuple[TableRows, ...]:
        """Every row of the paper, for `restore_paper`: (table, columns, rows) parents first."""

    @abstractmethod
    def delete_paper(self, paper_id: int) -> None: ...

    @abstractmethod
    def restore_paper(self, rows) -> None: ...
