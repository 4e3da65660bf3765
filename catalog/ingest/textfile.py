"""Reading a whole structured file (BibTeX, JSON, CSV) as text, with the paper-list reader's
one-line errors: missing file, binary content, bytes that are not UTF-8 (with their line)."""

from __future__ import annotations

import bisect
import codecs
from pathlib import Path

from catalog.ingest.paperlist import _MAGIC, _reason
from catalog.ingest.records import IngestError

MAX_FILE_BYTES = 512 * 1024 * 1024


def read_text(path: Path, kind: str) -> str:
    """The file decoded (UTF-8, with or without a byte-order mark; UTF-16 with one)."""
    name = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise IngestError(name, f"file is {size:,} bytes; {kind} over "
                                    f"{MAX_FILE_BYTES // 2**20} MiB is not supported")
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(name, f"cannot read file: {_reason(exc)}") from None
    encoding = "utf-8"
    for bom, enc in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                     (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            data, encoding = data[len(bom):], enc
            break
    if encoding == "utf-8":
        for magic, label in _MAGIC:
            if data.startswith(magic):
                raise IngestError(name, f"binary file, expected {kind} (this looks like {label})")
        if b"\x00" in data[:8192]:
            raise IngestError(name, f"binary file, expected {kind} (it contains NUL bytes)")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = " ".join(f"0x{b:02x}" for b in exc.object[exc.start:exc.end])
        raise IngestError(name, f"not valid UTF-8 (byte {bad}); save the file as UTF-8", line=line) from None
    if not text.strip():
        raise IngestError(name, "file is empty")
    return text


class LineIndex:
    """Character offset -> 1-based line number, for formats whose parsers give offsets."""

    def __init__(self, text: str):
        self._starts = [0]
        pos = text.find("\n")
        while pos != -1:
            self._starts.append(pos + 1)
            pos = text.find("\n", pos + 1)

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)
