"""arXiv's API (Atom XML): https://info.arxiv.org/help/api/user-manual.html"""

from __future__ import annotations

import re

from catalog.ingest import fields
from catalog.fetching.records import BadAnswer, Fetched, authors, paper

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"


def path_and_params(arxiv_id: str) -> tuple[str, dict[str, str]]:
    return "/api/query", {"id_list": arxiv_id, "max_results": "1"}


def search_params(words: str, n: int) -> tuple[str, dict[str, str]]:
    """A search of titles and abstracts (`all:`) for these words."""
    terms = " AND ".join(f"all:{w}" for w in words.split())
    return "/api/query", {"search_query": terms, "max_results": str(n)}


def entries(body: bytes, origin: str) -> list[Fetched]:
    """Every paper of a feed; BadAnswer for an error entry or XML that is not a feed."""
    import xml.etree.ElementTree as ET

    if body.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html")):
        raise BadAnswer("export.arxiv.org answered with a web page, not a feed (the service may be down)")
    try:
        feed = ET.fromstring(body)
    except ET.ParseError:
        raise BadAnswer("export.arxiv.org answered with XML that is not a feed (cut short?)") from None
    found = []
    for entry in feed.iter(f"{ATOM}entry"):
        if _text(entry, "title") == "Error":
            raise BadAnswer(f"arXiv says: {_text(entry, 'summary') or 'error'}")
        found.append(_entry(entry, origin))
    return found


def _entry(entry, origin: str) -> Fetched:
    abs_url = _text(entry, "id") or ""
    m = re.search(r"arxiv\.org/abs/(.+?)(v\d+)?$", abs_url)
    arxiv_id = m[1] if m else None
    pdf = next((link.get("href") for link in entry.iter(f"{ATOM}link") if link.get("title") == "pdf"), None)
    journal = _text(entry, "journal_ref", ARXIV)
    record = paper({
        "title": _text(entry, "title"),
        "abstract": _text(entry, "summary"),
        "authors": authors([_text(a, "name") or "" for a in entry.iter(f"{ATOM}author")]),
        "year": fields.year(_text(entry, "published")),
        "doi": fields.doi(_text(entry, "doi", ARXIV)),
        "arxiv_id": arxiv_id.lower() if arxiv_id else None,
        "venue": "arXiv",
        "kind": "preprint" if not journal else None,
    }, f"arXiv:{arxiv_id}")
    if journal:
        record.extra["journal_ref"] = journal
    return Fetched(record, "arxiv", origin, pdf_url=pdf and pdf.replace("http://", "https://", 1),
                   notices=_withdrawn(entry, arxiv_id))


def _withdrawn(entry, arxiv_id: str | None) -> tuple:
    """arXiv marks a withdrawn paper in its latest version's comment ("This paper has been
    withdrawn by the author(s)"): a withdrawal notice, dated by that version."""
    comment = _text(entry, "comment", ARXIV) or ""
    if not arxiv_id or not re.search(r"\bwithdrawn\b", comment, re.IGNORECASE):
        return ()
    day = (_text(entry, "updated") or "")[:10] or None
    return (("withdrawal", f"10.48550/arxiv.{arxiv_id.lower()}", "Withdrawn on arXiv", day),)


def _text(element, name: str, ns: str = ATOM) -> str | None:
    child = element.find(f"{ns}{name}")
    if child is None or child.text is None:
        return None
    return " ".join(child.text.split()) if name != "summary" else child.text.strip()
