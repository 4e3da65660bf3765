"""Plain dataclasses the library hands to the CLI and the TUI (never ORM objects)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class PaperSummary:
    key: str
    title: str
    venue: str | None
    year: int | None
    status: str
    rating: int | None
    tags: tuple[str, ...]
    snippet: str | None = None  # with \x02 ... \x03 around matched words

    def as_json(self) -> dict:
        return {
            "key": self.key,
            "title": self.title,
            "venue": self.venue,
            "year": self.year,
            "status": self.status,
            "rating": self.rating,
            "tags": list(self.tags),
        }


@dataclass(frozen=True)
class NoteView:
    id: int
    number: int  # 1-based position among the paper's notes, what users type
    body: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class SourceRef:
    path: str
    venue: str | None
    year: int | None
    position: int


@dataclass(frozen=True)
class PaperDetail:
    summary: PaperSummary
    abstract: str  # as imported
    abstract_text: str  # rendered for display
    headline: str
    title: str | None
    user_title: str | None
    authors: str | None
    doi: str | None
    arxiv_id: str | None
    url: str | None
    notes: tuple[NoteView, ...]
    sources: tuple[SourceRef, ...]

    def as_json(self) -> dict:
        return {
            **self.summary.as_json(),
            "headline": self.headline,
            "user_title": self.user_title,
            "authors": self.authors,
            "doi": self.doi,
            "arxiv_id": self.arxiv_id,
            "url": self.url,
            "abstract": self.abstract,
            "notes": [
                {"number": n.number, "body": n.body, "created_at": n.created_at.isoformat(),
                 "updated_at": n.updated_at.isoformat()}
                for n in self.notes
            ],
            "sources": [s.__dict__ for s in self.sources],
        }


@dataclass
class FileReport:
    path: str
    new: int = 0
    known: int = 0
    error: str | None = None


@dataclass
class ImportReport:
    files: list[FileReport] = field(default_factory=list)

    @property
    def new(self) -> int:
        return sum(f.new for f in self.files)

    @property
    def known(self) -> int:
        return sum(f.known for f in self.files)

    @property
    def errors(self) -> list[FileReport]:
        return [f for f in self.files if f.error]

    def summary(self) -> str:
        return (f"{self.new} new, {self.known} already known, {len(self.errors)} "
                f"{'error' if len(self.errors) == 1 else 'errors'}"
                f" ({len(self.files)} {'file' if len(self.files) == 1 else 'files'})")


@dataclass(frozen=True)
class TagCount:
    name: str
    count: int


@dataclass(frozen=True)
class Stats:
    papers: int
    sources: int
    notes: int
    tags: int
    by_venue: tuple[tuple[str, int | None, int], ...]  # venue, year, papers
    by_status: tuple[tuple[str, int], ...]
    by_rating: tuple[tuple[int | None, int], ...]


@dataclass(frozen=True)
class Facets:
    """Counts for the TUI sidebar, over the whole catalog."""

    venues: tuple[tuple[str, int | None, int], ...]  # venue, year, papers
    tags: tuple[TagCount, ...]
    statuses: tuple[tuple[str, int], ...]
    ratings: tuple[tuple[int, int], ...]
    saved: tuple["SavedQuery", ...]
    total: int


@dataclass(frozen=True)
class SavedQuery:
    name: str
    query: str


@dataclass(frozen=True)
class PaperState:
    """Everything a user can change on a paper: what undo puts back."""

    key: str
    tags: tuple[str, ...]
    status: str
    rating: int | None
    user_title: str | None
    notes: tuple[tuple[int, str], ...]  # (note id, body)
