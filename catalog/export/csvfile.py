"""CSV: one row per paper, the columns a SQL user expects (see COLUMNS), UTF-8, RFC 4180.

Cells a spreadsheet would run as a formula are neutralised (OWASP's rule for CSV injection):
text starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a `'` in front, and so
does text starting with `'` itself, so that reading takes exactly one `'` off any cell that
starts with one (`restored`). A cell that is just a number (`-1`, `+2.5`) is left as it is:
a spreadsheet reads it as that number, never as a formula. `catalog import` knows its own
export by its header (HEADER) and restores the cells; other CSV files are read as they are.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from typing import TextIO

from catalog.results import ExportPaper

COLUMNS = ("key", "title", "headline", "user_title", "authors", "venue", "year", "status", "rating",
           "tags", "notes", "doi", "arxiv_id", "url", "abstract", "added_at", "kind")
NOTE_SEPARATOR = "\n\n---\n\n"
# The columns every export since formulas are neutralised starts with (new columns go after).
HEADER = COLUMNS
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


def neutralised(cell: str) -> str:
    """The cell as written: a `'` in front of text a spreadsheet would take for a formula."""
    if cell.startswith(FORMULA_STARTS + ("'",)) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def restored(cell: str) -> str:
    """A cell of a catalog CSV export as it was before `neutralised`."""
    return cell[1:] if cell.startswith("'") else cell


def is_own_header(header: Sequence[str]) -> bool:
    """Whether a CSV header is that of catalog's own export (its cells were neutralised)."""
    return tuple(header[:len(HEADER)]) == HEADER


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
