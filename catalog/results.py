"""Plain dataclasses the library hands to the CLI and the TUI (never ORM objects)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
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
        }


@dataclass(frozen=True)
class Suggestion:
    """A query word that finds (almost) nothing, and the index's closest words to it."""

    word: str  # as typed
    alternatives: tuple[str, ...]  # nearest first

    def as_json(self) -> dict:
        return {"word": self.word, "alternatives": list(self.alternatives)}


@dataclass(frozen=True)
class MissingWords:
    """A search's words that no paper holds, and those the papers it lists hold some of."""

    missing: tuple[str, ...]  # as typed
    held: tuple[str, ...]

    def as_json(self) -> dict:
        return {"missing": list(self.missing), "held": list(self.held)}


@dataclass(frozen=True)
class SearchHit:
    """One paper a search found: its summary, and what snippets and ranking need."""

    paper_id: int
    summary: PaperSummary
    text: str | None  # the rendered abstract, when asked for (snippets are made from it)
    score: float | None  # bm25, lower is better; None when listing without words


@dataclass(frozen=True)
class FirstPage:
    """A search's first rows (Catalog.first_page), and how many papers it finds when known."""

    rows: list[PaperSummary]
    total: int | None


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
        return self.kind in ("retraction", "withdrawal", "removal", "expression_of_concern")


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
    """A file attached to a paper (catalog/attaching.py). `path` as stored: relative to the
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
    kind: str | None = None  # catalog/kinds.py; None: not known
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
class TagCount:
    name: str
    count: int


class AuthorCount(NamedTuple):
    """A person and how many papers (of those asked about) they wrote. A NamedTuple: the TUI's
    facet reads one per person of a real library (24,000), built at a third of a dataclass's
    cost in the thread that shares the UI thread's interpreter."""

    name: str
    papers: int


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
    """Counts for the TUI sidebar, of the papers a query finds (the whole catalog for "").
    A tag's count includes its children's papers, as the tag: filter does."""

    venues: tuple[tuple[str, int | None, int], ...]  # venue, year, papers
    tags: tuple[TagCount, ...]
    statuses: tuple[tuple[str, int], ...]
    ratings: tuple[tuple[int, int], ...]
    saved: tuple["SavedQuery", ...]
    total: int  # papers counted
    query: str = ""
    catalog_total: int = 0  # papers in the catalog
    tag_names: tuple[str, ...] = ()  # every tag in the catalog (for completion)
    authors: tuple[AuthorCount, ...] = ()  # most papers first
    with_pdf: int = 0  # papers with a PDF attached
    with_files: int = 0  # papers with any file attached


@dataclass(frozen=True)
class RelatedPaper:
    """A paper `similar` or `recommend` found, how strongly, and why.

    similar: `score` is the cosine (0..1) over the asked paper's most distinctive terms, `why`
    the terms both share. recommend: `score` is the classifier's margin (above 0 looks like the
    papers it learned from), `why` the paper's terms that weigh most for it."""

    key: str
    title: str
    venue: str | None
    year: int | None
    score: float
    why: tuple[str, ...]
    summary: PaperSummary  # status, rating and tags too, for lists

    def as_json(self) -> dict:
        return {**self.summary.as_json(), "score": self.score, "why": list(self.why)}


@dataclass(frozen=True)
class TopicGroup:
    """One topic of a list (`catalog topics`): its label, the phrases it was made from, and its
    papers, closest to the topic's centre first. Topic 1 is the largest."""

    number: int
    label: str
    terms: tuple[str, ...]
    papers: tuple[PaperSummary, ...]

    @property
    def size(self) -> int:
        return len(self.papers)

    def as_json(self) -> dict:
        return {"number": self.number, "label": self.label, "size": self.size,
                "terms": list(self.terms),
                "papers": [{"key": p.key, "title": p.title, "venue": p.venue, "year": p.year}
                           for p in self.papers]}


@dataclass(frozen=True)
class TopicCount:
    """A stored topic of the whole catalog, for the TUI's sidebar."""

    number: int
    label: str
    count: int


@dataclass(frozen=True)
class SavedQuery:
    name: str
    query: str


@dataclass(frozen=True)
class AddedAcronym:
    """An acronym a user added: searches for either form find the other."""

    short: str
    long: str

    def as_json(self) -> dict:
        return {"short": self.short, "long": self.long}


