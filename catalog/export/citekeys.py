"""Readable citation keys, unique within one export: vaswani2017attention, icml2026-plash.

First author's family name, year and first significant title word; without authors, the venue
and year and the headline's first word. Keys that would repeat get a, b, c... suffixes.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from catalog.ingest.fields import name_parts, split_people
from catalog.results import ExportPaper

_SKIP = frozenset(
    "a an the on of in for to toward towards and with via from is are do does can how what when "
    "why we our this that at by as not be".split()
)


def ascii_slug(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text)
    return re.sub(r"[^a-z0-9]", "", "".join(c for c in folded if not unicodedata.combining(c)).lower())


def _first_word(title: str) -> str:
    for word in re.split(r"[\s\-–—:/]+", title):
        slug = ascii_slug(word)
        if slug and slug not in _SKIP:
            return slug
    return ""


def stem(p: ExportPaper) -> str:
    year = str(p.year) if p.year else ""
    word = _first_word(p.citation_title)
    people = [n for n in split_people(p.authors) if n != "et al."]
    if people:
        family = ascii_slug(name_parts(people[0])[1].split()[-1]) if name_parts(people[0])[1] else ""
        if family:
            return f"{family}{year}{word}"
    venue = ascii_slug(p.venue or "")
    if venue:
        return f"{venue}{year}-{word}" if word else f"{venue}{year}"
    return f"{word}{year}" if word else p.key


# A key an entry had that LaTeX takes: no spaces, braces, commas or `%`, and not a link (Zotero's
# CSL-JSON ids are item URIs) or a bare number (RIS `ID`s often are).
_OWN_KEY = re.compile(r"[^\s{}(),%#'\"=\\~]+")


def own_key(p: ExportPaper) -> str | None:
    """The cite key the paper's file gave it: BibTeX's first, then a CSL-JSON `id` or RIS `ID`."""
    ordered = sorted(p.records, key=lambda r: r.format != "bibtex")
    for record in ordered:
        key = record.cite_key
        if key and _OWN_KEY.fullmatch(key) and "://" not in key and not key.isdigit():
            return key
    return None


def citation_keys(papers: Sequence[ExportPaper]) -> list[str]:
    """Each paper's own cite key where its file gave one (a key two papers share gets -2,
    -3... on the later ones), else a generated one that no own key takes."""
    own = [own_key(p) for p in papers]
    generated = _generated(papers, taken={k.lower() for k in own if k})
    out, seen = [], set()
    for key, made in zip(own, generated):
        key = key or made
        if key.lower() in seen:
            n = 2
            while f"{key}-{n}".lower() in seen:
                n += 1
            key = f"{key}-{n}"
        seen.add(key.lower())
        out.append(key)
    return out


def _generated(papers: Sequence[ExportPaper], taken: set[str]) -> list[str]:
    stems = [stem(p) for p in papers]
    counts = Counter(stems)
    for s in set(stems) & taken:
        counts[s] += 1  # an own key holds it: the generated ones take suffixes
    used = {s for s, n in counts.items() if n == 1} | taken
    seen: Counter[str] = Counter()
    out = []
    for s in stems:
        if counts[s] == 1:
            out.append(s)
            continue
        while True:
            n = seen[s]
            seen[s] += 1
            suffix = chr(ord("a") + n) if n < 26 else str(n + 1)
            if s + suffix not in used:
                break
        used.add(s + suffix)
        out.append(s + suffix)
    return out
