"""What imports, exports and the annotations file report, and a paper as exports write it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from catalog.results.papers import Notice, RecordFields, paper_link


@dataclass
class FileReport:
    path: str
    new: int = 0
    known: int = 0
    error: str | None = None
    merged: int = 0  # known papers that gained fields (a title, authors, a DOI) from this file
    folded: int = 0  # entries that were the same paper as an entry above them in the file
    # Entries skipped, each with file and line: "refs.bib:42: entry 'foo2020' has no title or abstract"
    warnings: list[str] = field(default_factory=list)
    # Each merge, with file, line and evidence: "refs.bib:90: merged with the entry at line 12
    # (same DOI 10.1000/x)", "refs.bib:7: already in the catalog as k3x9q2m (same abstract)"
    merges: list[str] = field(default_factory=list)
    # The warnings the first import of these same bytes gave (the file is unchanged): said
    # once then, listed again only on request (`catalog import -v`)
    said_before: list[str] = field(default_factory=list)


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
    def merged(self) -> int:
        return sum(f.merged for f in self.files)

    @property
    def folded(self) -> int:
        return sum(f.folded for f in self.files)

    @property
    def merges(self) -> list[str]:
        return [m for f in self.files for m in f.merges]

    @property
    def errors(self) -> list[FileReport]:
        return [f for f in self.files if f.error]

    @property
    def warnings(self) -> list[str]:
        return [w for f in self.files for w in f.warnings]

    @property
    def said_before(self) -> list[str]:
        return [w for f in self.files for w in f.said_before]

    def summary(self, *, verbose: bool = False) -> str:
        """`12 new, 3 already known (2 updated), 5 merged with an entry above, 0 errors (1 file)`;
        without `verbose`, a pointer to --verbose when something merged."""
        known = f"{self.known} already known" + (f" ({self.merged} updated)" if self.merged else "")
        if self.folded:
            known += f", {self.folded} merged with an entry above"
        skipped = len(self.warnings)
        return (f"{self.new} new, {known}, {len(self.errors)} "
                f"{'error' if len(self.errors) == 1 else 'errors'}"
                + (f", {skipped} {'warning' if skipped == 1 else 'warnings'}" if skipped else "")
                + f" ({len(self.files)} {'file' if len(self.files) == 1 else 'files'})"
                + ("; --verbose lists each merge" if self.merges and not verbose else ""))


@dataclass(frozen=True)
class ExportPaper:
    """Everything an export writes about one paper."""

    key: str
    fingerprint: str
    title: str | None  # the paper's real title, when a source knew it
    headline: str  # derived from the abstract
    user_title: str | None
    authors: str | None  # "First Last, First Last"
    venue: str | None
    year: int | None
    status: str
    rating: int | None
    tags: tuple[str, ...]
    notes: tuple[str, ...]
    doi: str | None
    arxiv_id: str | None
    url: str | None
    abstract: str
    added_at: datetime
    kind: str | None = None  # catalog/ingest/kinds.py; None: not known (exports write what they always did)
    records: tuple[RecordFields, ...] = ()  # its imported records as written, oldest first
    cite_key: str | None = None  # the key exports cite it by (None: imported before keys were kept)
    notices: tuple[Notice, ...] = ()  # retractions, withdrawals, corrections: exports' notes say so

    @property
    def notice_note(self) -> str:
        """Its notices as one note: "Retraction Notice of 2020-01-02: https://doi.org/..."
        (BibTeX and CSL-JSON `note`; RIS writes one N1 each)."""
        return "; ".join(n.sentence for n in self.notices)

    @property
    def display_title(self) -> str:
        """What the catalog shows: your title, else the real one, else the headline."""
        return self.user_title or self.title or self.headline

    @property
    def citation_title(self) -> str:
        """What a citation shows: the real title, else yours, else the headline."""
        return self.title or self.user_title or self.headline

    @property
    def exported_title(self) -> str | None:
        """The title a BibTeX, RIS or CSL-JSON export writes: the real one, else yours; never
        the headline the catalog derived (the paper has no title: the export invents none)."""
        return self.title or self.user_title

    @property
    def link(self) -> str | None:
        return paper_link(self.url, self.doi, self.arxiv_id)


@dataclass(frozen=True)
class ExportReport:
    papers: int
    format: str
    path: str | None  # None: written to the stream given
    unchanged: int = 0  # vault: files already up to date
    skipped: tuple[str, ...] = ()  # vault: files left alone, with the reason


@dataclass
class AnnotationsReport:
    """What `catalog annotations import` did."""

    papers: int = 0  # papers in the file
    matched: int = 0
    tags_added: int = 0
    notes_added: int = 0
    fields_set: int = 0  # status, rating or title taken from the file
    searches_added: int = 0
    conflicts: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)  # entries several papers could be: not applied

    def summary(self) -> str:
        return (f"{self.matched} of {self.papers} papers matched: {self.tags_added} tags, "
                f"{self.notes_added} notes, {self.fields_set} statuses/ratings/titles and "
                f"{self.searches_added} saved searches added; {len(self.conflicts)} conflicts, "
                f"{len(self.not_found)} not found"
                + (f", {len(self.ambiguous)} ambiguous (not applied)" if self.ambiguous else ""))


class CiteKeyChange(NamedTuple):
    key: str  # the paper's
    old: str | None
    new: str
