"""A paper's references and the papers citing it: Semantic Scholar's graph API (with
abstracts and identifiers), else, for references, the list the publisher deposited with
Crossref (`reference` of works/DOI, usually in the cache already from `catalog add`)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from catalog.fetching.http import Client, FetchError, Offline
from catalog.fetching.records import BadAnswer, authors, first, json_of
from catalog.ingest import fields

FIELDS = "title,abstract,authors,year,venue,externalIds"
PAGE = 100
MAX_PAPERS = 1_000  # a paper cited ten thousand times is listed up to this many


@dataclass(frozen=True)
class Linked:
    """A paper in a reference list or citing one, as the service describes it."""

    title: str | None
    authors: str | None = None
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    abstract: str | None = None


def references(client: Client, doi: str | None, arxiv_id: str | None) -> tuple[list[Linked], str]:
    """The papers it cites, and the service that said so."""
    try:
        return _semantic_scholar(client, doi, arxiv_id, "references", "citedPaper"), "Semantic Scholar"
    except Offline:
        raise
    except FetchError:
        if not doi:
            raise
    from catalog.fetching import crossref

    path, params = crossref.path(doi, client.settings.contact)
    answer = client.get("crossref", path, params, accept="application/json")
    if answer.status != 200:
        raise FetchError(f"neither Semantic Scholar nor Crossref has the references of DOI {doi}")
    message = json_of(answer.body, "api.crossref.org").get("message") or {}
    return [_crossref_reference(r) for r in message.get("reference") or [] if isinstance(r, dict)], "Crossref"


def citations(client: Client, doi: str | None, arxiv_id: str | None) -> tuple[list[Linked], str]:
    return _semantic_scholar(client, doi, arxiv_id, "citations", "citingPaper"), "Semantic Scholar"


def _semantic_scholar(client: Client, doi, arxiv_id, which: str, inner: str) -> list[Linked]:
    name = f"DOI:{doi}" if doi else f"ARXIV:{arxiv_id}"
    found: list[Linked] = []
    offset = 0
    while offset is not None and len(found) < MAX_PAPERS:
        answer = client.get("semanticscholar", f"/graph/v1/paper/{quote(name, safe=':/')}/{which}",
                            {"fields": FIELDS, "offset": str(offset), "limit": str(PAGE)},
                            accept="application/json")
        if answer.status == 404:
            raise FetchError(f"Semantic Scholar does not know {name.replace(':', ' ', 1)}")
        if answer.status != 200:
            raise FetchError(f"Semantic Scholar refused the request ({answer.status})")
        page = json_of(answer.body, "api.semanticscholar.org")
        data = page.get("data")
        if not isinstance(data, list):
            raise BadAnswer("api.semanticscholar.org answered without a list of papers")
        found.extend(_s2_paper(item.get(inner)) for item in data if isinstance(item, dict) and isinstance(item.get(inner), dict))
        offset = page.get("next") if isinstance(page.get("next"), int) and data else None
    return found[:MAX_PAPERS]


def _s2_paper(paper: dict) -> Linked:
    ids = paper.get("externalIds") if isinstance(paper.get("externalIds"), dict) else {}
    people = [a.get("name") or "" for a in paper.get("authors") or [] if isinstance(a, dict)]
    return Linked(
        title=_text(paper.get("title")), authors=authors(people), year=fields.year(paper.get("year")),
        venue=fields.venue(paper.get("venue")) if paper.get("venue") else None,
        doi=fields.doi(ids.get("DOI")), arxiv_id=fields.arxiv_id(ids.get("ArXiv"), bare=True),
        abstract=_text(paper.get("abstract")))


def _crossref_reference(ref: dict) -> Linked:
    title = _text(ref.get("article-title")) or _text(ref.get("volume-title")) or _text(ref.get("unstructured"))
    return Linked(title=title, authors=_text(ref.get("author")), year=fields.year(ref.get("year")),
                  venue=_text(ref.get("journal-title")), doi=fields.doi(ref.get("DOI")))


def _text(value: object) -> str | None:
    if isinstance(value, list):
        value = first(value)
    return fields.squash(value) or None if isinstance(value, str) else None
