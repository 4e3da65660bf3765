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
from itertools import chain, groupby, repeat
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
_C0_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
_C1_UTF8_RE = re.compile(rb"\xc2[\x80-\x9f]")
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
    """Join runs of non-blank lines into abstracts; blank lines separate them.

    Runs of lines are found with groupby, so Python loops per paragraph, not per line. An
    open paragraph is measured at the end of each batch (about 1 MiB): once it is over the
    limit its text is dropped and only its length is kept, so memory stays bounded.
    """
    parts: list[str] = []  # lines of the open paragraph
    dropped = 0  # length of the open paragraph's text already dropped for being over the limit
    start = 0
    position = 0
    for first, lines, clean in batches:
        if lines and lines[0].__class__ is _Long:  # an over-long line comes alone in its batch
            if not parts and not dropped:
                start = first
            dropped = _joined_len(parts, dropped, lines[0].length)  # type: ignore[union-attr]
            parts = []
            continue
        text_lines = cast(list[str], lines)
        stripped = [line.strip() for line in text_lines] if clean else [_clean(line) for line in text_lines]
        lineno = first
        for nonblank, group in groupby(stripped, bool):
            if nonblank:
                run = list(group)
                if parts or dropped:  # continues the paragraph left open by the previous batch
                    parts.extend(run)
                else:
                    start = lineno
                    parts = run
                lineno += len(run)
            else:
                if parts or dropped:
                    position += 1
                    yield _record(name, parts, dropped, start, position, venue, year)
                    parts, dropped = [], 0
                lineno += len(list(group))
        if parts and (dropped or sum(map(len, parts)) > MAX_ABSTRACT_CHARS):
            dropped = _joined_len(parts, dropped)
            parts = []
    if parts or dropped:
        position += 1
        yield _record(name, parts, dropped, start, position, venue, year)


def _joined_len(parts: list[str], dropped: int, extra: int | None = None) -> int:
    """Length of the dropped text, then parts, then `extra` characters, joined with single spaces."""
    sizes = [dropped] if dropped else []
    sizes.extend(map(len, parts))
    if extra is not None:
        sizes.append(extra)
    return sum(sizes) + max(len(sizes) - 1, 0)


def _record(
    name: str, parts: list[str], dropped: int, start: int, position: int, venue: str | None, year: int | None
) -> PaperRecord:
    text = " ".join(parts)
    if dropped or len(text) > MAX_ABSTRACT_CHARS:
        size = dropped + 1 + len(text) if dropped and parts else dropped or len(text)
        raise IngestError(
            name, f"paragraph is {size:,} characters; an abstract should be under {MAX_ABSTRACT_CHARS:,}", line=start
        )
    return PaperRecord(abstract=text, position=position, line=start, venue=venue, year=year)


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
    """Split on CRLF, CR or LF (not on the other characters str.splitlines breaks at).

    With CRLF endings the lines keep their "\r": every consumer strips lines, and splitting
    on "\n" alone is about twice as fast as splitting on "\r\n".
    """
    lines = text.split("\n")
    crs = text.count("\r")
    if crs and crs != sum(map(str.endswith, lines[:-1], repeat("\r"))):  # a lone CR somewhere
        return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines


def _breaks(text: str) -> int:
    return text.count("\n") + text.count("\r") - text.count("\r\n")


