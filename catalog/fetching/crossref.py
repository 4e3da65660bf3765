"""Crossref's REST API, one work: https://api.crossref.org/swagger-ui/index.html (works/{doi})."""

from __future__ import annotations

import re
from urllib.parse import quote

from catalog.fetching.records import BadAnswer, Fetched, authors, first, json_of, paper
from catalog.ingest import fields

# Crossref's types -> the catalog's kinds (catalog/ingest/kinds.py)
_KINDS = {"journal-article": "article", "proceedings-article": "conference", "book-chapter": "chapter",
          "book": "book", "monograph": "book", "edited-book": "book", "dissertation": "thesis",
          "report": "report", "posted-content": "preprint"}
_TAGS = re.compile(r"<[^>]+>")


def path(doi: str, contact: str | None) -> tuple[str, dict[str, str]]:
    # The polite pool: requests that say who sends them get the more reliable servers.
    return f"/works/{quote(doi, safe='/')}", ({"mailto": contact} if contact else {})


def work(body: bytes, origin: str) -> Fetched:
    message = json_of(body, "api.crossref.org").get("message")
    if not isinstance(message, dict):
        raise BadAnswer("api.crossref.org answered without a work")
    doi = fields.doi(message.get("DOI"))
    people = [(" ".join(filter(None, (p.get("given"), p.get("family")))) or p.get("name") or "")
              for p in message.get("author") or [] if isinstance(p, dict)]
    venue = first(message.get("container-title")) or first(message.get("short-container-title"))
    if not venue and message.get("type") == "posted-content":
        venue = (message.get("institution") or [{}])[0].get("name") if message.get("institution") else None
    record = paper({
        "title": first(message.get("title")),
        "abstract": _plain(message.get("abstract")),
        "authors": authors(people),
        "venue": fields.venue(venue),
        "year": _year(message),
        "doi": doi,
        "kind": _KINDS.get(str(message.get("type"))),
    }, f"DOI {doi}")
    if record.arxiv_id is None:
        record.arxiv_id = _preprint_on_arxiv(message)
    pdf = next((link.get("URL") for link in message.get("link") or []
                if isinstance(link, dict) and link.get("content-type") == "application/pdf"), None)
    return Fetched(record, "crossref", origin, pdf_url=pdf, notices=_notices(message))


def _notices(message: dict) -> tuple[tuple[str, str, str, str | None], ...]:
    """Crossref's `updated-by`: the notices (retraction, correction, ...) that update this work."""
    found = []
    for update in message.get("updated-by") or []:
        if not isinstance(update, dict) or not update.get("DOI") or not update.get("type"):
            continue
        parts = (update.get("updated") or {}).get("date-parts") or [[]]
        day = "-".join(f"{int(n):02d}" for n in parts[0][:3]) if parts and parts[0] else None
        found.append((str(update["type"]).lower().replace("-", "_"), fields.doi(update["DOI"]) or str(update["DOI"]),
                      str(update.get("label") or ""), day))
    return tuple(found)


def _preprint_on_arxiv(message: dict) -> str | None:
    """The arXiv id of the work's preprint, when Crossref's `relation` names one
    (has-preprint: 10.48550/arXiv.ID): the preprint and this version are one paper."""
    relation = message.get("relation") if isinstance(message.get("relation"), dict) else {}
    for item in relation.get("has-preprint") or []:
        if isinstance(item, dict) and str(item.get("id-type", "")).lower() == "doi":
            doi = fields.doi(item.get("id"))
            if doi and doi.startswith("10.48550/arxiv."):
                return doi.removeprefix("10.48550/arxiv.")
    return None


def _year(message: dict) -> int | None:
    for key in ("published-print", "published-online", "published", "issued", "created"):
        found = fields.year(message.get(key))
        if found:
            return found
    return None


def _plain(abstract: object) -> str | None:
    """Crossref's abstracts are JATS XML (<jats:p>...</jats:p>); the text, paragraphs kept."""
    if not isinstance(abstract, str):
        return None
    import html

    text = re.sub(r"</jats:(?:p|title|sec)>\s*", "\n\n", abstract)
    text = html.unescape(_TAGS.sub("", text))
    text = re.sub(r"^\s*abstract\s*\n+", "", text.strip(), flags=re.IGNORECASE)
    return "\n\n".join(" ".join(p.split()) for p in text.split("\n\n") if p.strip()) or None
