"""Project .bib files kept current (`catalog bib add thesis.bib tag:thesis`): each is a query
(and optionally the keys a LaTeX .aux file cites), remembered in the catalog's settings and
rewritten by `catalog bib sync` and after imports and tag changes, atomically and only when
its content changes. Coordinates Catalog's export and the safe file writer; holds no SQL."""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

PREFIX = "bibfile:"  # catalog_setting name: PREFIX + the file's absolute path
_CITATION = re.compile(r"\\citation\{([^}]*)\}")


@dataclass(frozen=True)
class BibFile:
    path: str
    query: str
    aux: str | None = None

    def as_setting(self) -> tuple[str, str]:
        return PREFIX + self.path, json.dumps({"query": self.query, "aux": self.aux})

    @classmethod
    def from_setting(cls, name: str, value: str) -> "BibFile":
        found = json.loads(value)
        return cls(name.removeprefix(PREFIX), found.get("query", ""), found.get("aux"))


@dataclass(frozen=True)
class Synced:
    path: str
    papers: int
    written: bool  # False: its content was already this


def cited(aux: str | None) -> set[str] | None:
    """The keys a LaTeX .aux file cites (\\citation{a,b}); None without one, or when it is gone."""
    if not aux:
        return None
    try:
        text = Path(aux).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return {key.strip() for m in _CITATION.finditer(text) for key in m[1].split(",") if key.strip()}


def render(papers, keys_wanted: set[str] | None) -> tuple[str, int]:
    """The BibTeX text of these papers (only those `keys_wanted` cites, when given), and how many."""
    from catalog.export import bibtex
    from catalog.export.citekeys import citation_keys

    if keys_wanted is not None:
        papers = [p for p, key in zip(papers, citation_keys(papers)) if key in keys_wanted or "*" in keys_wanted]
    out = io.StringIO()
    bibtex.write(papers, out)
    return out.getvalue(), len(papers)
