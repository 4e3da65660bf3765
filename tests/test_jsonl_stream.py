"""JSON Lines imports stream (catalog/ingest/jsonfile.py): a file of any size is read one line
at a time, bad lines are skipped with a warning naming them, and a file that fails part-way
(bytes that are not UTF-8 at some line, a --map key no line has) leaves nothing behind."""

from __future__ import annotations

import json
import sqlite3
import tracemalloc

from catalog.importing import prepare
from catalog.ingest import textfile
from catalog.ingest.jsonfile import read_jsonl


def _line(i: int, words: int = 40) -> str:
    abstract = " ".join(f"word{(i * 7 + k) % 997}" for k in range(words))
    return json.dumps({"title": f"Streamed paper number {i}", "abstract": f"Paper {i}: {abstract}.",
                       "authors": ["Ada Lovelace"], "year": 2020, "venue": "ICML"}) + "\n"


def _papers(db) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM paper").fetchone()[0]


def test_reading_a_large_file_holds_one_line_at_a_time(tmp_path):
    """A 30 MB file is read with a few hundred KB of Python memory at most: its records come
    as they are asked for, and those already handed on are not kept."""
    path = tmp_path / "large.jsonl"
    with path.open("w") as f:
        for i in range(6000):
            f.write(_line(i, words=600))  # about 5 KB a line
    size = path.stat().st_size
    assert size > 25 << 20
    tracemalloc.start()
    try:
        found = read_jsonl(path)
        seen = sum(1 for _ in found.records)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == 6000 and not found.warnings
    assert peak < size / 40, f"peak {peak:,} bytes reading a file of {size:,}"


def test_the_records_come_before_the_file_is_read_to_its_end(tmp_path):
    """The first batch is ready while the rest of the file is not yet read: a bad byte far
    down fails only when reading reaches it."""
    path = tmp_path / "late.jsonl"
    path.write_bytes("".join(_line(i) for i in range(6000)).encode() + b'{"title": "\xff"}\n')
    items = prepare.read(prepare.Job(path))
    opened, first = next(items), next(items)
    assert opened.format == "jsonl" and len(first.papers) == prepare.BATCH


def test_a_file_over_the_old_size_limit_imports(empty_catalog, db_path, tmp_path, monkeypatch):
    """Whole-file formats are refused past textfile.MAX_FILE_BYTES; JSON Lines no longer are."""
    monkeypatch.setattr(textfile, "MAX_FILE_BYTES", 1 << 20)
    path = tmp_path / "big.jsonl"
    path.write_text("".join(_line(i, words=200) for i in range(1500)))
    assert path.stat().st_size > 1 << 20
    report = empty_catalog.import_paths([path])
    assert (report.new, report.errors, report.warnings) == (1500, [], [])
    assert [p.title for p in empty_catalog.search('"Streamed paper number 1499"')] == ["Streamed paper number 1499"]


def test_bad_lines_are_skipped_each_named_by_its_line(empty_catalog, tmp_path, monkeypatch):
    """Across batches: each bad line one warning with its line number, in order, the rest
    imported; importing the same bytes again says them again (kept with the file)."""
    monkeypatch.setattr(prepare, "BATCH", 50)
    lines = [_line(i) for i in range(200)]
    lines[9] = '{"title": "cut short", \n'
    lines[120] = "[1, 2, 3]\n"
    lines[170] = '{"year": 2020}\n'
    path = tmp_path / "some-bad.jsonl"
    path.write_text("".join(lines))
    report = empty_catalog.import_paths([path])
    assert report.new == 197 and not report.errors
    assert [w.split(":")[1] for w in report.warnings] == ["10", "121", "171"]
    assert report.warnings[0].startswith(f"{path}:10: not valid JSON (")
    assert report.warnings[1] == f"{path}:121: item 120 is list, not an object; skipped"
    again = empty_catalog.import_paths([path])
    assert again.new == 0 and again.said_before == report.warnings


def test_a_file_that_fails_part_way_keeps_nothing(empty_catalog, db_path, tmp_path, monkeypatch):
    """Bytes that are not UTF-8 at line 2,501, after many batches were stored: one line naming
    it, and none of the file's papers (nor the file) stay; a --map key that no line has fails
    at the end, as whole."""
    monkeypatch.setattr(prepare, "BATCH", 500)
    path = tmp_path / "broken.jsonl"
    path.write_bytes("".join(_line(i) for i in range(2500)).encode() + b'{"title": "caf\xe9"}\n' + _line(9).encode())
    report = empty_catalog.import_paths([path])
    [failed] = report.errors
    assert failed.error == f"{path}:2501: not valid UTF-8 (byte 0xe9); save the file as UTF-8"
    assert (report.new, _papers(db_path)) == (0, 0)
    good = tmp_path / "good.jsonl"
    good.write_text("".join(_line(i) for i in range(1200)))
    report = empty_catalog.import_paths([good], mapping=["doi=identifier"])
    assert report.errors[0].error.startswith(f"{good}: no key 'identifier' in any item (--map)")
    assert _papers(db_path) == 0
    assert empty_catalog.import_paths([good]).new == 1200


def test_a_line_too_long_for_a_paper_is_skipped_unread(empty_catalog, tmp_path, monkeypatch):
    from catalog.ingest import jsonfile

    monkeypatch.setattr(jsonfile, "MAX_LINE_BYTES", 4096)
    monkeypatch.setattr(jsonfile, "_CHUNK", 1000)
    path = tmp_path / "long.jsonl"
    long = json.dumps({"title": "Long", "abstract": "x" * 20_000}) + "\n"
    path.write_text(_line(1) + long + _line(2))
    report = empty_catalog.import_paths([path])
    assert report.new == 2
    assert report.warnings == [f"{path}:2: line is {len(long):,} bytes, no paper is over 0 MiB; skipped"]
