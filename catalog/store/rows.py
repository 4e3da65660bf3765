"""Rows to the dataclasses of catalog/results/, always by column name; the store's own named
results (what the role objects return besides those); the summary columns both backends read;
and the helper that splits long `IN (...)` lists (SQLite allows a limited number of parameters
per statement)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from catalog.ingest.people import short as short_authors
from catalog.results import AttachmentView, Notice, NoteView, PaperSummary, RecordFields, SourceRef

if TYPE_CHECKING:
    from catalog.results import ExportPaper

CHUNK = 500
# A paper's summary (rows.summary reads it), with this reader's status and rating: the
# parameter of READER_JOIN is the reader.
SUMMARY_COLUMNS = (
    "p.id, p.key, coalesce(p.user_title, p.title, p.headline) AS title, p.venue, p.year, "
    "coalesce(r.status, 'unread') AS status, r.rating, p.tags_text, p.notes_text != '' AS has_notes, p.authors"
)
READER_JOIN = "LEFT JOIN paper_reader r ON r.paper_id = p.id AND r.reader = ?"


def as_datetime(value) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def chunks(values: Sequence, size: int = CHUNK) -> Iterator[tuple[tuple, str]]:
    """(values, "?,?,...") for each slice of at most `size` values."""
    values = list(values)
    for start in range(0, len(values), size):
        part = tuple(values[start:start + size])
        yield part, ",".join("?" * len(part))


def summary(row, match: str | None = None) -> PaperSummary:
    """From SUMMARY_COLUMNS: key, title (the shown one), venue, year, status, rating, tags_text,
    has_notes and authors (optional: a query that leaves them out says no, and none)."""
    try:
        has_notes = bool(row["has_notes"])
        authors = short_authors(row["authors"])
    except (IndexError, KeyError):
        has_notes, authors = False, ""
    return PaperSummary(key=row["key"], title=row["title"], venue=row["venue"], year=row["year"],
                        status=row["status"], rating=row["rating"], tags=tuple(row["tags_text"].split()),
                        has_notes=has_notes, match=match, authors=authors)


def note(row, number: int) -> NoteView:
    return NoteView(id=row["id"], number=number, body=row["body"],
                    created_at=as_datetime(row["created_at"]), updated_at=as_datetime(row["updated_at"]),
                    author=row["author"])


def notice(row) -> Notice:
    return Notice(kind=row["kind"], doi=row["doi"], label=row["label"], updated=row["updated"])


ATTACHMENT_COLUMNS = "a.id, a.paper_id, a.stored, a.path, a.name, a.sha256, a.size, a.pages, a.text_state, a.added_by, a.added_at"


def attachment(row, number: int) -> AttachmentView:
    """From ATTACHMENT_COLUMNS."""
    return AttachmentView(id=row["id"], number=number, name=row["name"], stored=row["stored"], path=row["path"],
                          sha256=row["sha256"], size=row["size"], pages=row["pages"], text_state=row["text_state"],
                          added_at=as_datetime(row["added_at"]), added_by=row["added_by"])


def source(row) -> SourceRef:
    return SourceRef(path=row["path"], venue=row["venue"], year=row["year"], position=row["position"],
                     evidence=row["evidence"], format=row["format"],
                     added=as_datetime(row["imported_at"]).date().isoformat())


def record_fields(row) -> RecordFields:
    import json

    return RecordFields(format=row["format"], source=row["path"], position=row["position"],
                        entry_type=row["entry_type"], cite_key=row["cite_key"],
                        fields=tuple(tuple(f) for f in json.loads(row["fields"])))


def export_paper(row, tags: Sequence[str], notes: Sequence[str], records: Sequence[RecordFields] = ()) -> ExportPaper:
    from catalog.results import ExportPaper  # exports' results: loaded by an export, not by every read

    return ExportPaper(
        key=row["key"], fingerprint=row["fingerprint"], title=row["title"], headline=row["headline"],
        user_title=row["user_title"], authors=row["authors"], venue=row["venue"], year=row["year"],
        status=row["status"], rating=row["rating"], tags=tuple(tags), notes=tuple(notes),
        doi=row["doi"], arxiv_id=row["arxiv_id"], url=row["url"], abstract=row["abstract"],
        added_at=as_datetime(row["added_at"]), kind=row["kind"], records=tuple(records),
        cite_key=row["cite_key"])


# --- the store's named results -----------------------------------------------------------

@dataclass(frozen=True)
class MergeRecord:
    """A record that joined a paper at an import (what `catalog split` undoes)."""

    id: int
    source_id: int
    position: int
    evidence: str
    filled: str  # the paper's fields it filled, space-separated
    record: str  # the record as JSON


@dataclass(frozen=True)
class PaperFacts:
    """What deduplication and PDF matching compare of a catalog paper (imports.py's
    FACT_COLUMNS)."""

    id: int
    key: str
    title: str | None
    year: int | None
    authors: str | None
    url: str | None
    doi: str | None
    arxiv_id: str | None
    abstract: str | None


def paper_facts(row) -> PaperFacts:
    return PaperFacts(id=row["id"], key=row["key"], title=row["title"], year=row["year"],
                      authors=row["authors"], url=row["url"], doi=row["doi"], arxiv_id=row["arxiv_id"],
                      abstract=row["abstract"])


@dataclass(frozen=True)
class AcronymRow:
    """An acronym the abstracts define, with how many papers define it so."""

    short: str
    long_key: str  # the long form as compared
    long: str  # the long form as written
    papers: int
    ordinary: bool  # texts also use the short form as an ordinary word: never expanded


@dataclass(frozen=True)
class ListProblems:
    """What doctor finds wrong with the ranked lists: those searches cannot read (not ranked
    yet, or too far behind the index to follow), those whose head is not the full ranking's,
    and `choose_at`: the size of a catalog big enough for lists whose frequent words are not
    chosen yet (none ever, or it grew or shrank by a quarter since), else None."""

    stale: list[str]
    differing: list[str]
    choose_at: int | None = None


class TagOnPaper(NamedTuple):
    """A paper carrying a tag (Edits.tags_on_papers)."""

    paper_id: int
    key: str
    name: str  # the tag as stored


class WordPapers(NamedTuple):
    """A word of a search as typed, and how many papers hold it (up to a bound)."""

    word: str
    papers: int  # hold it, in any form
    apart: int  # a compound (`weight-based`): hold its words, but not as one phrase


class PageHit(NamedTuple):
    """A page of an attached file that a search's words are on (Search.pages)."""

    paper_id: int
    attachment_id: int
    page: int  # 1-based
    text: str
    score: float  # lower is better


