"""CSV (and tab-separated) files with a header row, as spreadsheets, Zotero and this catalog's
own export write them. Columns are found through catalog/ingest/mapping.py; the delimiter
(comma, semicolon or tab) is taken from the header line. In the catalog's own export (known by
its header) a `'` in front of a cell is the export's guard against spreadsheet formulas and is
taken off (catalog/text/spreadsheet.py); other files are read as they are.

A row with more cells than the header, or without a title or abstract, is skipped with a
warning; a file without a title or abstract column fails as a whole.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from catalog.ingest import fields, mapping
from catalog.ingest.links import FileLinks
from catalog.ingest.paperlist import MAX_ABSTRACT_CHARS
from catalog.ingest.records import IngestError, RecordFile, first_reason, skipped
from catalog.ingest.textfile import read_text
from catalog.text.spreadsheet import is_own_header, restored

if csv.field_size_limit() < 4 * MAX_ABSTRACT_CHARS:
    csv.field_size_limit(4 * MAX_ABSTRACT_CHARS)


def read_csv(path: Path, *, field_map: mapping.FieldMap | None = None, venue: str | None = None,
             year: int | None = None) -> RecordFile:
    name = str(path)
    field_map = field_map or mapping.FieldMap()
    source = read_text(path, "a CSV file")
    first_line = source.lstrip("\r\n").split("\n", 1)[0]
    delimiter = "\t" if path.suffix.lower() == ".tsv" else max(",;\t", key=first_line.count)
    reader = csv.reader(io.StringIO(source, newline=""), delimiter=delimiter)
    out = RecordFile(format="csv", records=[])
    links = FileLinks(name)
    header: list[str] | None = None
    columns: dict[str, list[str]] = {}
    zotero = own = False
    line = 1
    position = 0
    try:
        for row in reader:
            start, line = line, reader.line_num + 1
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = [cell.strip() for cell in row]
                columns = field_map.columns(header)
                # Zotero's CSV: "Last, First; Last, First", one person per `;`.
                zotero = {"Item Type", "Author"} <= set(header)
                own = is_own_header(header)
                if missing := field_map.missing(header):
                    raise IngestError(name, f"no column {missing[0]!r} (--map); columns: {_names(header)}",
                                      line=start)
                if not columns["title"] and not columns["abstract"]:
                    raise IngestError(name, f"no title or abstract column (name one with --map title=COLUMN); "
                                            f"columns: {_names(header)}", line=start)
                continue
            position += 1
            if len(row) > len(header):
                out.warnings.append(f"{name}:{start}: row {position} has {len(row)} cells but the header "
                                    f"has {len(header)}; skipped")
                continue
            values = dict(zip(header, map(restored, row) if own else row))
            try:
                record = fields.record(
                    mapping.values(values, columns, links=links, line=start, semicolons=zotero),
                    label=f"row {position}", position=position,
                    line=start, venue_default=venue, year_default=year)
                record.kept = mapping.kept(values, csv=True)
                out.records.append(record)
            except fields.EntryError as exc:
                out.warnings.append(skipped(name, start, exc))
    except csv.Error as exc:
        raise IngestError(name, f"not valid CSV ({exc})", line=reader.line_num or None) from None
    out.warnings.extend(links.warnings())
    if header is None:
        raise IngestError(name, "file is empty")
    if not out.records:
        first = first_reason(name, out.warnings) if out.warnings else "no rows after the header"
        raise IngestError(name, f"no usable papers ({first})")
    return out


def _names(header: list[str]) -> str:
    shown = ", ".join(repr(h) for h in header[:12])
    return shown + (", ..." if len(header) > 12 else "")
