"""The Python half of an import: read each file and prepare its papers for storing.

Reading, fingerprinting, rendering TeX, finding headlines and folding duplicates cost about
40 us of pure Python per paper, as much as SQLite takes to store one. `read(job)` does it
for one file, in batches; catalog/importing/reader.py runs it ahead of the importer, in a worker process
for large imports.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import NamedTuple

from catalog.importing import dedupe
from catalog.text import headlines
from catalog.searching.acronyms import definitions, used_as_words
from catalog.text import tex
from catalog.text.cjk import cjk_search_text
from catalog.ingest.fields import title_key
from catalog.ingest.formats import open_records
from catalog.ingest.mapping import FieldMap
from catalog.ingest.paperlist import PaperList
from catalog.ingest.records import PaperRecord

BATCH = 2000


class Derived(NamedTuple):
    """What an abstract gives its paper row besides itself."""

    rendered: str  # TeX and Markdown as Unicode, for display and search
    headline: str
    math: str  # ASCII spellings of the math, for search


def derive(abstract: str) -> Derived:
    rendered = tex.render(abstract)
    return Derived(rendered, headlines.headline(abstract, rendered=rendered), tex.search_extra(abstract))


class PaperRow(NamedTuple):
    """A new paper's row, but for its key and times (the store's imports.PAPER_COLUMNS)."""

    fingerprint: str
    abstract: str
    abstract_text: str
    search_extra: str
    headline: str
    title: str | None
    authors: str | None
    venue: str | None
    year: int | None
    doi: str | None
    arxiv_id: str | None
    url: str | None
    kind: str | None


def paper_fields(record: PaperRecord, fp: str) -> PaperRow:
    title, derived = record.title, derive(record.abstract) if record.abstract else None
    if title and derived and title_key(title) == title_key(derived.headline):
        title = None  # a derived headline (an export wrote it as the title) is not a real title
    # A record with neither title nor abstract is shown by the headline its fields give
    # (fields.headline_from_fields): derived like a title, stored as no title.
    named = title or (record.extra.get("headline") if not record.abstract else None)
    rendered, headline, extra = derived_text(record.abstract, named, record.authors, derived)
    return PaperRow(fp, record.abstract, rendered, extra, headline, title, record.authors,
                    record.venue, record.year, record.doi, record.arxiv_id, record.url, record.kind)


def derived_text(abstract: str, title: str | None, authors: str | None,
                 derived: Derived | None = None) -> tuple[str, str, str]:
    """(abstract_text, headline, search_extra) of a paper: what its row derives from the abstract
    (and, without one, from the title). docs/schema.md lists them; `catalog doctor` checks them.
    `derived`: derive(abstract), when the caller has it already."""
    if abstract:
        rendered, headline, math = derived or derive(abstract)
    else:
        rendered, headline, math = "", title or "", ""
    return rendered, headline, " ".join(filter(None, (math, cjk_search_text(title, headline, rendered, authors))))


@dataclass(frozen=True)
class Opened:
    """A file whose header (or whole content, for structured formats) has been read."""

    format: str
    venue: str | None
    year: int | None
    warnings: list[str]


@dataclass(frozen=True)
class Batch:
    """Up to BATCH records, folded into distinct papers, each with its would-be row."""

    papers: list[dedupe.Paper]
    fields: list[PaperRow]  # paper_fields() of each paper
    records: int  # how many records went in, for progress
    # (short form, long form) pairs each paper's abstract defines (catalog/searching/acronyms.py)
    acronyms: list[list[tuple[str, str]]] = field(default_factory=list)
    # Per paper (its index) the short forms defined in this batch that its abstract uses as
    # ordinary lowercase words (acronyms.used_as_words), looked for here, in the reader's
    # worker: splitting every abstract into words was a twentieth of the importer's own time.
    # None: not looked for (the importer looks).
    ordinary: dict[int, set[str]] | None = None
    # Warnings of a streamed file (JSON Lines) found while reading these records; a file's
    # last batch may hold only warnings (those said at its end).
    warnings: list[str] = field(default_factory=list)


# Acronyms are looked for in every paper of a file that fits one batch, and in one paper in
# ACRONYM_SAMPLE of larger files (chosen by fingerprint): finding them costs about as much as
# the rest of preparing a paper, and the pairs that matter, defined by several papers, are
# still found in a sample of a large import.
ACRONYM_SAMPLE = 32


def prepare_batch(records: list[PaperRecord], *, whole_file: bool = True) -> Batch:
    """`whole_file`: the batch holds all of its file (acronyms are looked for in every paper)."""
    papers = dedupe.group(records)
    fields = [paper_fields(p.record, p.fp) for p in papers]
    defined = [definitions(row.abstract_text) if whole_file or int(p.fp[:8], 16) % ACRONYM_SAMPLE == 0 else []
               for p, row in zip(papers, fields)]
    return Batch(papers, fields, len(records), defined, _ordinary(defined, [row.abstract_text for row in fields]))


def _ordinary(defined: list[list[tuple[str, str]]], texts: list[str]) -> dict[int, set[str]]:
    """Batch.ordinary: the batch's words split once (as the importer did), then only the
    papers holding one of the few short forms found among them looked at one by one."""
    shorts = {short.lower() for found in defined for short, _ in found}
    anywhere = used_as_words(shorts, texts) if shorts else set()
    out = {}
    for i, text in enumerate(texts if anywhere else ()):
        if any(word in text for word in anywhere) and (used := used_as_words(anywhere, (text,))):
            out[i] = used
    return out


@dataclass(frozen=True)
class Job:
    path: Path
    venue: str | None = None
    year: int | None = None
    field_map: FieldMap | None = None


def read(job: Job) -> Iterator[Opened | Batch]:
    """A file's Opened, then its batches; reading errors (IngestError, OSError) are raised.
    A streamed file's warnings come with the batch whose reading found them."""
    with open_records(job.path, venue=job.venue, year=job.year, field_map=job.field_map) as found:
        fmt = "paperlist" if isinstance(found, PaperList) else found.format
        warnings = [] if isinstance(found, PaperList) else found.warnings
        said = len(warnings)
        yield Opened(fmt, found.venue, found.year, list(warnings))
        records = iter(found.records)
        chunk = list(islice(records, BATCH))
        whole = len(chunk) < BATCH
        while chunk:
            batch = prepare_batch(chunk, whole_file=whole)
            chunk = list(islice(records, BATCH))  # read ahead: a file's closing warnings come with its last batch
            batch.warnings.extend(warnings[said:])
            said = len(warnings)
            yield batch
        if len(warnings) > said:
            yield Batch([], [], 0, warnings=warnings[said:])
