"""The search language, parsed into a small tree that knows nothing about SQL.

    words            all must match (any form: model finds models, modelling)
    =word            this form only          "a phrase"    phrase (any forms)
    a OR b           either                  -word, NOT w  must not match (in any form)
    prefix*          word beginning          venue:ICML  year:2026  year:2024..2026
    tag:toread       (and its children)      status:unread  rating:>=4  has:notes
    notice:retracted (flagged papers; has:notice any)
    topic:3          the whole catalog's topic 3 (`catalog topics`, the TUI's Topics facet)

Every string parses: stray quotes, operators and punctuation are read as plain text, and a
filter with a bad value raises QueryError with a one-line explanation. So does a query longer
than MAX_QUERY_CHARS, or with more than MAX_QUERY_TERMS words and filters (each word of a phrase
counts: FTS5 matches a phrase word by word) or MAX_QUERY_KEYS `key:` filters (the TUI narrows
to marked papers with them): far above what anyone types, and below where the SQL of a query
takes seconds (a long AND or a phrase of many frequent words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from catalog.results.papers import NOTICE_FLAGS
from catalog.rules import STATUSES
from catalog.text.cjk import cjk_spaced

FILTERS = ("venue", "year", "tag", "status", "rating", "has", "key", "topic", "citekey", "author", "notice")
HAS_VALUES = ("notes", "tags", "rating", "title", "abstract", "authors", "pdf", "files", "notice")
# notice:FLAG: papers flagged with a notice of that kind, by the word lists flag them with
# (results/papers.py NOTICE_FLAGS), or by Crossref's kind; `grave`: any that should no longer
# be relied on (retracted, withdrawn, removed, concern).
NOTICE_VALUES = ("retracted", "withdrawn", "removed", "concern", "corrected", "addendum", "grave")
MAX_QUERY_CHARS = 10_000
MAX_QUERY_TERMS = 64
MAX_QUERY_KEYS = 400  # SQLite refuses an OR tree deeper than 1,000
MAX_TOPIC = 9_999  # catalogs have at most 20 (catalog/discover/topics.py)


class QueryError(ValueError):
    """A query that cannot mean anything; the message is shown to the user as is."""


@dataclass(frozen=True)
class Text:
    """A word or phrase to find; `prefix` for `word*`, `exact` for `=word` (this form only)."""

    text: str
    phrase: bool = False
    prefix: bool = False
    exact: bool = False


@dataclass(frozen=True)
class Filter:
    field: str
    op: str  # "=", ">=", "<=", ">", "<", "range"
    value: str | int | tuple[int, int]


@dataclass(frozen=True)
class Clause:
    """Alternatives joined by OR; the whole clause may be negated."""

    options: tuple[Text | Filter, ...]
    negated: bool = False


@dataclass
class Query:
    clauses: list[Clause] = field(default_factory=list)
    source: str = ""

    @property
    def has_text(self) -> bool:
        return any(isinstance(o, Text) for c in self.clauses for o in c.options)

    @property
    def is_empty(self) -> bool:
        return not self.clauses


_TOKEN = re.compile(r'(-?)(?:(\w+):|(=))?"([^"]*)("?)|(\S+)')


def _tokens(source: str) -> list[tuple[str, bool]]:
    """Split into (token, quoted) pairs; a leading '-' (and '=', this form only) on a quoted
    token stays outside."""
    out: list[tuple[str, bool]] = []
    for m in _TOKEN.finditer(source):
        neg, fieldname, exact, quoted, _closing, bare = m.groups()
        if bare is not None:
            out.append((bare, False))
        else:
            prefix = f"{neg}{fieldname + ':' if fieldname else ''}{exact or ''}"
            out.append((prefix + "\0" + quoted, True))
    return out


def parse(source: str) -> Query:
    if len(source) > MAX_QUERY_CHARS:
        raise QueryError(f"the query is {len(source):,} characters long; a query holds at most "
                         f"{MAX_QUERY_CHARS:,}")
    query = Query(source=source)
    pending_or = False
    negate_next = False
    # A NUL separates words to the index's tokenizer, and would end FTS5's MATCH string.
    for raw, quoted in _tokens(source.replace("\0", " ")):
        if not quoted and raw == "OR":
            pending_or = bool(query.clauses)  # a dangling OR is ignored
            continue
        if not quoted and raw in ("NOT", "AND"):
            negate_next = raw == "NOT"
            continue
        item, negated = _item(raw, quoted)
        if item is None:
            continue
        negated = negated or negate_next
        negate_next = False
        last = query.clauses[-1] if query.clauses else None
        if pending_or and last is not None and not negated and not last.negated:
            query.clauses[-1] = Clause(last.options + (item,))
        else:
            query.clauses.append(Clause((item,), negated))
        pending_or = False
    _check_size(query)
    return query


_WORD = re.compile(r"\w+")


def _check_size(query: Query) -> None:
    """QueryError when the query has more words and filters, or keys, than a query holds. A
    phrase counts its words, and so does a word FTS5 reads as several (`multi-agent`, `模型`)."""
    options = [option for clause in query.clauses for option in clause.options]
    keys = sum(1 for o in options if isinstance(o, Filter) and o.field == "key")
    terms = sum(len(_WORD.findall(cjk_spaced(o.text))) if isinstance(o, Text) else o.field != "key"
                for o in options)
    if terms > MAX_QUERY_TERMS:
        raise QueryError(f"the query has {terms:,} words and filters; a query holds at most {MAX_QUERY_TERMS}")
    if keys > MAX_QUERY_KEYS:
        raise QueryError(f"the query names {keys:,} keys; a query holds at most {MAX_QUERY_KEYS}")


def _item(raw: str, quoted: bool) -> tuple[Text | Filter | None, bool]:
    negated = False
    if quoted:
        head, _, text = raw.partition("\0")
        if head.startswith("-"):
            negated, head = True, head[1:]
        if head == "=":  # ="language models": this form only
            return (Text(text, phrase=True, exact=True) if _has_word(text) else None), negated
        if head:
            name = head[:-1].lower()
            if name in FILTERS:
                return _filter(name, text), negated
            _refuse_unknown_filter(head[:-1], text or '""')
            text = f"{head}{text}"
        return (Text(text, phrase=True) if _has_word(text) else None), negated
    if raw.startswith("-") and len(raw) > 1:
        negated, raw = True, raw[1:]
    name, colon, value = raw.partition(":")
    if colon and name.lower() in FILTERS and value:
        return _filter(name.lower(), value), negated
    if colon and value:
        _refuse_unknown_filter(name, value)
    exact = raw.startswith("=") and _has_word(raw)
    prefix = raw.endswith("*")
    text = raw.lstrip("=").rstrip("*") if exact else raw.rstrip("*")
    if not _has_word(text):
        return None, negated
    return Text(text, prefix=prefix, exact=exact), negated


def _refuse_unknown_filter(name: str, value: str) -> None:
    """`journal:kim` looks like a filter and would silently match nothing: say which exist.
    Not for `3:1`, `http://...`, `中文:x` or a quoted `"journal:kim"` (searched as text)."""
    if name.isascii() and name.isalpha() and not value.startswith("/"):
        raise QueryError(
            f"unknown filter {name}:{value}: the filters are {', '.join(f + ':' for f in FILTERS)}"
            f" (to search for the text, quote it: \"{name}:{value.strip(chr(34))}\")")


def _has_word(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


EMPTY = '""'  # how an empty filter value is shown
_COMPARISON = re.compile(r"^(>=|<=|>|<|=)?(.+)$")


def _filter(name: str, value: str) -> Filter:
    value = value.strip()
    if name in ("venue", "tag", "key", "citekey", "author"):
        if not value:
            raise QueryError(f"{name}: needs a value, e.g. {name}:{_EXAMPLE[name]}")
        return Filter(name, "=", value)
    if name == "status":
        if value.lower() not in STATUSES:
            raise QueryError(f"status:{value}: status is one of {', '.join(STATUSES)}")
        return Filter(name, "=", value.lower())
    if name == "notice":
        flag = NOTICE_FLAGS.get(value.lower(), value.lower())  # Crossref's kind: notice:retraction
        if flag not in NOTICE_VALUES:
            raise QueryError(f"notice:{value or EMPTY}: expected one of {', '.join(NOTICE_VALUES)}"
                             " (has:notice: any notice)")
        return Filter(name, "=", flag)
    if name == "has":
        if value.lower() not in HAS_VALUES:
            raise QueryError(f"has:{value}: expected one of {', '.join(HAS_VALUES)}")
        return Filter(name, "=", value.lower())
    if name == "year":
        low, dots, high = value.partition("..")
        if dots:
            return Filter(name, "range", (_year(low or "1900", value), _year(high or "2100", value)))
        op, number = _comparison(value)
        return Filter(name, op or "=", _year(number, value))
    if name == "topic":
        if not _digits(value) or not 1 <= int(value) <= MAX_TOPIC:
            raise QueryError(f"topic:{value or EMPTY}: expected a topic's number, e.g. topic:3 "
                             "(`catalog topics` lists them)")
        return Filter(name, "=", int(value))
    # rating
    op, number = _comparison(value)
    if not _digits(number) or not 1 <= int(number) <= 5:
        raise QueryError(f"rating:{value or EMPTY}: expected a rating 1-5, e.g. rating:4 or rating:>=4")
    return Filter(name, op or "=", int(number))


def _comparison(value: str) -> tuple[str | None, str]:
    """(`>=`, `2025`) from `>=2025`; an empty value (`year:""`, or `year:"` while typing) gives
    ("", ""), which the caller explains."""
    m = _COMPARISON.match(value)
    return m.groups() if m else (None, "")


def _digits(text: str) -> bool:
    """Whether `text` is a number int() reads, of at most 9 digits (`isdigit` also takes `²`)."""
    return 0 < len(text) <= 9 and text.isdecimal()


def _year(text: str, whole: str) -> int:
    if not (_digits(text) and len(text) == 4):
        raise QueryError(
            f"year:{whole or EMPTY}: expected a year like 2026, a range 2024..2026 or >=2025"
        )
    return int(text)


_EXAMPLE = {"venue": "ICML", "tag": "toread", "key": "k3x9q2m", "citekey": "vaswani2017attention",
            "author": "hinton"}


# --- sort orders --------------------------------------------------------------------------------

# Each order in its natural direction; `reverse` flips it. Unrated papers and papers without a
# year come last either way.
SORTS = ("relevance", "year", "rating", "title", "added")
SORT_NAMES = {
    "relevance": "relevance", "year": "year, newest first", "rating": "rating, best first",
    "title": "title, A to Z", "added": "date added, newest first",
}
REVERSED_NAMES = {
    "relevance": "relevance, worst first", "year": "year, oldest first",
    "rating": "rating, lowest first", "title": "title, Z to A", "added": "date added, oldest first",
}


@dataclass(frozen=True)
class Sort:
    """An order for results. "relevance" ranks by the words (newest first when there are none)."""

    field: str = "relevance"
    reverse: bool = False

    def __post_init__(self) -> None:
        if self.field not in SORTS:
            raise QueryError(f"cannot sort by {self.field!r}: sort by {', '.join(SORTS)}")

    @classmethod
    def parse(cls, text: str) -> "Sort":
        """`year`, or `-year` (reversed): the CLI's --sort and the TUI's remembered sort."""
        text = text.strip().lower()
        return cls(text.lstrip("-") or "relevance", text.startswith("-"))

    def __str__(self) -> str:
        return ("-" if self.reverse else "") + self.field

    @property
    def name(self) -> str:
        return (REVERSED_NAMES if self.reverse else SORT_NAMES)[self.field]

    def next(self) -> "Sort":
        """The next order in SORTS, in its natural direction (the TUI's O key)."""
        return Sort(SORTS[(SORTS.index(self.field) + 1) % len(SORTS)])

    def toggled(self, field: str) -> "Sort":
        """Sorting by `field` (a header click): the same field again reverses it."""
        return Sort(field, not self.reverse) if field == self.field else Sort(field)


RELEVANCE = Sort()