@dataclass(frozen=True)
class PaperState:
    """Everything a user can change on a paper, read at one moment."""

    key: str
    tags: tuple[str, ...]
    status: str
    rating: int | None
    user_title: str | None
    notes: tuple[tuple[int, str], ...]  # (note id, body)


# --- edits: what one change did, so that undo can take back exactly that ------------------

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


Change = TagsChanged | FieldChanged | NoteChanged | SavedSearchChanged


@dataclass(frozen=True)
class Edit:
    """What one command did: its changes (for undo), and the papers as they are now."""

    changes: tuple[Change, ...]
    papers: tuple[PaperSummary, ...] = ()
    note: NoteView | None = None  # the note written or deleted, for note commands
    # An undo leaves alone what someone changed since; each entry says what and why.
    conflicts: tuple[str, ...] = ()


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
    kind: str | None = None  # catalog/kinds.py; None: not known (exports write what they always did)
    records: tuple[RecordFields, ...] = ()  # its imported records as written, oldest first
    cite_key: str | None = None  # the key exports cite it by (None: imported before keys were kept)

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


@dataclass(frozen=True)
class TriageCount:
    """How far the triage of a list has come: a paper is triaged once its status is no
    longer unread or it has a rating."""

    total: int
    triaged: int


@dataclass(frozen=True)
class TriageOrder:
    """Untriaged papers of a list, most promising first, and how many papers of the user's
    (rated 4-5, queued, reading, read or tagged) the ranking learnt from."""

    papers: tuple[PaperSummary, ...]
    learnt_from: int


@dataclass(frozen=True)
class Members:
    """Who uses a catalog on a server: the role that owns it, its member roles, and you (the
    role this session is)."""

    owner: str
    names: tuple[str, ...]
    you: str


@dataclass(frozen=True)
class Added:
    """What `catalog add` did with one identifier: `outcome` is "new", "updated" (a paper
    already there gained fields: `filled`), "unchanged", or "failed" (`error` says why)."""

    identifier: str
    outcome: str
    paper: PaperSummary | None = None
    source: str | None = None  # the service's URL the record came from
    filled: tuple[str, ...] = ()
    pdf_url: str | None = None
    error: str | None = None

    def as_json(self) -> dict:
        return {"identifier": self.identifier, "outcome": self.outcome,
                "paper": self.paper.as_json() if self.paper else None, "source": self.source,
                "filled": list(self.filled), "pdf_url": self.pdf_url, "error": self.error}


@dataclass(frozen=True)
class Enriched:
    """What `catalog enrich` found for one paper. `outcome`: "filled" (or "would fill" with
    --dry-run), "unchanged" (found, nothing to add), "no match" (nothing alike enough: the
    best candidate and its score in `evidence`), "refused" (the match's identifier is another
    paper's), or "failed" (`evidence` says why)."""

    key: str
    outcome: str
    evidence: str = ""
    found_title: str | None = None
    found_authors: str | None = None
    source: str | None = None
    filled: tuple[str, ...] = ()

    def as_json(self) -> dict:
        return {"key": self.key, "outcome": self.outcome, "evidence": self.evidence,
                "found_title": self.found_title, "found_authors": self.found_authors,
                "source": self.source, "filled": list(self.filled)}


@dataclass(frozen=True)
class LinkedPaper:
    """A paper a catalog paper cites, or one citing it; `key` when the catalog holds it."""

    key: str | None
    title: str | None
    authors: str | None = None
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    abstract: str | None = None


@dataclass(frozen=True)
class Linked:
    """`catalog refs` and `cited-by`: the papers, and which service listed them."""

    key: str
    citing: bool  # the papers citing it (else those it cites)
    service: str
    papers: tuple[LinkedPaper, ...]

    def as_json(self) -> dict:
        return {"key": self.key, "service": self.service, "citing" if self.citing else "references":
                [p.__dict__ for p in self.papers]}


@dataclass(frozen=True)
class PdfFetched:
    """What `catalog fetch-pdf` did for one paper: `outcome` "attached", "had one" (a PDF is
    attached already), "no link" (no PDF's link known, no arXiv id) or "failed" (`error`)."""

    key: str
    outcome: str
    url: str | None = None
    location: str | None = None
    error: str | None = None

    def as_json(self) -> dict:
        return dict(self.__dict__)
