"""What the web commands did: papers added, enriched, linked, and PDFs fetched."""

from __future__ import annotations

from dataclasses import dataclass

from catalog.results.papers import PaperSummary


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
