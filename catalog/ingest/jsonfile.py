"""JSON (.json: an array of papers, CSL-JSON included, or an object holding one) and JSON Lines
(.jsonl: one paper per line, streamed: any size, one line in memory at a time). Fields are
found through catalog/ingest/mapping.py.

A line that is not JSON, or an item that is not an object or has no title or abstract, is
skipped with a warning; a .json file that is not JSON at all fails with its line.
"""

from __future__ import annotations

import codecs
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

from catalog.ingest import fields, mapping
from catalog.ingest.links import FileLinks
from catalog.ingest.paperlist import _MAGIC, _reason
from catalog.ingest.records import IngestError, PaperRecord, RecordFile, RecordStream, first_reason, skipped
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


# A line longer than this is no paper: skipped unread (memory stays bounded however long it is).
MAX_LINE_BYTES = 16 << 20
_CHUNK = 1 << 20


def read_jsonl(path: Path, *, field_map: mapping.FieldMap | None = None, venue: str | None = None,
               year: int | None = None) -> RecordStream:
    """A JSON Lines file, streamed as paper lists are: one line in memory at a time, however
    large the file. A line that is not JSON, or not a paper, is skipped with a warning naming
    it; a file that turns out not to be JSON Lines at all (no line is), or not UTF-8 at some
    line, fails there (and its import keeps nothing)."""
    name = str(path)
    lines = _lines(name, path)
    found = RecordStream(format="jsonl", records=iter(()))
    found.records = _jsonl_records(name, lines, _Items(name, field_map or mapping.FieldMap(), venue, year),
                                   found.warnings)
    return found


def _jsonl_records(name: str, lines: Iterator[tuple[int, str | int]], items: _Items,
                   warnings: list[str]) -> Iterator[PaperRecord]:
    first_bad: tuple[int, str] | None = None  # line and reason of the first line that is not JSON
    position = 0
    for number, line in lines:
        try:
            if isinstance(line, int):
                raise ValueError(f"line is {line:,} bytes, no paper is over {MAX_LINE_BYTES >> 20} MiB")
            item = json.loads(line)
        except (json.JSONDecodeError, RecursionError, ValueError) as exc:
            reason = (f"not valid JSON ({exc.msg}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError)
                      else _TOO_DEEP if isinstance(exc, RecursionError) else str(exc))
            first_bad = first_bad or (number, reason)
            warnings.append(skipped(name, number, reason))
            continue
        position += 1
        record = items.record(item, position, number, warnings)
        if record is not None:
            yield record
    if not position:
        raise IngestError(name, f"not JSON Lines: {first_bad[1] if first_bad else 'no lines'}",
                          line=first_bad[0] if first_bad else None)
    items.finish(warnings)


def _lines(name: str, path: Path) -> Iterator[tuple[int, str | int]]:
    """(line number, text) of each line that is not blank, read as it is asked for; a line
    over MAX_LINE_BYTES is its length instead. The file is opened and its start checked now
    (a missing, binary or empty file fails at once)."""
    try:
        file = open(path, "rb")  # noqa: SIM115 - closed by the generator, also when it is dropped
        head = file.read(8192)
    except OSError as exc:
        raise IngestError(name, f"cannot read file: {_reason(exc)}") from None
    kind = "a JSON Lines file"
    encoding, skip = "utf-8", 0
    for bom, enc in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                     (codecs.BOM_UTF16_BE, "utf-16-be")):
        if head.startswith(bom):
            encoding, skip = enc, len(bom)
            break
    try:
        if encoding == "utf-8":
            for magic, label in _MAGIC:
                if head.startswith(magic):
                    raise IngestError(name, f"binary file, expected {kind} (this looks like {label})")
            if b"\x00" in head:
                raise IngestError(name, f"binary file, expected {kind} (it contains NUL bytes)")
        if not head[skip:].strip():
            if len(head) < 8192:
                raise IngestError(name, "file is empty")
        file.seek(skip)
    except BaseException:
        file.close()
        raise
    return _read_lines(name, file, encoding)


def _read_lines(name: str, file, encoding: str) -> Iterator[tuple[int, str | int]]:
    with file:
        if encoding != "utf-8":  # UTF-16 with a byte-order mark: its own newlines
            text = io.TextIOWrapper(file, encoding=encoding, newline="")
            number = 0
            try:
                for number, line in enumerate(text, 1):
                    if line.strip():
                        yield number, line
            except UnicodeDecodeError:
                raise IngestError(name, f"not valid {encoding.upper()}", line=number + 1) from None
            return
        number = seen = 0
        while raw := file.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                length = len(raw)
                while (rest := file.readline(_CHUNK)) and not rest.endswith(b"\n"):
                    length += len(rest)
                yield number, length + len(rest)
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad = " ".join(f"0x{b:02x}" for b in exc.object[exc.start:exc.end])
                raise IngestError(name, f"not valid UTF-8 (byte {bad}); save the file as UTF-8", line=number) from None
            if line.strip():
                seen += 1
                yield number, line
        if not seen:
            raise IngestError(name, "file is empty")


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
    found = _Items(name, field_map, venue, year)
    found.check_keys(key for _, item in items if isinstance(item, dict) for key in item)
    for position, (line, item) in enumerate(items, 1):
        record = found.record(item, position, line, out.warnings)
        if record is not None:
            out.records.append(record)
    found.finish(out.warnings)
    return out


class _Items:
    """Papers from a file's JSON items, one at a time: each found through the field map (its
    columns worked out once per set of keys), and a warning for each item that is none."""

    def __init__(self, name: str, field_map: mapping.FieldMap, venue: str | None, year: int | None):
        self.name, self.field_map, self.venue, self.year = name, field_map, venue, year
        self.keys: set[str] = set()
        self.columns: dict[frozenset, dict[str, list[str]]] = {}
        self.links = FileLinks(name)
        self.papers = 0

    def check_keys(self, keys) -> None:
        """Fail unless every key the field map names is among these (--map)."""
        self.keys.update(keys)
        if missing := self.field_map.missing(self.keys):
            raise IngestError(self.name, f"no key {missing[0]!r} in any item (--map); keys: "
                                         f"{', '.join(sorted(self.keys)[:20])}")

    def record(self, item: object, position: int, line: int, warnings: list[str]) -> PaperRecord | None:
        label = f"item {position}"
        if not isinstance(item, dict):
            warnings.append(f"{self.name}:{line}: {label} is {type(item).__name__}, not an object; skipped")
            return None
        self.keys.update(item)
        item = mapping.unpacked(item)
        names = frozenset(item)
        columns = self.columns.get(names)
        if columns is None:
            columns = self.columns[names] = self.field_map.columns(item)
        try:
            record = fields.record(mapping.values(item, columns, links=self.links, line=line), label=label,
                                   position=position, line=line, venue_default=self.venue,
                                   year_default=self.year)
        except fields.EntryError as exc:
            warnings.append(skipped(self.name, line, exc))
            return None
        record.kept = mapping.kept(item)
        self.papers += 1
        return record

    def finish(self, warnings: list[str]) -> None:
        """After the last item: the file fails if the field map named a key no item has, or
        no item was a paper; else the links left out, in one warning."""
        self.check_keys(())
        warnings.extend(self.links.warnings())
        if not self.papers:
            first = first_reason(self.name, warnings) if warnings else "no items"
            raise IngestError(self.name, f"no usable papers ({first}); the title or abstract field may need --map")