class _LineReader:
    """Bytes -> decoded lines, in batches, with bounded memory and exact line numbers."""

    def __init__(self, name: str, file: BinaryIO):
        self.name = name
        self._file = file
        self.lineno = 0  # lines handed out so far
        self._pending = ""  # decoded text after the last line handed out; never holds a break
        self._skip_lf = False  # the last text ended in "\r": a "\n" starting the next is part of that break
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
        """Reject binary files from their first 8 KB.

        A stray NUL or two is tolerated (and stripped from the abstract, like any control
        character); more than one per thousand bytes, a known magic number, or mostly
        control bytes and invalid UTF-8 is binary.
        """
        what = ""
        if self.encoding == "utf-8":
            what = next((f"this looks like {label}" for magic, label in _MAGIC if head.startswith(magic)), "")
            if not what and _many_nuls(head.count(0), len(head)):
                utf16 = _utf16ish(head)
                what = "this looks like UTF-16 without a byte-order mark" if utf16 else "it contains NUL bytes"
        if not what and head:
            text = codecs.getincrementaldecoder(self.encoding)(errors="replace").decode(head)
            controls = len(_SNIFF_CONTROL_RE.findall(text))
            invalid = text.count("\ufffd")
            if _many_nuls(text.count("\x00"), len(text)):
                what = "it contains NUL characters"
            elif controls > 0.01 * len(text) and controls + invalid > 0.3 * len(text):
                what = "it is mostly control characters and invalid UTF-8"
        if what:
            raise IngestError(self.name, f"binary file, expected a UTF-8 text paper list ({what})")

    def _chunks(self) -> Iterator[tuple[str, bool]]:
        """Decoded text, and whether it is known to hold no control characters or U+FEFF (checked fast)."""
        data = self._head
        self._head = b""
        utf8 = self.encoding == "utf-8"
        while True:
            if not data:
                data = self._read(_CHUNK_BYTES)
                if not data:
                    break
            carried = self._decoder.getstate()[0]  # a character split across reads is decoded with this data
            clean = utf8 and _clean_utf8(data) and (not carried or _clean_utf8(carried + data[:3]))
            text = self._decode(data, final=False)
            data = b""
            if text:
                yield text, clean and "\ufeff" not in text
        text = self._decode(b"", final=True)
        if text:
            yield text, False

    def _decode(self, data: bytes, *, final: bool) -> str:
        try:
            return self._decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            good = exc.object[: exc.start].decode(self.encoding, errors="replace")
            if self._skip_lf and good.startswith("\n"):
                good = good[1:]
            line = self.lineno + 1 + _breaks(self._pending + good)
            bad = exc.object[exc.start : exc.end]
            label = self.encoding.upper().removesuffix("-LE").removesuffix("-BE")  # UTF-8, UTF-16, UTF-32
            what = "byte" if len(bad) == 1 else "bytes"
            raise IngestError(
                self.name,
                f"not valid {label} ({what} {' '.join(f'0x{b:02x}' for b in bad)}); save the file as UTF-8",
                line=line,
            ) from None

    def batches(self) -> Iterator[Batch]:
        """Lines in batches, one per chunk read; the chunk's text is split once, never copied whole."""
        chunks = self._chunks()
        pending_clean = True
        for text, clean in chunks:
            while text:
                if self._skip_lf:
                    self._skip_lf = False
                    if text[0] == "\n":
                        text = text[1:]
                        continue
                lines: list[Line] = _split(text)  # type: ignore[assignment]
                tail = cast(str, lines.pop())  # after the last break: the start of a line
                self._skip_lf = text[-1] == "\r"
                text = ""
                if lines:
                    if self._pending:
                        lines[0] = self._pending + cast(str, lines[0])
                    first = self.lineno + 1
                    self.lineno += len(lines)
                    self._pending = tail
                    yield first, lines, clean and pending_clean
                    pending_clean = clean
                else:
                    self._pending += tail
                    pending_clean = pending_clean and clean
                if len(self._pending) > _LONG_LINE_CHARS:
                    line, text = self._long_line(chunks)
                    clean = pending_clean = False  # the rest of a chunk is not checked on its own
                    self.lineno += 1
                    yield self.lineno, [line], False
        if self._pending:
            self.lineno += 1
            yield self.lineno, [self._pending], pending_clean
            self._pending = ""

    def _long_line(self, chunks: Iterator[tuple[str, bool]]) -> tuple[Line, str]:
        """Consume the rest of an over-long line without keeping it; return it and the text after it."""
        acc = _LongLine()
        text = self._pending
        self._pending = ""  # line numbers of decode errors count from self.lineno, which is this line's
        while True:
            brk = _ANY_BREAK_RE.search(text)
            if brk is not None:
                acc.feed(text[: brk.start()])
                rest = text[brk.start() :]
                break
            acc.feed(text)
            text = next(chunks, ("", False))[0]
            if not text:
                rest = ""
                break
        if rest == "\r":
            self._skip_lf = True
        return acc.result(), rest[2:] if rest.startswith("\r\n") else rest[1:]


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


def _clean_utf8(data: bytes) -> bool:
    """True if UTF-8 bytes hold no C0/C1 control character (other than tab and line breaks) or DEL."""
    if len(data.translate(None, _C0_BYTES)) != len(data):
        return False
    return b"\xc2" not in data or not _C1_UTF8_RE.search(data)


def _many_nuls(nuls: int, size: int) -> bool:
    return nuls > max(1, size // 1000)


def _utf16ish(head: bytes) -> bool:
    """True if NULs sit on one parity of positions, as in ASCII text saved as UTF-16."""
    even, odd = head[0::2], head[1::2]
    if len(odd) < 2:
        return False
    e, o = even.count(0) / len(even), odd.count(0) / len(odd)
    return (o > 0.4 and e < 0.05) or (e > 0.4 and o < 0.05)
