"""JSON (.json: an array of papers, CSL-JSON included, or an object holding one) and JSON Lines
(.jsonl: one paper per line). Fields are found through catalog/ingest/mapping.py.

A line that is not JSON, or an item that is not an object or has no title or abstract, is
skipped with a warning; a .json file that is not JSON at all fails with its line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from catalog.ingest import fields, mapping
from catalog.ingest.links import FileLinks
from catalog.ingest.records import IngestError, RecordFile, first_reason, skipped
from catalog.ingest.textfile import LineIndex, read_text

_LIST_KEYS = ("papers", "items", "references", "records", "entries", "data", "results")


def read_json(path: Path, *, field_map: mapping.FieldMap | None = None, venue: str | None = None,
              year: int | None = None) -> RecordFile:
    name = str(path)
    source = read_text(path, "a JSON file")
    lines = LineIndex(source)
    items = _json_items(name, source, lines)
    return _records(name, "json", items, field_map or mapping.FieldMap(), venue, year)


_TOO_DEEP = "JSON nested too deeply to read (a paper is an object of fields)"


def read_jsonl(path: Path, *, field_map: mapping.FieldMap | None = None, venue: str | None = None,
               year: int | None = None) -> RecordFile:
    name = str(path)
    source = read_text(path, "a JSON Lines file")
    items: list[tuple[int, object]] = []
    bad: list[str] = []
    first_bad: tuple[int, str] | None = None  # line and reason of the first line that is not JSON
    for number, line in enumerate(source.splitlines(), 1):
        if not line.strip():
            continue
        try:
            items.append((number, json.loads(line)))
        except (json.JSONDecodeError, RecursionError) as exc:
            reason = (f"not valid JSON ({exc.msg}, column {exc.colno})"
                      if isinstance(exc, json.JSONDecodeError) else _TOO_DEEP)
            first_bad = first_bad or (number, reason)
            bad.append(skipped(name, number, reason))
    if not items:
        raise IngestError(name, f"not JSON Lines: {first_bad[1] if first_bad else 'no lines'}",
                          line=first_bad[0] if first_bad else None)
    found = _records(name, "jsonl", items, field_map or mapping.FieldMap(), venue, year)
    found.warnings[:0] = bad
    found.warnings.sort(key=lambda w: int(re.search(r":(\d+): ", w)[1]))  # type: ignore[index]
    return found


def _json_items(name: str, source: str, lines: LineIndex) -> list[tuple[int, object]]:
    """The papers in a JSON document, each with the line where it starts."""
    try:
        document = json.loads(source)
    except json.JSONDecodeError as exc:
        raise IngestError(name, f"not valid JSON ({exc.msg}, column {exc.colno})", line=exc.lineno) from None
    except RecursionError:
        raise IngestError(name, _TOO_DEEP) from None
    start = len(source) - len(source.lstrip())
    if isinstance(document, dict):
        key = next((k for k in _LIST_KEYS if isinstance(document.get(k), list)), None)
        if key is None:
            return [(lines.line(start), document)]  # one paper
        m = re.search(rf'"{re.escape(key)}"\s*:\s*\[', source)
        start = m.end() - 1 if m else start
        document = document[key]
    if not isinstance(document, list):
        raise IngestError(name, "expected a JSON array of papers (or an object with a \"papers\" array)")
    return list(zip(_element_lines(source, start, lines, len(document)), document))


def _element_lines(source: str, start: int, lines: LineIndex, count: int) -> list[int]:
    """Line of each element of the array whose `[` is at `start` (decoded again, for offsets)."""
    decoder = json.JSONDecoder()
    out: list[int] = []
    pos = start + 1
    try:
        for _ in range(count):
            while source[pos] in " \t\r\n,":
                pos += 1
            out.append(lines.line(pos))
            _, pos = decoder.raw_decode(source, pos)
    except (IndexError, json.JSONDecodeError):
        pass
    return out + [lines.line(start)] * (count - len(out))


def _records(name: str, fmt: str, items: list[tuple[int, object]], field_map: mapping.FieldMap,
             venue: str | None, year: int | None) -> RecordFile:
    out = RecordFile(format=fmt, records=[])
    keys: set[str] = set()
    for _, item in items:
        if isinstance(item, dict):
            keys.update(item)
    if missing := field_map.missing(keys):
        raise IngestError(name, f"no key {missing[0]!r} in any item (--map); keys: {', '.join(sorted(keys)[:20])}")
    columns_cache: dict[frozenset, dict[str, list[str]]] = {}
    links = FileLinks(name)
    for position, (line, item) in enumerate(items, 1):
        label = f"item {position}"
        if not isinstance(item, dict):
            out.warnings.append(f"{name}:{line}: {label} is {type(item).__name__}, not an object; skipped")
            continue
        item = mapping.unpacked(item)
        names = frozenset(item)
        columns = columns_cache.get(names)
        if columns is None:
            columns = columns_cache[names] = field_map.columns(item)
        try:
            record = fields.record(mapping.values(item, columns, links=links, line=line), label=label,
                                   position=position, line=line, venue_default=venue, year_default=year)
            record.kept = mapping.kept(item)
            out.records.append(record)
        except fields.EntryError as exc:
            out.warnings.append(skipped(name, line, exc))
    out.warnings.extend(links.warnings())
    if not out.records:
        first = first_reason(name, out.warnings) if out.warnings else "no items"
        raise IngestError(name, f"no usable papers ({first}); the title or abstract field may need --map")
    return out
