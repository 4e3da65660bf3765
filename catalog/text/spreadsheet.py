"""The guard against spreadsheet formulas in CSV cells (OWASP's rule for CSV injection), shared by
the CSV export (catalog/export/csvfile.py), which writes it, and the CSV reader
(catalog/ingest/csvfile.py), which takes it off again in the catalog's own export.

Text starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a `'` in front, and so does
text starting with `'` itself, so that reading takes exactly one `'` off any cell that starts with
one (`restored`). A cell that is just a number (`-1`, `+2.5`) is left as it is: a spreadsheet reads
it as that number, never as a formula.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# The columns of the catalog's CSV export (new columns go after: its header is how a re-import
# knows the cells were neutralised).
COLUMNS = ("key", "title", "headline", "user_title", "authors", "venue", "year", "status", "rating",
           "tags", "notes", "doi", "arxiv_id", "url", "abstract", "added_at", "kind")
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
