"""The papers role (`tx.papers`): reading papers by key, as summaries, details and export
records, and overviews."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from catalog.results import (
    AttachmentView, AuthorCount, Notice, NoteView, PaperDetail, PaperState, PaperSummary,
    RatingCount, RecordFields, StatusCount, TagCount, VenueCount,
)
from catalog.store.base.role import Role
from catalog.store.rows import FileCounts, KeyedAttachment, PaperKey

if TYPE_CHECKING:  # exports' results: loaded by an export, not by every read
    from catalog.results import ExportPaper


class Papers(Role):
    """Reading papers: by key, as summaries, details and export records, and overviews."""

    @abstractmethod
    def paper_id(self, key: str) -> int | None: ...

    @abstractmethod
    def keys_starting(self, prefix: str, limit: int) -> list[PaperKey]:
        """The papers whose key starts with `prefix`, in key order."""

    @abstractmethod
    def ids_with_doi(self, doi: str) -> list[int]: ...

    @abstractmethod
    def ids_with_arxiv_id(self, arxiv_id: str) -> list[int]: ...

    @abstractmethod
    def all_keys(self) -> list[str]: ...

    @abstractmethod
    def key_of(self, paper_id: int) -> str: ...

    @abstractmethod
    def keys_of(self, ids: Sequence[int]) -> dict[int, str]:
        """Paper id -> key, for the ids that still exist."""

    @abstractmethod
    def summaries(self, ids: Sequence[int]) -> list[PaperSummary]:
        """PaperSummary of each of these papers, in the order of `ids`."""

    @abstractmethod
    def detail(self, paper_id: int) -> PaperDetail: ...

    @abstractmethod
    def notes_of(self, paper_id: int) -> tuple[NoteView, ...]: ...

    @abstractmethod
    def attachments_of(self, paper_id: int) -> tuple[AttachmentView, ...]:
        """The paper's AttachmentViews, numbered in the order attached."""

    @abstractmethod
    def with_files(self, ids: Sequence[int]) -> set[int]:
        """Those of these papers that have attached files."""

    @abstractmethod
    def notices_of(self, ids: Sequence[int]) -> dict[int, tuple[Notice, ...]]:
        """The Notices (retractions, withdrawals, corrections) of those of these papers that
        have any, by paper id, oldest first."""

    @abstractmethod
    def papers_with_file(self, sha256: str) -> list[int]:
        """Ids of the papers a file with these bytes is attached to."""

    @abstractmethod
    def every_attachment(self) -> list[KeyedAttachment]:
        """Every attachment with its paper's key (doctor's check of the files)."""

    @abstractmethod
    def paper_state(self, paper_id: int) -> PaperState: ...

    @abstractmethod
    def tags_by_key(self, keys: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The tags of those of these papers (by exact key) still in the catalog."""

    @abstractmethod
    def export_papers(self, ids: Sequence[int]) -> list[ExportPaper]: ...

    @abstractmethod
    def author_counts(self, ids: Sequence[int] | None, limit: int | None) -> list[AuthorCount]:
        """AuthorCount of the people with most papers, among these papers (all for None);
        every person for `limit` None."""

    @abstractmethod
    def file_counts(self) -> FileCounts:
        """How many papers have a PDF attached, and how many any file."""

    @abstractmethod
    def ids_with_citekey(self, key: str) -> list[int]:
        """Papers cited by this key (without case): their own, or a key a record of theirs had."""

    @abstractmethod
    def kept_records(self, ids: Sequence[int]) -> dict[int, list[RecordFields]]:
        """RecordFields of each of these papers' imported records, oldest first, by paper id."""

    @abstractmethod
    def paper_count(self) -> int: ...

    @abstractmethod
    def tag_counts(self) -> list[TagCount]: ...

    @abstractmethod
    def tags_with_children(self, within: tuple[str, list] | None = None) -> tuple[TagCount, ...]: ...

    @abstractmethod
    def venue_counts(self) -> tuple[VenueCount, ...]: ...

    @abstractmethod
    def status_counts(self, total: int) -> tuple[StatusCount, ...]: ...

    @abstractmethod
    def rating_counts(self) -> tuple[RatingCount, ...]: ...

    @abstractmethod
    def year_counts(self, ids: Sequence[int]) -> dict[int, int]:
        """Papers per year among these (without a year: left out)."""

    @abstractmethod
    def read_times(self) -> list[datetime]:
        """When this reader marked each paper it has read (oldest first)."""

    @abstractmethod
    def row_counts(self) -> dict[str, int]: ...
