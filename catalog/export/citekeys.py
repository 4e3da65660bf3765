"""Readable citation keys, unique within one export: the paper's own (its file's, or the one
the catalog made for it once: catalog/ingest/citekeys.py), else one made now for papers imported
before keys were kept (vaswani2017attention, icml2026-plash). Keys that would repeat get
suffixes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from catalog.ingest.citekeys import FileKey, made_key, own_key as _own_key, suffixed
from catalog.results import ExportPaper


def stem(p: ExportPaper) -> str:
    return made_key(authors=p.authors, year=p.year, title=p.citation_title, venue=p.venue, fallback=p.key)


def own_key(p: ExportPaper) -> str | None:
    """The paper's cite key: the one the catalog keeps for it, else its file's."""
    return p.cite_key or _own_key([FileKey(r.format, r.cite_key) for r in p.records])


def citation_keys(papers: Sequence[ExportPaper]) -> list[str]:
    """Each paper's own cite key where it has one (a key two papers share gets -2, -3... on the
    later ones), else a made one that no own key takes."""
    own = [own_key(p) for p in papers]
    generated = _generated(papers, taken={k.lower() for k in own if k})
    out, seen = [], set()
    for key, made in zip(own, generated):
        key = key or made
        if key.lower() in seen:
            n = 1
            while suffixed(key, n, generated=False).lower() in seen:
                n += 1
            key = suffixed(key, n, generated=False)
        seen.add(key.lower())
        out.append(key)
    return out


def _generated(papers: Sequence[ExportPaper], taken: set[str]) -> list[str]:
    stems = [stem(p) for p in papers]
    counts = Counter(stems)
    for s in set(stems) & taken:
        counts[s] += 1  # an own key holds it: the made ones take suffixes
    used = {s for s, n in counts.items() if n == 1} | taken
    seen: Counter[str] = Counter()
    out = []
    for s in stems:
        if counts[s] == 1:
            out.append(s)
            continue
        while True:
            seen[s] += 1
            candidate = suffixed(s, seen[s], generated=True)
            if candidate not in used:
                break
        used.add(candidate)
        out.append(candidate)
    return out
