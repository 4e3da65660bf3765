"""CSV: one row per paper, the columns a SQL user expects (COLUMNS), UTF-8, RFC 4180, cells a
spreadsheet would run as a formula neutralised (catalog/text/spreadsheet.py)."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import TextIO

from catalog.results import ExportPaper
from catalog.text.spreadsheet import COLUMNS, neutralised

NOTE_SEPARATOR = "\n\n---\n\n"


def row(p: ExportPaper) -> dict[str, object]:
    """The paper as JSON-ready values: tags and notes as lists, missing values as None."""
    return {
        "key": p.key, "title": p.title, "headline": p.headline, "user_title": p.user_title,
        "authors": p.authors, "venue": p.venue, "year": p.year, "status": p.status,
        "rating": p.rating, "tags": list(p.tags), "notes": list(p.notes), "doi": p.doi,
        "arxiv_id": p.arxiv_id, "url": p.url, "abstract": p.abstract,
        "added_at": p.added_at.isoformat(timespec="seconds"), "kind": p.kind,
    }


def write(papers: Sequence[ExportPaper], out: TextIO) -> None:
    """Tags separated by spaces (tags have none), notes by a `---` line; empty cells for none."""
    w = csv.writer(out)
    w.writerow(COLUMNS)
    for p in papers:
        values = row(p)
        values["tags"] = " ".join(p.tags)
        values["notes"] = NOTE_SEPARATOR.join(p.notes)
        w.writerow("" if values[c] is None else neutralised(str(values[c])) for c in COLUMNS)
