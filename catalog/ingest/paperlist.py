"""Plain-text paper lists: a "<VENUE> <YEAR> Papers" header, then one abstract per paragraph.

The file is streamed: it is read in 1 MiB chunks, decoded incrementally and split into
lines, so memory stays bounded however large the file is. The header is parsed when
`read_paper_list` is called; abstracts are parsed as `PaperList.records` is consumed.
Every problem with the input, found early or late, is an `IngestError`.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import BinaryIO, cast

from catalog.ingest.records import IngestError, PaperRecord

MAX_ABSTRACT_CHARS = 200_000
YEAR_RANGE = range(1900, 2100)

_CHUNK_BYTES = 1 << 20
_SNIFF_BYTES = 8192
# A line with no break after this many characters is consumed without buffering it
# (it cannot fit in an abstract unless it is mostly whitespace, which is still handled).
_LONG_LINE_CHARS = 4 * MAX_ABSTRACT_CHARS

_BOMS = (  # longest first: the UTF-32-LE mark starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_MAGIC = (
    (b"%PDF-", "a PDF document"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"PK\x03\x04", "a zip archive (or a .docx/.xlsx/.epub)"),
    (b"\x1f\x8b", "a gzip file"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "an executable"),
)

_ANY_BREAK_RE = re.compile(r"[\r\n]")
# Control characters are removed from abstracts (tab is kept); those Python counts as
# whitespace become a space so words on either side stay apart. U+FEFF is a stray BOM.
_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff]")
_CONTROL_TABLE = {
    c: (" " if chr(c).isspace() else None) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0xFEFF]
}
# Bytes that do not occur in text (tab, LF, VT, FF, CR and ESC do).
_SNIFF_CONTROL_RE = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")

_WORDING = r"accepted papers?|papers? list|list of papers|papers?|论文列表|論文列表"
_HEADER_RE = re.compile(
    rf"(?P<venue>.+?) (?P<year>\d{{4}})(?:(?: |(?=[论論]))(?P<wording>{_WORDING}))? ?[:：]?",
    re.IGNORECASE,
)
_VENUE_RE = re.compile(r"[^\W_](?:[^\W_]|[-&. ])*")
_HEADER_EXAMPLE = 'expected a header like "ICML 2026 Papers" (or pass --venue and --year)'


@dataclass(slots=True)
class PaperList:
    """A paper list: venue and year from its header (or the caller), abstracts streamed lazily."""

    venue: str | None
    year: int | None
    records: Iterator[PaperRecord]

    def close(self) -> None:
        """Release the file now instead of when the iterator is garbage collected."""
        close = getattr(self.records, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> PaperList:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_paper_list(path: Path, *, venue: str | None = None, year: int | None = None) -> PaperList:
    """Open a paper list, parse its header now and return its abstracts as a lazy iterator.

    `venue` and `year` override the header's; a file without a header is accepted only
    when both are given. Raises IngestError for any problem, now or while iterating.
    """
    stream = _stream(Path(path), venue, year)
    header = cast(tuple[str | None, int | None], next(stream))
    return PaperList(venue=header[0], year=header[1], records=cast(Iterator[PaperRecord], stream))


class _Long:
    """A line too long for an abstract, kept as its length and a short preview."""

    __slots__ = ("length", "preview")

    def __init__(self, length: int, preview: str):
        self.length = length
        self.preview = preview


Line = str | _Long
Batch = tuple[int, list[Line], bool]  # first line number, the lines, True if known free of control characters


def _stream(path: Path, venue: str | None, year: int | None) -> Generator[object, None, None]:
    """Yield (venue, year) once the header is parsed, then one PaperRecord per abstract."""
    name = str(path)
    if venue is not None:
        venue = " ".join(venue.split()) or None
    if year is not None and year not in YEAR_RANGE:
        raise IngestError(name, f"year {year} is outside {YEAR_RANGE.start}-{YEAR_RANGE.stop - 1}")
    try:
        file = open(path, "rb")  # noqa: SIM115 - closed by the with below, also when the generator is dropped
    except OSError as exc:
        raise IngestError(name, f"cannot read file: {_reason(exc)}") from None
    with file:
        reader = _LineReader(name, file)
        batches: Iterator[Batch] = reader.batches()
        found = _next_visible(batches)
        if found is None:
            raise IngestError(name, "file is empty" if reader.empty else "file is empty (only blank lines)")
        lineno, lines, i, clean = found
        parsed = _parse_header(name, lineno, lines[i], need_year=year is None)
        if parsed is not None:
            venue = venue or parsed[0]
            year = year or parsed[1]
            found = _next_visible(chain([(lineno + 1, lines[i + 1 :], clean)], batches))
            if found is None:
                raise IngestError(name, "no abstracts after the header", line=lineno)
            lineno, lines, i, clean = found
        elif venue is None or year is None:
            raise IngestError(name, f"{_HEADER_EXAMPLE}; found {_quote(lines[i])}", line=lineno)
        yield venue, year
        yield from _paragraphs(name, chain([(lineno, lines[i:], clean)], batches), venue, year)


def _paragraphs(name: str, batches: Iterator[Batch], venue: str | None, year: int | None) -> Iterator[PaperRecord]:
    """Join runs of non-blank lines into abstracts; blank lines separate them."""
    parts: list[str] = []
    size = 0  # length of " ".join(parts), kept counting after parts is dropped
    start = 0
    position = 0
    for first, lines, clean in batches:
        for offset, line in enumerate(lines):
            if line.__class__ is _Long:
                length = cast(_Long, line).length
                if size == 0:
                    start = first + offset
                size += length + (1 if size else 0)
                parts.clear()
                continue
            line = cast(str, line)
            if not clean and not line.isprintable() and _CONTROL_RE.search(line):
                line = line.translate(_CONTROL_TABLE)
            line = line.strip()
            if line:
                if size == 0:
                    start = first + offset
                    size = len(line)
                else:
                    size += len(line) + 1
                if size <= MAX_ABSTRACT_CHARS:
                    parts.append(line)
                elif parts:
                    parts.clear()  # over the limit: stop buffering, keep counting
            elif size:
                position += 1
                yield _record(name, parts, size, start, position, venue, year)
                parts = []
                size = 0
    if size:
        position += 1
        yield _record(name, parts, size, start, position, venue, year)


def _record(
    name: str, parts: list[str], size: int, start: int, position: int, venue: str | None, year: int | None
) -> PaperRecord:
    if size > MAX_ABSTRACT_CHARS:
        raise IngestError(
            name, f"paragraph is {size:,} characters; an abstract should be under {MAX_ABSTRACT_CHARS:,}", line=start
        )
    return PaperRecord(abstract=" ".join(parts), position=position, line=start, venue=venue, year=year)


def _next_visible(batches: Iterator[Batch]) -> tuple[int, list[Line], int, bool] | None:
    """Advance to the first line with visible text: (its line number, its batch's lines, index, clean)."""
    for first, lines, clean in batches:
        for i, line in enumerate(lines):
            if _visible(line):
                return first + i, lines, i, clean
    return None


def _visible(line: Line) -> bool:
    if isinstance(line, _Long):
        return True
    return bool(_clean(line))


def _clean(line: str) -> str:
    if not line.isprintable() and _CONTROL_RE.search(line):
        line = line.translate(_CONTROL_TABLE)
    return line.strip()


def _parse_header(name: str, lineno: int, line: Line, *, need_year: bool) -> tuple[str, int] | None:
    """Return (venue, year) if the line is a header, None if it is not one."""
    if isinstance(line, _Long):
        return None
    text = " ".join(_clean(line).split())
    match = _HEADER_RE.fullmatch(text)
    if match is None:
        return None
    venue = match["venue"]
    if not _VENUE_RE.fullmatch(venue) or not any(c.isalpha() for c in venue):
        return None
    year = int(match["year"])
    if year not in YEAR_RANGE:
        if not need_year:
            return venue, year  # the caller's year replaces it
        raise IngestError(
            name, f"year {year} in the header is outside {YEAR_RANGE.start}-{YEAR_RANGE.stop - 1}", line=lineno
        )
    return venue, year


def _quote(line: Line, limit: int = 60) -> str:
    text = line.preview if isinstance(line, _Long) else " ".join(_clean(line).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f'"{text}"'


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def _split(text: str) -> list[str]:
    """Split on CRLF, CR or LF (not on the other characters str.splitlines breaks at)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _breaks(text: str) -> int:
    return text.count("\n") + text.count("\r") - text.count("\r\n")


class _LineReader:
    """Bytes -> decoded lines, in batches, with bounded memory and exact line numbers."""

    def __init__(self, name: str, file: BinaryIO):
        self.name = name
        self._file = file
        self.lineno = 0  # lines handed out so far
        self._pending = ""  # decoded text after the last line handed out
        head = self._read(_SNIFF_BYTES)
        self.encoding = "utf-8"
        for bom, encoding in _BOMS:
            if head.startswith(bom):
                head = head[len(bom) :]
                self.encoding = encoding
                break
        self.empty = not head
        self._decoder = codecs.getincrementaldecoder(self.encoding)()
        self._head = head
        self._sniff(head)

    def _read(self, size: int) -> bytes:
        try:
            return self._file.read(size)
        except OSError as exc:
            raise IngestError(self.name, f"cannot read file: {_reason(exc)}") from None

    def _sniff(self, head: bytes) -> None:
        """Reject binary files from their first 8 KB."""
        what = ""
        if self.encoding == "utf-8":
            what = next((f"this looks like {label}" for magic, label in _MAGIC if head.startswith(magic)), "")
            if not what and b"\x00" in head:
                what = "this looks like UTF-16 without a byte-order mark" if _utf16ish(head) else "it contains NUL bytes"
        if not what and head:
            text = codecs.getincrementaldecoder(self.encoding)(errors="replace").decode(head)
            controls = len(_SNIFF_CONTROL_RE.findall(text))
            invalid = text.count("\ufffd")
            if "\x00" in text:
                what = "it contains NUL characters"
            elif controls > 0.01 * len(text) and controls + invalid > 0.3 * len(text):
                what = "it is mostly control characters and invalid UTF-8"
        if what:
            raise IngestError(self.name, f"binary file, expected a UTF-8 text paper list ({what})")

    def _chunks(self) -> Iterator[str]:
        data = self._head
        self._head = b""
        while True:
            if not data:
                data = self._read(_CHUNK_BYTES)
                if not data:
                    break
            text = self._decode(data, final=False)
            data = b""
            if text:
                yield text
        text = self._decode(b"", final=True)
        if text:
            yield text

    def _decode(self, data: bytes, *, final: bool) -> str:
        try:
            return self._decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            good = exc.object[: exc.start].decode(self.encoding, errors="replace")
            line = self.lineno + 1 + _breaks(self._pending + good)
            bad = exc.object[exc.start : exc.end]
            label = "UTF-8" if self.encoding == "utf-8" else self.encoding.upper().removesuffix("-LE").removesuffix("-BE")
            what = "byte" if len(bad) == 1 else "bytes"
            raise IngestError(
                self.name,
                f"not valid {label} ({what} {' '.join(f'0x{b:02x}' for b in bad)}); save the file as UTF-8",
                line=line,
            ) from None

    def batches(self) -> Iterator[Batch]:
        chunks = self._chunks()
        for text in chunks:
            while text:
                text = self._pending + text
                self._pending = ""
                end = len(text) - 1 if text.endswith("\r") else len(text)  # "\r" + next chunk's "\n" is one break
                cut = max(text.rfind("\n", 0, end), text.rfind("\r", 0, end))
                if cut >= 0:
                    block, self._pending = text[: cut + 1], text[cut + 1 :]
                    lines: list[Line] = _split(block)  # type: ignore[assignment]
                    lines.pop()  # the block ends with a break
                    first = self.lineno + 1
                    self.lineno += len(lines)
                    yield first, lines
                else:
                    self._pending = text
                text = ""
                if len(self._pending) > _LONG_LINE_CHARS:
                    line, text = self._long_line(chunks)
                    self.lineno += 1
                    yield self.lineno, [line]
        if self._pending:
            lines = _split(self._pending)  # type: ignore[assignment]
            self._pending = ""
            if lines[-1] == "":
                lines.pop()
            first = self.lineno + 1
            self.lineno += len(lines)
            yield first, lines

    def _long_line(self, chunks: Iterator[str]) -> tuple[Line, str]:
        """Consume the rest of an over-long line without keeping it; return it and the text after it."""
        acc = _LongLine()
        text = self._pending
        self._pending = ""  # holds no break, so line numbers of decode errors stay right
        while True:
            brk = _ANY_BREAK_RE.search(text)
            if brk is not None:
                acc.feed(text[: brk.start()])
                rest = text[brk.start() :]
                break
            acc.feed(text)
            text = next(chunks, "")
            if not text:
                rest = ""
                break
        if rest == "\r":
            self._pending = "\r"
            rest += next(chunks, "")
            self._pending = ""
        rest = rest[2:] if rest.startswith("\r\n") else rest[1:]
        return acc.result(), rest


class _LongLine:
    """Measures a line piece by piece as `_clean` would, keeping at most MAX_ABSTRACT_CHARS + 1 of it."""

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.kept_len = 0
        self.total = 0  # cleaned length after stripping leading whitespace
        self.trailing = 0  # length of the whitespace run at the end so far

    def feed(self, piece: str) -> None:
        if not piece.isprintable() and _CONTROL_RE.search(piece):
            piece = piece.translate(_CONTROL_TABLE)
        if self.total == 0:
            piece = piece.lstrip()
        if not piece:
            return
        body = piece.rstrip()
        self.trailing = self.trailing + len(piece) if not body else len(piece) - len(body)
        self.total += len(piece)
        if self.kept_len <= MAX_ABSTRACT_CHARS:
            self.kept.append(piece)
            self.kept_len += len(piece)

    def result(self) -> Line:
        length = self.total - self.trailing
        text = "".join(self.kept)
        if length <= MAX_ABSTRACT_CHARS:
            return text[:length]
        return _Long(length, " ".join(text[:200].split()))


def _utf16ish(head: bytes) -> bool:
    """True if NULs sit on one parity of positions, as in ASCII text saved as UTF-16."""
    even, odd = head[0::2], head[1::2]
    if len(odd) < 2:
        return False
    e, o = even.count(0) / len(even), odd.count(0) / len(odd)
    return (o > 0.4 and e < 0.05) or (e > 0.4 and o < 0.05)
