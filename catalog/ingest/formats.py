"""Which reader a file needs, by its suffix: paper lists, BibTeX, RIS, JSON/JSONL and CSV."""

from __future__ import annotations

from pathlib import Path

from catalog.ingest.mapping import FieldMap
from catalog.ingest.paperlist import PaperList, read_paper_list
from catalog.ingest.records import RecordFile

PAPER_LIST_SUFFIXES = {".txt", ".text", ".md", ""}
BIBTEX_SUFFIXES = {".bib", ".bibtex"}
JSON_SUFFIXES = {".json"}
JSONL_SUFFIXES = {".jsonl", ".ndjson"}
CSV_SUFFIXES = {".csv", ".tsv"}
RIS_SUFFIXES = {".ris"}
SUFFIXES = PAPER_LIST_SUFFIXES | BIBTEX_SUFFIXES | JSON_SUFFIXES | JSONL_SUFFIXES | CSV_SUFFIXES | RIS_SUFFIXES


def open_records(path: Path, *, venue: str | None = None, year: int | None = None,
                 field_map: FieldMap | None = None) -> PaperList | RecordFile:
    """The reader for the file's suffix; paper lists stream, the other formats are read whole."""
    suffix = path.suffix.lower()
    if suffix in BIBTEX_SUFFIXES:
        from catalog.ingest.bibtex import read_bibtex

        return read_bibtex(path, venue=venue, year=year)
    if suffix in JSON_SUFFIXES | JSONL_SUFFIXES:
        from catalog.ingest.jsonfile import read_json, read_jsonl

        reader = read_json if suffix in JSON_SUFFIXES else read_jsonl
        return reader(path, field_map=field_map, venue=venue, year=year)
    if suffix in CSV_SUFFIXES:
        from catalog.ingest.csvfile import read_csv

        return read_csv(path, field_map=field_map, venue=venue, year=year)
    if suffix in RIS_SUFFIXES:
        from catalog.ingest.ris import read_ris

        return read_ris(path, venue=venue, year=year)
    return read_paper_list(path, venue=venue, year=year)
