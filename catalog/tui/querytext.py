"""Editing query text the way the TUI does: facet filters toggled in, the word still being
typed, and the words to highlight. Pure functions; no Textual, no database."""

from __future__ import annotations

import re

from catalog.highlight import Terms, terms_of
from catalog.query import QueryError, parse

# One raw token as the user typed it: a (possibly negated, possibly field-prefixed) quoted
# phrase, or a run of non-space characters.
_RAW_TOKEN = re.compile(r'-?(?:\w+:)?"[^"]*"?|\S+')
# Fields that take one value: a new value replaces the old one instead of adding to it.
_SINGLE_VALUED = ("status", "rating", "venue", "year")
# A plain word at the very end of the query: perhaps not finished yet.
_TYPING = re.compile(r"(?:^|\s)(\w+)$")


def tokens(query: str) -> list[str]:
    return _RAW_TOKEN.findall(query)


def filter_token(field: str, value: object) -> str:
    """`venue:ICML`, or `venue:"Some Workshop"` when the value has spaces or quotes."""
    text = str(value)
    if not text or any(ch.isspace() or ch == '"' for ch in text):
        text = '"' + text.replace('"', "") + '"'
    return f"{field}:{text}"


def _field(token: str) -> str | None:
    name, colon, _ = token.lstrip("-").partition(":")
    return name.lower() if colon and name.isidentifier() else None


def toggle_filter(query: str, filters: str) -> str:
    """The query with `filters` (one or more tokens) added; if all are already there, removed.

    A field that takes one value (status, rating, venue, year) loses its old value, so clicking
    `status:read` after `status:unread` switches rather than asking for both."""
    have = tokens(query)
    wanted = tokens(filters)
    if wanted and all(t in have for t in wanted):
        return " ".join(t for t in have if t not in wanted)
    replaced = {_field(t) for t in wanted} & set(_SINGLE_VALUED)
    kept = [t for t in have if t.startswith("-") or _field(t) not in replaced]
    return " ".join(kept + [t for t in wanted if t not in kept])


def unfinished_word(query: str) -> str | None:
    """The plain word at the end of `query` (no space after it yet), if there is one.

    The TUI searches exactly what is typed, like `catalog search`: searching the last word as
    a prefix while typing was tried, and ranking a short prefix such as `tra*` takes seconds
    on 100k papers. When nothing matches, this word is what the hint suggests finishing."""
    m = _TYPING.search(query)
    if not m or query.count('"') % 2 or m.group(1) in ("OR", "AND", "NOT"):
        return None
    return m.group(1)


def highlight_terms(query: str) -> Terms:
    """The words and phrases a query looks for (not the ones it excludes)."""
    try:
        return terms_of(parse(query))
    except QueryError:
        return terms_of(parse(""))
