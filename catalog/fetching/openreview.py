"""OpenReview's API (v2, and v1's plain values): https://docs.openreview.net (GET /notes?id=)."""

from __future__ import annotations

import re

from catalog.fetching.records import BadAnswer, Fetched, authors, json_of, paper
from catalog.ingest import fields

SITE = "https://openreview.net"


def path(note_id: str) -> tuple[str, dict[str, str]]:
    return "/notes", {"id": note_id}


def search_params(words: str, n: int) -> tuple[str, dict[str, str]]:
    """A search of submissions' text (openreview-py's search_notes: /notes/search)."""
    return "/notes/search", {"term": words, "content": "all", "group": "all", "source": "forum", "limit": str(n)}


def note(body: bytes, origin: str, note_id: str) -> Fetched:
    notes = json_of(body, "api2.openreview.net").get("notes")
    if not isinstance(notes, list) or not notes:
        raise BadAnswer(f"OpenReview has no note {note_id}")
    found = next((n for n in notes if isinstance(n, dict) and n.get("id") == note_id), notes[0])
    return _one(found, origin, note_id)


def found_notes(body: bytes, origin: str) -> list[Fetched]:
    """Every submission a search found (those without a title or abstract left out)."""
    notes = json_of(body, "api2.openreview.net").get("notes")
    out = []
    for n in notes if isinstance(notes, list) else []:
        try:
            out.append(_one(n, origin, str(n.get("id") if isinstance(n, dict) else "")))
        except BadAnswer:
            continue
    return out


def _one(found: object, origin: str, note_id: str) -> Fetched:
    content = found.get("content") if isinstance(found, dict) else None
    if not isinstance(content, dict):
        raise BadAnswer(f"OpenReview's note {note_id} has no content")
    forum = found.get("forum") or note_id
    venue = _value(content, "venue") or ""
    pdf = _value(content, "pdf")
    record = paper({
        "title": _value(content, "title"),
        "abstract": _value(content, "abstract"),
        "authors": authors(_value(content, "authors") or []),
        # "ICLR 2024 poster" -> ICLR; "Submitted to ICLR 2024" is not where it appeared
        "venue": None if venue.lower().startswith("submitted") else fields.venue(re.sub(r"\s+\d{4}.*$", "", venue)),
        "year": fields.year(venue) or _year_of(found),
        "url": f"{SITE}/forum?id={forum}",
        "kind": "conference" if venue and not venue.lower().startswith("submitted") else None,
    }, f"OpenReview {note_id}")
    return Fetched(record, "openreview", origin, pdf_url=f"{SITE}{pdf}" if isinstance(pdf, str) and pdf.startswith("/") else pdf)


def _value(content: dict, name: str):
    """v2 wraps each field as {"value": ...}; v1 gives the value itself."""
    value = content.get(name)
    return value.get("value") if isinstance(value, dict) else value


def _year_of(note: dict) -> int | None:
    from datetime import datetime, timezone

    stamp = note.get("pdate") or note.get("cdate") or note.get("tcdate")
    if not isinstance(stamp, (int, float)):
        return None
    return datetime.fromtimestamp(stamp / 1000, timezone.utc).year
