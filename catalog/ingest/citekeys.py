"""Cite keys: which key a file gave an entry that LaTeX can cite, and the key made for a paper
that never had one (Better BibTeX's default, auth.lower + year + shorttitle: vaswani2017attention;
without authors the venue, year and first title word: icml2026-plash). Pure functions; the
importer gives each new paper its key once (catalog/importing/importer.py), exports use it."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import NamedTuple

from catalog.ingest.people import name_parts, split_people

_SKIP = frozenset(
    "a an the on of in for to toward towards and with via from is are do does can how what when "
    "why we our this that at by as not be".split()
)
# A key LaTeX takes: no spaces, braces, commas, `%` or `#`; not a link (Zotero's CSL-JSON ids
# are item URIs). A bare number is a key only in BibTeX (ACM's exports, kept by BibDesk and
# JabRef: `@inproceedings{1137631,`, cited as such); a RIS `ID` or CSL id that is one is a
# record number.
_CITABLE = re.compile(r"[^\s{}(),%#'\"=\\~]+")
MAX_KEY = 100


def citable(key: object, numbers: bool = False) -> str | None:
    """The key, when LaTeX can cite it; a bare number only with `numbers`."""
    if not isinstance(key, str) or len(key) > MAX_KEY:
        return None
    return key if _CITABLE.fullmatch(key) and "://" not in key and (numbers or not key.isdigit()) else None


class FileKey(NamedTuple):
    """The key one file gave a record: its format ("bibtex", "csl-json", "ris", ...) and the
    entry's own key (None: it gave none)."""

    format: str
    cite_key: str | None


def own_key(records: Iterable[FileKey]) -> str | None:
    """The cite key a paper's files gave it: BibTeX's first, then a CSL-JSON `id` or RIS `ID`.
    `records`: each of its records' FileKey (or a record with the same two fields), oldest first."""
    for record in sorted(records, key=lambda r: r.format != "bibtex"):
        if found := citable(record.cite_key, numbers=record.format == "bibtex"):
            return found
    return None


_NOT_SLUG = re.compile(r"[^a-z0-9]")
_WORD = re.compile(r"[^\s\-–—:/]+")


def ascii_slug(text: str) -> str:
    if text.isascii():  # most text: no accents to strip (an import makes a key for every new paper)
        return _NOT_SLUG.sub("", text.lower())
    folded = unicodedata.normalize("NFKD", text)
    return _NOT_SLUG.sub("", "".join(c for c in folded if not unicodedata.combining(c)).lower())


def _first_word(title: str) -> str:
    for found in _WORD.finditer(title):  # lazily: a headline can be a long sentence
        slug = ascii_slug(found.group())
        if slug and slug not in _SKIP:
            return slug
    return ""


PATTERN = "auth.lower+year+shorttitle"
SETTING = "citekey_pattern"  # the catalog_setting that holds a catalog's own pattern
# What a pattern is made of: the first author's family name (as written, or in lower case),
# the year, the title's first significant word, its first three.
PARTS = ("auth", "auth.lower", "year", "shorttitle", "title3")


def pattern_parts(pattern: str) -> list[str]:
    """A key pattern's parts; CatalogError (one line) for one that is not a pattern."""
    from catalog.errors import CatalogError

    parts = [p.strip() for p in pattern.split("+")]
    unknown = [p for p in parts if p not in PARTS]
    if not pattern.strip() or unknown or not any(p.startswith("auth") for p in parts):
        raise CatalogError(f"cite key pattern {pattern!r}: join {', '.join(PARTS)} with +, with an"
                           f" auth part (the default is {PATTERN})")
    return parts


def _words(title: str, n: int) -> list[str]:
    out = []
    for word in re.split(r"[\s\-–—:/]+", title):
        slug = ascii_slug(word)
        if slug and slug not in _SKIP:
            out.append(slug)
            if len(out) == n:
                break
    return out


def made_key(*, authors: str | None, year: int | None, title: str, venue: str | None, fallback: str,
             pattern: str = PATTERN) -> str:
    """The key `pattern` makes (auth.lower + year + shorttitle: vaswani2017attention); without
    authors venue + year + "-" + title word."""
    year_text = str(year) if year else ""
    word = _first_word(title)
    people = [n for n in split_people(authors) if n != "et al."]
    if people:
        family = name_parts(people[0])[1]
        last = family.split()[-1] if family else ""
        slug = ascii_slug(last)
        if slug:
            cased = re.sub(r"[^A-Za-z0-9]", "", unicodedata.normalize("NFKD", last).encode("ascii", "ignore").decode())
            made = {"auth": cased or slug, "auth.lower": slug, "year": year_text, "shorttitle": word,
                    "title3": "".join(w.capitalize() for w in _words(title, 3))}
            return "".join(made[part] for part in pattern_parts(pattern))
    venue_slug = ascii_slug(venue or "")
    if venue_slug:
        return f"{venue_slug}{year_text}-{word}" if word else f"{venue_slug}{year_text}"
    return f"{word}{year_text}" if word else fallback


def suffixed(key: str, n: int, *, generated: bool) -> str:
    """The n-th other paper's key (n from 1): a made key takes a, b, c (as Better BibTeX's do),
    a file's key -2, -3."""
    if generated:
        return key + (chr(ord("a") + n - 1) if n <= 26 else str(n))
    return f"{key}-{n + 1}"


class NextFree:
    """The keys one write transaction gives, outside an import (`citekey regen`, a split): each
    (key, made) carries on from the last suffix it gave, as an import's do, and suffixes are
    asked of the database (`taken`: which of these keys papers hold, lower case) in blocks that
    double. One lookup per suffix tried made giving n papers one key's suffixes quadratic."""

    FIRST_BLOCK = 4

    def __init__(self, taken):
        self._taken_of = taken
        self.taken: set[str] = set()
        self._last: dict[tuple[str, bool], int] = {}
        self._asked: dict[tuple[str, bool], int] = {}

    def give(self, key: str, made: bool, current: str | None = None) -> str:
        """`key`, or its next suffix no paper holds; `current`, the paper's own key, counts as
        free for it (a key it keeps is no change)."""
        name = (key.lower(), made)
        mine = (current or "").lower()
        n = self._last.get(name, 0)
        given = suffixed(key, n, generated=made) if n else key
        while True:
            if n > self._asked.get(name, -1):  # ask the next block: this suffix on
                block = range(n, n + max(self.FIRST_BLOCK, n))
                self.taken |= self._taken_of([suffixed(key, m, generated=made) if m else key for m in block])
                self._asked[name] = block[-1]
            if given.lower() == mine or given.lower() not in self.taken:
                break
            n += 1
            given = suffixed(key, n, generated=made)
        self._last[name] = n
        return given

    def moved(self, old: str | None, new: str) -> None:
        """A paper's key changed from `old` to `new` in the database."""
        if old:
            self.taken.discard(old.lower())
        self.taken.add(new.lower())
