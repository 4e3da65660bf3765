"""What a service's record becomes: the PaperRecord the import pipeline takes, and its links.

Authors go through `authors()` alone, so the day authors are rows rather than one string
only this function changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from catalog.errors import CatalogError
from catalog.ingest import fields
from catalog.ingest.records import PaperRecord


@dataclass(frozen=True)
class Fetched:
    """One paper as a service described it."""

    record: PaperRecord
    service: str  # "arxiv", "crossref", "datacite", "openreview"
    origin: str  # the URL asked: the paper's source in the catalog
    pdf_url: str | None = None
    # Notices about the paper: (kind, notice DOI, label, YYYY-MM-DD), as Crossref's updated-by
    notices: tuple[tuple[str, str, str, str | None], ...] = field(default_factory=tuple)


class BadAnswer(CatalogError):
    """A service answered with something that is not a record (HTML for JSON, a cut-off XML)."""


def authors(names: list[str]) -> str | None:
    """People's names as written by the service ("Ashish Vaswani", "Vaswani, Ashish") -> the
    catalog's authors string."""
    return fields.any_authors([n for n in names if n and n.strip()] or None)


def paper(values: dict[str, object], label: str) -> PaperRecord:
    """A PaperRecord from a service's fields, normalised as imported files are (venue names,
    DOI case, TeX in titles); BadAnswer when the record has neither title nor abstract."""
    try:
        return fields.record({k: v for k, v in values.items() if v not in (None, "", [])},
                             label=label, position=1, line=1)
    except fields.EntryError as exc:
        raise BadAnswer(str(exc)) from None


def first(items: object) -> str | None:
    """The first string of a list Crossref/DataCite give for one value (title: ["..."])."""
    if isinstance(items, list):
        items = next((i for i in items if isinstance(i, str) and i.strip()), None)
    return items.strip() if isinstance(items, str) and items.strip() else None


def json_of(body: bytes, host: str) -> dict:
    """A JSON object, or BadAnswer naming what came instead (an HTML error page, a cut body)."""
    import json

    head = body[:200].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):
        raise BadAnswer(f"{host} answered with a web page, not a record (the service may be down)")
    try:
        found = json.loads(body)
    except ValueError:
        raise BadAnswer(f"{host} answered with something that is not JSON (cut short?)") from None
    if not isinstance(found, dict):
        raise BadAnswer(f"{host} answered with JSON that is not a record")
    return found
