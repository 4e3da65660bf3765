"""CSL-JSON (what Zotero, Pandoc and citeproc read): an array of items, valid against the CSL
1.0.2 input schema. A paper whose kind is known (catalog/kinds.py) has its CSL type:
article-journal, paper-conference, chapter, book, thesis (genre "Master's thesis" for a
master's), report, or `article` for a preprint.
One whose kind is not known (a paper list's) is `paper-conference`, or `article` for arXiv
preprints and papers without a venue. The venue is the container-title; an arXiv id is the
`number` (arXiv:ID)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from catalog import kinds
from catalog.export.citekeys import citation_keys
from catalog.ingest.fields import is_organisation, name_parts, split_people
from catalog.results import ExportPaper


def person(name: str) -> dict[str, str]:
    given, family = name_parts(name)
    return {"family": family, "given": given} if given and not is_organisation(name) else {"literal": name}


# kind -> CSL type
TYPES = {"article": "article-journal", "conference": "paper-conference", "chapter": "chapter",
         "book": "book", "thesis": "thesis", "masters": "thesis", "report": "report",
         "preprint": "article"}


def item(p: ExportPaper, key: str) -> dict[str, object]:
    preprint = not p.venue or p.venue.lower() == "arxiv"
    kind = TYPES.get(p.kind or "") or ("article" if preprint else "paper-conference")
    out: dict[str, object] = {"id": key, "type": kind, "title": p.citation_title}
    people = [n for n in split_people(p.authors) if n != "et al."]
    if people:
        out["author"] = [person(n) for n in people]
    if p.kind == "masters":  # CSL has one thesis type: its genre says which (as Zotero writes it)
        out["genre"] = kinds.MASTERS_GENRE
    if p.venue:
        out["container-title"] = p.venue
    if p.year:
        out["issued"] = {"date-parts": [[p.year]]}
    if p.abstract:
        out["abstract"] = p.abstract
    if p.doi:
        out["DOI"] = p.doi
    if p.arxiv_id:
        out["number"] = f"arXiv:{p.arxiv_id}"
    if p.link:
        out["URL"] = p.link
    if p.tags:
        out["keyword"] = ", ".join(p.tags)
    return out


def write(papers: Sequence[ExportPaper], out: TextIO) -> None:
    out.write("[")
    for i, (p, key) in enumerate(zip(papers, citation_keys(papers))):
        out.write(("," if i else "") + "\n  " + json.dumps(item(p, key), ensure_ascii=False))
    out.write("\n]\n")
