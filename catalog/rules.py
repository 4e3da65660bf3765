"""The catalog's conventions, in one place: statuses, what a tag may be, how keys are typed,
how user text is stored, and the clock (UTC, without a zone, as the database stores it)."""

from __future__ import annotations

from datetime import datetime, timezone

from catalog.errors import CatalogError
from catalog.text.terminal import safe

STATUSES = ("unread", "queued", "reading", "read", "skipped")
# The columns a user sets on a paper, as messages name them.
USER_FIELDS = {"status": "status", "rating": "rating", "user_title": "title"}


def now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def tag_name(name: str) -> str:
    """A tag as stored: control characters stripped; no spaces or commas (`papers.tags` joins
    tags with commas), no empty parts, no leading + or -."""
    tag = safe(name).strip().strip("/")
    if not tag or any(ch.isspace() or ch == "," for ch in tag) or "//" in tag or tag[0] in "+-":
        raise CatalogError(
            f"invalid tag {safe(name)!r}: tags are single words without spaces or commas, "
            "like toread or project/thesis"
        )
    return tag


def keyword_tag(keyword: str) -> str | None:
    """The tag a keyword of an imported record becomes (Zotero's tags, BibTeX `keywords`, RIS
    `KW`): spaces as hyphens ("machine learning" -> machine-learning), TeX braces and commas
    dropped; None when nothing of it can be a tag."""
    words = safe(keyword).replace("{", "").replace("}", "").replace(",", " ").split()
    tag = "-".join(words).strip("/+-")
    while "//" in tag:
        tag = tag.replace("//", "/")
    return tag[:100] or None


def status(value: str) -> str:
    value = value.strip().lower()
    if value not in STATUSES:
        raise CatalogError(f"unknown status {value!r}: use one of {', '.join(STATUSES)}")
    return value


def rating(value: int | None) -> int | None:
    if value is not None and not 1 <= value <= 5:
        raise CatalogError(f"rating must be 1 to 5 (or 0 to clear), not {value}")
    return value


def user_line(text: str) -> str:
    """One line of user text (a title, a saved search's name or query) as stored: control
    characters stripped, whitespace collapsed."""
    return " ".join(safe(text).split())


def note_body(body: str) -> str:
    """A note as stored: control characters stripped (newlines and tabs stay: a note is
    Markdown), not empty."""
    body = safe(body).strip()
    if not body:
        raise CatalogError("a note needs some text")
    return body


def typed_key(key: str) -> str:
    """A key as users type it, as keys are stored (lower case)."""
    return key.strip().lower()
