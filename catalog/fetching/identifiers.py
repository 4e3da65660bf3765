"""What the user typed to name a paper, and which service to ask about it.

`10.1145/3368089`, `doi:10...`, `https://doi.org/10...`: a DOI (Crossref, else DataCite);
`arXiv:1706.03762`, `1706.03762v5`, `hep-th/9901001`, an arxiv.org link or an arXiv DOI
(10.48550/arXiv.ID): arXiv; `https://openreview.net/forum?id=ID` (or /pdf?id=): OpenReview.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

from catalog.errors import CatalogError
from catalog.ingest import fields

_ARXIV_BARE = re.compile(r"(?:arxiv:\s*)?(\d{4}\.\d{4,5}|[a-z][a-z.-]+/\d{7})(v\d+)?", re.IGNORECASE)
_OPENREVIEW_ID = re.compile(r"[A-Za-z0-9_-]{5,40}")
MAX_LENGTH = 2_000


@dataclass(frozen=True)
class Identifier:
    kind: str  # "doi", "arxiv" or "openreview"
    value: str  # a DOI in lower case, an arXiv id without version, an OpenReview note id

    def __str__(self) -> str:
        return {"doi": "DOI ", "arxiv": "arXiv:", "openreview": "OpenReview "}[self.kind] + self.value


def parse(text: str) -> Identifier:
    """The identifier `text` names; CatalogError saying what is accepted when it names none."""
    text = text.strip()
    if len(text) > MAX_LENGTH:
        raise CatalogError(f"{text[:40]}...: too long for an identifier")
    found = _arxiv(text) or _openreview(text) or _doi(text)
    if found is None:
        raise CatalogError(f"{text!r} is not a DOI, an arXiv id or an arXiv, OpenReview or doi.org link")
    return found


def _arxiv(text: str) -> Identifier | None:
    if m := _ARXIV_BARE.fullmatch(text):
        return Identifier("arxiv", m[1].lower())
    parts = urlsplit(text)
    if parts.scheme in ("http", "https") and parts.netloc.lower().removeprefix("www.").removeprefix(
            "export.") == "arxiv.org":
        found = fields.arxiv_id(f"arxiv.org{parts.path.removesuffix('.pdf')}")
        return Identifier("arxiv", found) if found else None
    doi = fields.doi(text)
    if doi and doi.startswith("10.48550/arxiv."):
        return Identifier("arxiv", doi.removeprefix("10.48550/arxiv."))
    return None


def _openreview(text: str) -> Identifier | None:
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or parts.netloc.lower().removeprefix("www.") != "openreview.net":
        if text.lower().startswith("openreview:") and _OPENREVIEW_ID.fullmatch(text[11:].strip()):
            return Identifier("openreview", text[11:].strip())
        return None
    ids = parse_qs(parts.query).get("id") or parse_qs(parts.query).get("noteId")
    if ids and _OPENREVIEW_ID.fullmatch(ids[0]):
        return Identifier("openreview", ids[0])
    return None


def _doi(text: str) -> Identifier | None:
    parts = urlsplit(text)
    if parts.scheme in ("http", "https"):
        if parts.netloc.lower().removeprefix("www.") not in ("doi.org", "dx.doi.org"):
            return None
        text = unquote(parts.path.lstrip("/"))
    elif text.lower().startswith("doi:"):
        text = text[4:].strip()
    if not re.match(r"10\.\d{4,9}/\S+$", text):
        return None
    return Identifier("doi", fields.doi(text) or text.lower())
