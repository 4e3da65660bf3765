"""RIS files (EndNote, Zotero, Mendeley, publishers' "export citation"), read with rispy.

Each `TY  -` ... `ER  -` record is a paper: title from TI/T1, authors from AU/A1 ("Last,
First"), year from PY/Y1/DA, venue from T2/JO/JF/BT/T3, abstract from AB/N2, DOI, URLs. A
record without a title or abstract is skipped with a warning naming its line; a file without
any record fails as a whole.
"""

from __future__ import annotations

import re
from pathlib import Path

from catalog.ingest import kinds
from catalog.ingest import fields
from catalog.ingest.links import FileLinks
from catalog.ingest.records import IngestError, Kept, RecordFile, first_reason, skipped
from catalog.ingest.textfile import read_text

_TITLE = ("title", "primary_title", "translated_title")
_AUTHORS = ("authors", "first_authors")
_YEAR = ("year", "publication_year", "date")
_VENUE = ("secondary_title", "book_title", "journal_name", "alternate_title3", "alternate_title1",
          "alternate_title2", "tertiary_title")
_ABSTRACT = ("abstract", "notes_abstract")


def read_ris(path: Path, *, venue: str | None = None, year: int | None = None) -> RecordFile:
    import rispy

    name = str(path)
    source = read_text(path, "a RIS file")
    lines: list[int] = []

    class Parser(rispy.RisParser):
        """rispy's parser, noting the line where each record starts."""

        def _iter_till_start(self, numbered):
            record = super()._iter_till_start(numbered)
            lines.append(numbered.line)
            return record

    split = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept = _kept_records(split)
    unterminated = _unterminated(split)
    if unterminated is not None:  # rispy drops a last record without ER: end it for it
        split.append("ER  - ")
    numbered = _Numbered(split)
    try:
        # BT (the book or proceedings title) is in older RIS files; rispy does not map it.
        mapping = {**rispy.TAG_KEY_MAPPING, "BT": "book_title", "L3": "related_records"}
        entries = Parser(mapping=mapping, skip_unknown_tags=True, enforce_list_tags=False).parse_lines(numbered)
    except Exception as exc:  # rispy's own errors on malformed files
        raise IngestError(name, f"not a readable RIS file ({exc})", line=numbered.line or None) from None
    if not entries:
        raise IngestError(name, "no RIS records found (expected lines like 'TY  - JOUR')")
    out = RecordFile(format="ris", records=[])
    if unterminated is not None:
        out.warnings.append(f"{name}:{unterminated}: the last record has no 'ER  -' line (the file ends"
                            " inside it); it is imported as far as it goes")
    links = FileLinks(name)
    for position, (entry, line) in enumerate(zip(entries, lines), 1):
        values = _values(entry)
        values["url"] = links.pick(_link_fields(entry), line)
        try:
            record = fields.record(values, label=f"record {position}", position=position,
                                   line=line, venue_default=venue, year_default=year)
            record.kept = kept.get(line)
            out.records.append(record)
        except fields.EntryError as exc:
            out.warnings.append(skipped(name, line, exc))
    out.warnings.extend(links.warnings())
    if not out.records:
        raise IngestError(name, f"no usable records ({first_reason(name, out.warnings)})")
    return out


_TAG = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")


def _kept_records(lines: list[str]) -> dict[int, Kept]:
    """Every tag of every record as written, by the line of its `TY`: (tag, value) in file
    order, a tag that repeats (AU, KW) once per value; a line that is no tag continues the
    value above it."""
    out: dict[int, Kept] = {}
    pairs: list | None = None
    start = kind = None
    for number, text in enumerate(lines, 1):
        m = _TAG.match(text.lstrip("\ufeff"))
        if m is None:
            if pairs and text.strip():
                pairs[-1][1] = f"{pairs[-1][1]} {text.strip()}".strip()
            continue
        tag, value = m[1], (m[2] or "").strip()
        if tag == "TY":
            pairs, start, kind = [], number, value
        elif pairs is None:
            continue
        elif tag == "ER":
            out[start] = _finish(kind, pairs)
            pairs = None
        elif not (tag == "CN" and value.startswith("catalog:")):  # the catalog's own key
            pairs.append([tag, value])
    if pairs is not None:
        out[start] = _finish(kind, pairs)
    return out


def _unterminated(lines: list[str]) -> int | None:
    """The line of the last record's TY when the file ends before its ER, else None."""
    last_start = None
    for number, text in enumerate(lines, 1):
        m = _TAG.match(text.lstrip("\ufeff"))
        if m and m[1] == "TY":
            last_start = number
        elif m and m[1] == "ER":
            last_start = None
    return last_start


def _finish(kind: str | None, pairs: list) -> Kept:
    key = next((v for t, v in pairs if t == "ID" and v), None)
    return Kept(kind or None, key, pairs, tuple(v for t, v in pairs if t == "KW" and v))


class _Numbered:
    """The file's lines, counting them as rispy reads them."""

    def __init__(self, lines: list[str]):
        self._lines = iter(lines)
        self.line = 0

    def __iter__(self):
        return self

    def __next__(self) -> str:
        value = next(self._lines)
        self.line += 1
        return value


def _first(entry: dict, keys: tuple[str, ...]) -> object:
    for key in keys:
        value = entry.get(key)
        if isinstance(value, list):
            value = next((v for v in value if str(v).strip()), None)
        if value not in (None, ""):
            return value
    return None


# Where a record's link may be, best first: UR, then L2 (full text), L1 (attachments), L3
# (related records), L4 (figures).
_LINKS = ("urls", "file_attachments2", "file_attachments1", "related_records", "figure")


def _own_key(value: object) -> str | None:
    """The paper's key in the catalog a file was exported from (its CN, `catalog:KEY`)."""
    return value.removeprefix("catalog:") if isinstance(value, str) and value.startswith("catalog:") else None


def _link_fields(entry: dict) -> list[object]:
    found: list[object] = []
    for key in _LINKS:
        value = entry.get(key)
        found.extend(value if isinstance(value, list) else [value] if value else [])
    return found


def _values(entry: dict) -> dict[str, object]:
    urls = _link_fields(entry)
    found_doi = fields.doi(_first(entry, ("doi",)))
    arxiv = next((a for a in (fields.arxiv_id(u) for u in urls) if a), None)
    arxiv = arxiv or fields.arxiv_id(_first(entry, ("notes", "note", "accession_number")))
    venue = _first(entry, _VENUE)
    authors = next((entry[k] for k in _AUTHORS if entry.get(k)), None)
    title, abstract = _first(entry, _TITLE), _first(entry, _ABSTRACT)
    return {
        "title": str(title) if title else None,
        "abstract": str(abstract) if abstract else "",
        "authors": fields.any_authors(authors if isinstance(authors, list) else [authors] if authors else None),
        "year": fields.year(_first(entry, _YEAR)),
        "venue": fields.venue(str(venue)) if venue else ("arXiv" if arxiv else None),
        "doi": found_doi,
        "arxiv_id": arxiv,
        "kind": kinds.thesis(kinds.named(entry.get("type_of_reference")), entry.get("type_of_work")),
        "key": _own_key(entry.get("call_number")),
        "volume": entry.get("volume"),  # what names a record without title or abstract
        "pages": entry.get("start_page"),
    }
