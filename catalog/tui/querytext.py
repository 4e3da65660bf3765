"""Editing query text the way the TUI does: facet filters toggled in, the word still being
typed. Pure functions on text (no parsing: a search's request does that, once); no Textual,
no database."""

from __future__ import annotations

import re

# One raw token as the user typed it: a (possibly negated, possibly field-prefixed or exact) quoted
# phrase, or a run of non-space characters.
_RAW_TOKEN = re.compile(r'-?(?:\w+:|=)?"[^"]*"?|\S+')
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


def filter_values(query: str, field: str) -> set[str]:
    """The values `query` filters `field` by (`venue:"Some Workshop"` gives Some Workshop)."""
    return {t.partition(":")[2].strip('"') for t in tokens(query) if _field(t) == field and not t.startswith("-")}


def _field(token: str) -> str | None:
    name, colon, _ = token.lstrip("-").partition(":")
    return name.lower() if colon and name.isidentifier() else None


# How many `key:` filters one query may OR together: SQLite parses `a OR b OR ...` as a tree
# as deep as the list is long, and refuses trees deeper than 1000.
KEY_CHUNK = 400


def keys_query(keys: list[str], query: str = "") -> str:
    """`query` narrowed to the papers with these keys (at most KEY_CHUNK of them).

    The keys come first, joined by OR into one clause; a leading OR in `query` is dropped so
    it cannot join that clause (a leading AND means nothing either way). Everything else in
    `query` keeps its meaning."""
    assert 0 < len(keys) <= KEY_CHUNK
    rest = tokens(query)
    while rest and rest[0] in ("OR", "AND"):
        rest.pop(0)
    return " ".join([" OR ".join(f"key:{k}" for k in keys), *rest])


def chunks(items: list[str], size: int = KEY_CHUNK) -> list[list[str]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


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


# The last word is searched as a prefix from this many characters on. Two-letter prefixes
# (`in*`, `di*`) match nearly every paper and take 150-250 ms to rank at 100k papers; from
# three letters on the median is under 100 ms (docs/benchmarks.md, "Prefix while typing").
# A shorter word still being typed is not searched at all (the results stay those of the
# words before it) until its third letter, a space or Enter: as an exact word it found next to
# nothing the reader wanted, and at a million papers `sparse a` took a second.
PREFIX_FROM = 3


def is_active(query: str, filters: str) -> bool:
    """Whether `query` holds every token of `filters` (a facet in use: clicking it again
    removes it)."""
    wanted = tokens(filters)
    have = tokens(query)
    return bool(wanted) and all(t in have for t in wanted)


def unfinished_word(query: str) -> str | None:
    """The plain word at the end of `query` (no space after it yet), if there is one: not a
    filter's value, a negated word (`-word`), an exact form (`=word`), or inside a phrase."""
    m = _TYPING.search(query)
    if not m or query.count('"') % 2 or m.group(1) in ("OR", "AND", "NOT"):
        return None
    return m.group(1)


def typed_query(query: str, finished: bool = False) -> str:
    """The query as the TUI searches it while it is typed: the word being typed (the last,
    with no space after it yet) as a prefix from PREFIX_FROM characters on, so the results
    narrow with every key; shorter, left out until it grows, unless the query is `finished`
    (Enter: then an exact word). A space ends the word; `catalog search` keeps exact words."""
    word = unfinished_word(query)
    if word is None:
        return query
    if len(word) < PREFIX_FROM:
        return query if finished else query[:len(query) - len(word)]
    return query + "*"
