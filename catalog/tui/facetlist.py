"""A wide facet (a real library's 3,000+ venues, 20,000+ authors) as the sidebar shows it: its entries by
count, the top few as tree nodes and the rest behind "N more…", found by typing in a picker.

Pure functions on the counts (no Textual, no database): the sidebar's worker groups the
entries off the UI thread, and the UI thread builds only the few nodes shown: one tree node
per venue, built on the UI thread, froze the keys typed meanwhile (docs/benchmarks.md)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from rich.cells import cell_len

from catalog.results import Facets

SHOWN = 10  # entries of a facet shown as tree nodes (those in the query come too)
PICKED = 100  # matches the picker lists at once: type to narrow
NO_VENUE = "?"  # the facet's name for papers without a venue


@dataclass(frozen=True)
class Entry:
    """One venue (or other value) of a facet: its papers, and per year for a venue."""

    name: str
    count: int
    years: tuple[tuple[int | None, int], ...] = ()
    folded: str = ""  # the name casefolded, for the picker's filter

    @property
    def known(self) -> bool:
        return self.name != NO_VENUE


def venue_entries(facets: Facets) -> tuple[Entry, ...]:
    """The venues the counts hold, most papers first (then by name)."""
    by_venue: dict[str, list[tuple[int | None, int]]] = defaultdict(list)
    for venue, year, n in facets.venues:
        by_venue[venue].append((year, n))
    entries = [Entry(name, sum(n for _, n in years), tuple(years), name.casefold())
               for name, years in by_venue.items()]
    entries.sort(key=lambda e: (-e.count, e.folded))
    return tuple(entries)


def author_entries(facets: Facets) -> tuple[Entry, ...]:
    """Every person the counts hold, most papers first, as the store sorted them: for the
    picker only (a real library's tens of thousands of entries cost the interpreter the UI
    thread shares)."""
    return tuple(Entry(a.name, a.papers, (), a.name.casefold()) for a in facets.authors)


def top_authors(facets: Facets, active: set[str], shown: int = SHOWN) -> tuple[Entry, ...]:
    """The people the sidebar shows: the first `shown` and those the query names."""
    people = list(facets.authors[:shown])
    if active:
        people += [a for a in facets.authors[shown:] if a.name in active]
    return tuple(Entry(a.name, a.papers, (), a.name.casefold()) for a in people)


def top(entries: tuple[Entry, ...], active: set[str], shown: int = SHOWN) -> tuple[list[Entry], int]:
    """The entries shown as nodes (the first `shown`, and those whose names are `active`,
    in use by the query, wherever they rank) and how many are left for "N more…"."""
    out = list(entries[:shown])  # (the rest only when the query names some: 5,000 at 1M)
    if active:
        out += [e for e in entries[shown:] if e.name in active]
    return out, len(entries) - len(out)


def column_width(names: Iterable[str], least: int, most: int) -> int:
    """The cells the widest of `names` takes, between `least` and `most`: it stops at the first
    name of `most` cells (at a million papers the counts hold 55,000 venue-years, and measuring
    them all held the UI thread whenever the whole catalog's counts came)."""
    width = least
    for name in names:
        width = max(width, cell_len(name))
        if width >= most:
            return most
    return width


def matching(entries: tuple[Entry, ...], text: str, limit: int = PICKED) -> tuple[list[Entry], int]:
    """The entries whose names hold every word of `text` (any case), at most `limit` of them,
    and how many match in all. The entry named exactly `text` comes first (typing "Lea Zozo"
    in full listed "Lea Zozora", with more papers, above it); then those where each word
    typed starts a word of the name (`neur`: NeurIPS, Neural Computation), then those where
    one is only inside a word ("Entrepreneurship", with more papers, came first); each most
    papers first. Papers without a venue are not a venue to filter by."""
    words, whole = text.casefold().split(), " ".join(text.casefold().split())
    found = [e for e in entries if e.known and all(w in e.folded for w in words)]
    starts = [re.compile(r"(?<!\w)" + re.escape(w)) for w in words]  # at a word's start
    shown = [e for e in found if e.folded == whole]
    for inside in (False, True):  # only until `limit` are found: `a` matches 19,000 people
        for e in found:
            if len(shown) >= limit:
                break
            if e.folded != whole and inside != all(s.search(e.folded) for s in starts):
                shown.append(e)
    return shown, len(found)