class SchemaObject(NamedTuple):
    kind: str  # table, index, view, trigger
    name: str
    sql: str


class DanglingRow(NamedTuple):
    table: str
    rowid: int | None
    parent: str


class TableRows(NamedTuple):
    """One table's rows of a paper (`paper_rows`), with the columns they hold."""

    table: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]


def row_value(found: Sequence[TableRows], table: str, column: str):
    """A column of the first row of `table` in what `paper_rows` read."""
    part = next(t for t in found if t.table == table)
    return part.rows[0][part.columns.index(column)]


class KnownSource(NamedTuple):
    """A file imported before (Imports.source_with)."""

    id: int
    warnings: str | None  # what its reading said, as stored


class Revision(NamedTuple):
    """A migration of the schema."""

    revision: str
    parent: str | None  # the revision it follows
    message: str


class WordCount(NamedTuple):
    word: str
    papers: int  # hold it


class PaperKey(NamedTuple):
    paper_id: int
    key: str


class KeyedAttachment(NamedTuple):
    key: str  # the paper's
    attachment: AttachmentView


class FileCounts(NamedTuple):
    with_pdf: int  # papers with a PDF attached
    with_files: int  # papers with any file attached


class TextVersion(NamedTuple):
    """What the discovery cache was built from (Discovery.text_version)."""

    papers: int
    max_id: int
    stamp: str  # changes when a known paper's text may have


class PaperText(NamedTuple):
    paper_id: int
    title: str  # the user's or the real one
    abstract: str  # rendered


class TopicSize(NamedTuple):
    number: int
    label: str
    papers: int


class Setting(NamedTuple):
    name: str
    value: str


class KeptRow(NamedTuple):
    """A record kept for a paper (Imports.kept_rows)."""

    source_id: int
    position: int
    format: str  # of its file
    fields: str  # JSON, as stored


class ValueOwner(NamedTuple):
    """A paper that holds a DOI, arXiv id or fingerprint (Imports.papers_with_values)."""

    value: str
    paper_id: int


class Place(NamedTuple):
    """Where a record of a paper came from: its file and its position there."""

    source_id: int
    position: int


class DerivedRow(NamedTuple):
    """What a paper's derived text is checked against (Imports.derived_rows): its own fields,
    and the text and fingerprint derived from them last."""

    id: int
    abstract: str | None
    title: str | None
    authors: str | None
    doi: str | None
    arxiv_id: str | None
    fingerprint: str
    abstract_text: str | None
    headline: str | None
    search_extra: str | None
