"""A paper as the library hands it out: a row of a list, its details, its sources, notes,
files and notices, and the state users change."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import NamedTuple


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
    has_notes: bool = False  # the TUI marks such papers in its list
    # From a search with words: "all" (holds every word, in some form) or "some" (a partial
    # match, listed after the papers holding every word); None when listing.
    match: str | None = None
    # A search that found words on a page of an attached file: its number and a snippet of it
    # (marked as `snippet`); "text" in `match` when only the pages hold every word.
    page: int | None = None
    page_snippet: str | None = None
    has_files: bool = False  # files are attached to it (the TUI marks such papers in its list)
    authors: str = ""  # as lists show them: "Vaswani et al.", "Hinton & Salakhutdinov"
    # Its gravest notice as lists flag it ("retracted", "withdrawn", "corrected"; Notice.flag),
    # None when no service knows of one
    notice: str | None = None

    @property
    def notice_grave(self) -> bool:
        """Whether its flag says the paper's findings should no longer be relied on."""
        return self.notice in GRAVE_FLAGS

    def as_json(self) -> dict:
        return {
            "key": self.key,
            "title": self.title,
            "authors": self.authors,
            "venue": self.venue,
            "year": self.year,
            "status": self.status,
            "rating": self.rating,
            "tags": list(self.tags),
            "notice": self.notice,
        }


@dataclass(frozen=True)
class NoteView:
    id: int
    number: int  # 1-based position among the paper's notes, what users type
    body: str
    created_at: datetime
    updated_at: datetime
    author: str = ""  # who wrote it (on a server the database role; on a file CATALOG_USER, else the login name)


@dataclass(frozen=True)
class SourceRef:
    path: str
    venue: str | None
    year: int | None
    position: int
    evidence: str | None = None  # how this record joined the paper ("same DOI 10.1/x"); None: its own
    format: str | None = None  # "bibtex", "paperlist", ...; a web service's name: "arxiv", "crossref"
    added: str | None = None  # the day it was imported or fetched (YYYY-MM-DD)


@dataclass(frozen=True)
class RecordFields:
    """An imported record as its file wrote it (the kept_record table): the file's format, the
    entry type, the entry's own key (its cite key) and every field in file order, each a
    (name, value) pair or (name, value as written, "bare") for a BibTeX macro value."""

    format: str
    source: str
    position: int
    entry_type: str | None
    cite_key: str | None
    fields: tuple[tuple, ...]

    def values(self, name: str) -> list:
        """The values of a field (RIS repeats tags), names compared without case."""
        return [f[1] for f in self.fields if str(f[0]).lower() == name.lower()]


@dataclass(frozen=True)
class Notice:
    """A notice about a paper: a retraction, withdrawal, correction or expression of concern."""

    kind: str  # Crossref's type: "retraction", "withdrawal", "correction", "expression_of_concern", ...
    doi: str  # the notice's own DOI
    label: str = ""  # as the publisher names it ("Retraction Notice")
    updated: str | None = None  # YYYY-MM-DD

    @property
    def grave(self) -> bool:
        """Whether the paper's findings should no longer be relied on."""
        return self.flag in GRAVE_FLAGS

    @property
    def flag(self) -> str:
        """The word lists mark the paper with: "retracted", "withdrawn", "corrected", ..."""
        return NOTICE_FLAGS.get(self.kind, self.kind.replace("_", " "))

    @property
    def sentence(self) -> str:
        """What exports write in the paper's note: "Retraction Notice of 2020-01-02:
        https://doi.org/10.1/x"."""
        what = self.label or self.kind.replace("_", " ").capitalize()
        return f"{what}{f' of {self.updated}' if self.updated else ''}: https://doi.org/{self.doi}"


# Notice kinds, gravest first, and the word a list flags a paper with (other kinds: their own).
NOTICE_FLAGS = {"retraction": "retracted", "withdrawal": "withdrawn", "removal": "removed",
                "expression_of_concern": "concern", "correction": "corrected", "erratum": "corrected",
                "corrigendum": "corrected", "addendum": "addendum"}


GRAVE_FLAGS = frozenset(NOTICE_FLAGS[k] for k in ("retraction", "withdrawal", "removal", "expression_of_concern"))


def gravest(kinds) -> str | None:
    """The flag of the gravest of these notice kinds (NOTICE_FLAGS' order), None for none."""
    order = list(NOTICE_FLAGS)
    kinds = sorted(set(kinds), key=lambda k: (order.index(k) if k in order else len(order), k))
    return Notice(kinds[0], "").flag if kinds else None


