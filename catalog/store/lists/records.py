"""What bm25 reads of an FTS5 index that FTS5 offers no SQL for: the paper count and total
length (the "averages" record), each paper's length (the "docsize" table), and the structure
record, whose write counter changes with every write to the index (a list's stamp).

FTS5 hands these only to auxiliary functions written in C (xRowCount, xColumnTotalSize,
xColumnSize), which Python's sqlite3 module cannot register. The supported ways around them
cost a pass over the index: fts5vocab's counts add up the total length only by reading every
term (seconds at 100k papers), and a paper's length only by tokenizing it again. So this
module decodes FTS5's own records (sqlite's varints, fts5_index.c and fts5_storage.c), and
tests/test_ranked_list_scoring.py pins the format against what fts5vocab says, so an SQLite
that changed it fails a test rather than a ranking.
"""

from __future__ import annotations

import json
import threading

from catalog.store.fts5 import FTS_COLUMNS, FTS_TABLE

AVERAGES_ID = 1  # the %_data row of the averages record: papers, then tokens per column
STRUCTURE_ID = 10  # the %_data row of the structure record (its write counter changes)


def varints(blob: bytes) -> list[int]:
    """SQLite's varints, one after another (FTS5's averages and docsize records)."""
    out, i = [], 0
    while i < len(blob):
        value = 0
        for j in range(9):
            byte = blob[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        out.append(value)
    return out


# Bytes kept by value when they start a varint of two bytes or more (>= 0x80), others zeroed;
# and each byte's flag (1: such a start).
_HIGH = bytes(b if b >= 0x80 else 0 for b in range(256))
_FLAG = bytes(int(b >= 0x80) for b in range(256))


def varint_sum(blob: bytes) -> int:
    """The sum of a docsize record's varints (a paper's length over its columns). A column of
    under 16,384 tokens is one or two bytes: then the sum is a few C-level passes over the
    bytes (a two-byte varint's first byte counts 128 times its low bits), not a Python loop
    per byte."""
    flags = blob.translate(_FLAG)
    if b"\x01\x01" in flags or flags.endswith(b"\x01"):  # a varint of three bytes or more
        return sum(varints(blob))
    return sum(blob) + 127 * sum(blob.translate(_HIGH)) - 16384 * flags.count(1)


class IndexRecords:
    """The records of one FTS5 table (`table`: paper_fts, or a temporary one of its columns)."""

    def __init__(self, conn, table: str = FTS_TABLE):
        self.conn = conn
        self.table = table

    def stamp(self) -> bytes | None:
        """The structure record: the same bytes until the index is written to."""
        return self.conn.execute(f"SELECT block FROM {self.table}_data WHERE id = ?", (STRUCTURE_ID,)).scalar()

    def averages(self) -> bytes | None:
        """The averages record as stored (its bytes change with the totals)."""
        return self.conn.execute(f"SELECT block FROM {self.table}_data WHERE id = ?", (AVERAGES_ID,)).scalar()

    def totals(self) -> tuple[int, int]:
        """(papers, tokens in all columns) now: what bm25 averages lengths over."""
        numbers = varints(self.averages() or b"")
        return (numbers[0], sum(numbers[1:1 + len(FTS_COLUMNS)])) if numbers else (0, 0)

    def lengths(self, ids=None) -> dict[int, int]:
        """Each paper's length in tokens (all columns), as bm25 reads it: of these papers, or
        of every paper in the table (a small temporary one)."""
        if ids is None:
            rows = self.conn.execute(f"SELECT id, sz FROM {self.table}_docsize").all()
        else:
            rows = self.conn.execute(f"SELECT id, sz FROM {self.table}_docsize WHERE id IN"
                                     " (SELECT value FROM json_each(?))", (json.dumps(list(ids)),)).all()
        return {r["id"]: varint_sum(r["sz"]) for r in rows}


class KnownLengths:
    """Papers' lengths a refresh read, kept for its next rankings while the index stays as it
    was (its stamp): a paper is in many lists, and reading and decoding its length again for
    each was a tenth of an import (docs/benchmarks.md). Shared by the ranking threads; at
    most MOST papers (then no more are kept)."""

    MOST = 500_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stamp: bytes | None = None
        self._known: dict[int, int] = {}

    def lengths(self, records: IndexRecords, ids: list[int]) -> dict[int, int]:
        """records.lengths(ids), from what was read before on the same index."""
        stamp = records.stamp()
        with self._lock:
            if stamp != self._stamp:
                self._stamp, self._known = stamp, {}
            known = self._known
        out = {i: known[i] for i in ids if i in known}
        if len(out) < len(ids):
            read = records.lengths([i for i in ids if i not in out])
            out.update(read)
            with self._lock:
                if self._stamp == stamp and len(self._known) < self.MOST:
                    self._known.update(read)
        return out
