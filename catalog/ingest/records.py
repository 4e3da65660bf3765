"""Plain records every input format produces; the library turns them into rows."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple


class Kept(NamedTuple):
    """A record as its file wrote it, kept whole so nothing a user imported is lost and an
    export in the same format can write it back: the entry type (BibTeX `article`, RIS `JOUR`,
    CSL `type`), the entry's own key (BibTeX's cite key, RIS `ID`, CSL `id`) and every field
    in file order as (name, value) pairs; a BibTeX value that was a macro or a concatenation
    (`jan # "~1"`) is a triple (name, value as written, "bare")."""

    entry_type: str | None
    cite_key: str | None
    fields: list
    keywords: tuple[str, ...] = ()  # its keywords or tags (Zotero's), which become tags


@dataclass(slots=True)
class PaperRecord:
    """One paper as read from a file, before deduplication."""

    abstract: str
    position: int  # 1-based index of the paper within its file
    line: int  # 1-based line where the paper starts in its file
    venue: str | None = None
    year: int | None = None
    title: str | None = None
    authors: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    url: str | None = None
    extra: dict[str, str] = field(default_factory=dict)
    kind: str | None = None  # catalog/ingest/kinds.py: article, conference, ...; None: not known
    kept: Kept | None = None  # the record's fields as written (paper lists have none)

    def __reduce__(self):
        # Records travel to and from the import worker (catalog/importing/reader.py) by the
        # thousand; the default pickling of a slots dataclass is several times slower.
        return PaperRecord, (self.abstract, self.position, self.line, self.venue, self.year,
                             self.title, self.authors, self.doi, self.arxiv_id, self.url, self.extra,
                             self.kind, self.kept)


def skipped(name: str, line: int, why: object) -> str:
    """The warning for a paper left out of an import: where, why, and that it was skipped."""
    return f"{name}:{line}: {why}; skipped"


def first_reason(name: str, warnings: list[str]) -> str:
    """The first warning as the reason a whole file failed: "line 3: item 2 has no title"."""
    line, _, why = warnings[0].removeprefix(f"{name}:").partition(": ")
    return f"line {line}: {why.removesuffix('; skipped')}"


class IngestError(Exception):
    """A file cannot be imported; the message says where and what was expected."""

    def __init__(self, path: str, message: str, line: int | None = None):
        self.path = path
        self.line = line
        self.message = message
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")

    def __reduce__(self):  # raised in the import worker, reported by the importer
        return IngestError, (self.path, self.message, self.line)


@dataclass
class RecordFile:
    """A structured file (BibTeX, JSON, CSV) read whole: its good entries, and a warning for
    each bad one (`refs.bib:42: entry 'foo2020' has no title or abstract`)."""

    format: str
    records: list[PaperRecord]
    warnings: list[str] = field(default_factory=list)
    venue: str | None = None
    year: int | None = None

    def close(self) -> None:
        pass

    def __enter__(self) -> "RecordFile":
        return self

    def __exit__(self, *exc: object) -> None:
        pass


@dataclass
class RecordStream:
    """A structured file read as it is imported (JSON Lines): its entries come one at a time,
    and `warnings` grows as they do (catalog/importing/prepare.py hands each batch the new
    ones). Iterating may raise IngestError at any point, up to the end (a file with no
    usable entry at all fails there): the importer then keeps nothing of the file."""

    format: str
    records: Iterator[PaperRecord]
    warnings: list[str] = field(default_factory=list)
    venue: str | None = None
    year: int | None = None

    def close(self) -> None:
        close = getattr(self.records, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "RecordStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