@dataclass(frozen=True)
class SplitResult:
    """What `catalog split` did: the paper that kept its key and annotations, and the new ones."""

    kept: PaperSummary
    split_off: tuple[PaperSummary, ...]
    records: int  # how many records left the paper


def paper_link(url: str | None, doi: str | None, arxiv_id: str | None) -> str | None:
    """The page a paper opens to: its URL, else its DOI, else its arXiv page (exports too)."""
    if url:
        return url
    if doi:
        return f"https://doi.org/{doi}"
    if arxiv_id:
        return f"https://arxiv.org/abs/{arxiv_id}"
    return None


@dataclass(frozen=True)
class AttachmentView:
    """A file attached to a paper (catalog/attachments/attaching.py). `path` as stored: relative to the
    catalog's folder of files when `stored` is 'managed', absolute when 'linked'; `location`
    is where it is on this machine (filled by Catalog), `present` whether a file is there."""

    id: int
    number: int  # 1, 2, ... in the order attached: what `catalog detach KEY N` takes
    name: str
    stored: str  # 'managed' or 'linked'
    path: str
    sha256: str
    size: int
    pages: int | None
    text_state: str | None  # 'text', 'no text', 'encrypted', 'unreadable'; None: not read yet
    added_at: datetime
    added_by: str = ""
    location: str | None = None
    present: bool | None = None

    @property
    def is_pdf(self) -> bool:
        return self.path.lower().endswith(".pdf")

    def as_json(self) -> dict:
        return {"number": self.number, "name": self.name, "stored": self.stored, "path": self.location or self.path,
                "present": self.present, "sha256": self.sha256, "size": self.size, "pages": self.pages,
                "text": self.text_state, "added_at": self.added_at.isoformat(), "added_by": self.added_by}


class Attached(NamedTuple):
    attachment: AttachmentView
    new: bool  # False: the same bytes were attached to the paper before, and this is that


class TextRead(NamedTuple):
    attachment: AttachmentView
    state: str  # what reading gave: 'text', 'no text', 'encrypted', 'unreadable'


class PaperFile(NamedTuple):
    key: str  # the paper's
    attachment: AttachmentView


class FileFound(NamedTuple):
    key: str  # the paper's
    attachment: AttachmentView
    path: Path  # where it was found


class FileRenamed(NamedTuple):
    old: str
    new: str


class PageSnippet(NamedTuple):
    """A page of a paper's files that a search's words are on."""

    page: int  # 1-based
    snippet: str


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
    kind: str | None = None  # catalog/ingest/kinds.py; None: not known
    attachments: tuple[AttachmentView, ...] = ()
    records: tuple[RecordFields, ...] = ()  # every field of each imported record, as written
    pdf_url: str | None = None  # where its full text is, as a web service said (paper_link)
    notices: tuple["Notice", ...] = ()  # retractions, withdrawals, corrections (paper_notice)

    @property
    def link(self) -> str | None:
        return paper_link(self.url, self.doi, self.arxiv_id)

    def as_json(self) -> dict:
        return {
            **self.summary.as_json(),
            "headline": self.headline,
            "user_title": self.user_title,
            "authors": self.authors,
            "doi": self.doi,
            "arxiv_id": self.arxiv_id,
            "url": self.url,
            "kind": self.kind,
            "abstract": self.abstract,
            "notes": [
                {"number": n.number, "body": n.body, "author": n.author, "created_at": n.created_at.isoformat(),
                 "updated_at": n.updated_at.isoformat()}
                for n in self.notes
            ],
            "sources": [s.__dict__ for s in self.sources],
            "attachments": [a.as_json() for a in self.attachments],
            "records": [{"format": r.format, "source": r.source, "position": r.position,
                         "entry_type": r.entry_type, "cite_key": r.cite_key,
                         "fields": [list(f) for f in r.fields]} for r in self.records],
            "pdf_url": self.pdf_url,
            "notices": [n.__dict__ for n in self.notices],
        }


@dataclass(frozen=True)
class PaperState:
    """Everything a user can change on a paper, read at one moment."""

    key: str
    tags: tuple[str, ...]
    status: str
    rating: int | None
    user_title: str | None
    notes: tuple[tuple[int, str], ...]  # (note id, body)
