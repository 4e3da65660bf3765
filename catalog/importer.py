"""Import files into the catalog: each file in one write transaction, papers deduplicated.

Paper lists, BibTeX, JSON/JSONL and CSV files are told apart by suffix. Rows go in with
executemany and the FTS index is filled with one statement per batch (the per-row trigger
stands aside), which is several times faster than an ORM object per row. Records that are
papers already in the catalog fill their empty fields (catalog/dedupe.py) with UPDATEs,
which the FTS update trigger reindexes.
"""

from __future__ import annotations

import hashlib
import os
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path


from catalog import db, dedupe, sqlite, text
from catalog.db import Database
from catalog.cjk import cjk_search_text
from catalog.ingest.fields import title_key
from catalog.ingest.mapping import FieldMap
from catalog.ingest.paperlist import PaperList, read_paper_list
from catalog.ingest.records import IngestError, PaperRecord, RecordFile
from catalog.results import FileReport, ImportReport

PAPER_LIST_SUFFIXES = {".txt", ".text", ".md", ""}
BIBTEX_SUFFIXES = {".bib", ".bibtex"}
JSON_SUFFIXES = {".json"}
JSONL_SUFFIXES = {".jsonl", ".ndjson"}
CSV_SUFFIXES = {".csv", ".tsv"}
SUFFIXES = PAPER_LIST_SUFFIXES | BIBTEX_SUFFIXES | JSON_SUFFIXES | JSONL_SUFFIXES | CSV_SUFFIXES
BATCH = 2000
KEY_LENGTH = 7
# Crockford's base32 alphabet in lower case: no i, l, o or u to misread or mistype.
_KEY_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"

Progress = Callable[[int], None]


def expand(paths: Iterable[Path]) -> Iterator[Path]:
    """Files named directly, and importable files found in folders (hidden entries skipped).

    os.walk does not follow symlinked folders, so a symlink loop cannot trap it.
    """
    for path in paths:
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    candidate = Path(root) / name
                    if not name.startswith(".") and candidate.suffix.lower() in SUFFIXES:
                        yield candidate
        else:
            yield path


def key_candidates(fp: str) -> Iterator[str]:
    """Short keys from the fingerprint, longer ones after a collision."""
    number = int(fp, 16)  # 128 bits: 25 base32 digits
    encoded = "".join(_KEY_ALPHABET[(number >> shift) & 31] for shift in range(123, -1, -5))
    for length in range(KEY_LENGTH, len(encoded) + 1):
        yield encoded[:length]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
    return read_paper_list(path, venue=venue, year=year)


def import_paths(database: Database, paths: Iterable[Path], *, venue: str | None = None,
                 year: int | None = None, progress: Progress | None = None,
                 field_map: FieldMap | None = None) -> ImportReport:
    report = ImportReport()
    for path in expand(paths):
        file_report = FileReport(str(path))
        report.files.append(file_report)
        try:
            _import_file(database, path, file_report, venue=venue, year=year, progress=progress,
                         field_map=field_map)
        except IngestError as exc:
            file_report.error, file_report.new, file_report.known, file_report.merged = str(exc), 0, 0, 0
        except OSError as exc:
            file_report.error = f"{path}: {exc.strerror or exc}"
            file_report.new = file_report.known = file_report.merged = 0
        except sqlite3.Error as exc:
            file_report.error = f"{path}: database error: {exc}"
            file_report.new = file_report.known = file_report.merged = 0
    return report


def _import_file(database: Database, path: Path, report: FileReport, *, venue, year, progress,
                 field_map) -> None:
    if not path.exists():
        raise IngestError(str(path), "no such file or folder")
    if not path.is_file():
        raise IngestError(str(path), "not a regular file")
    sha = file_sha256(path)
    with open_records(path, venue=venue, year=year, field_map=field_map) as found, db.write(database) as conn:
        fmt = found.format if isinstance(found, RecordFile) else "paperlist"
        if isinstance(found, RecordFile):
            report.warnings.extend(found.warnings)
        known_source = conn.execute(
            "SELECT id FROM source WHERE sha256 = ?", (sha,)
        ).scalar()
        if known_source is not None:
            # The same bytes were imported before (maybe under another name): nothing to do.
            report.known = conn.execute(
                "SELECT count(DISTINCT paper_id) FROM provenance WHERE source_id = ?", (known_source,)
            ).scalar()
            report.warnings.clear()
            return
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        source_id = conn.execute(
            "INSERT INTO source(path, sha256, venue, year, format, imported_at) "
            "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            # A file name that is not UTF-8 is kept readable (U+FFFD) rather than failing.
            (os.fsencode(path.resolve()).decode("utf-8", "replace"), sha, found.venue, found.year, fmt, now),
        ).scalar()
        sqlite.set_bulk_loading(conn, True)
        unindexed = _Unindexed()
        for batch in _read_ahead(found.records):
            _store_batch(conn, batch, source_id, now, report, unindexed)
            if progress:
                progress(len(batch))
        if report.new == 0 and report.known == 0:
            raise IngestError(str(path), "no abstracts found")
        unindexed.flush(conn)
        sqlite.set_bulk_loading(conn, False)


def _read_ahead(records: Iterator[PaperRecord]) -> Iterator[list[PaperRecord]]:
    """Batches of records, read and prepared (fingerprint, rendering, headline) in a thread
    while the caller stores the previous batch: SQLite releases the GIL while it writes, so
    the two overlap. Errors from reading are raised here, in the caller's thread."""
    batches: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def offer(item) -> bool:
        while not stop.is_set():
            try:
                batches.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def read() -> None:
        try:
            batch: list[PaperRecord] = []
            for record in records:
                dedupe.fingerprint(record)  # both warm their caches for the storing thread
                if record.abstract:
                    _derived(record.abstract)
                batch.append(record)
                if len(batch) >= BATCH:
                    if not offer(batch):
                        return
                    batch = []
            if batch and not offer(batch):
                return
            offer(None)
        except BaseException as exc:  # handed over, raised in the storing thread
            offer(exc)

    reader = threading.Thread(target=read, name="catalog-import-reader", daemon=True)
    reader.start()
    try:
        while (item := batches.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        reader.join()


class _Unindexed:
    """Papers this file added that the FTS index does not hold yet (the insert trigger stands
    aside during imports). They are indexed in one statement at the end of the file, or
    earlier when a lookup by title needs the index or an UPDATE would touch one of them
    (the update trigger deletes a row's old tokens, which must be in the index)."""

    def __init__(self) -> None:
        self.first: int | None = None

    def added(self, first_id: int) -> None:
        if self.first is None:
            self.first = first_id

    def flush(self, conn) -> None:
        if self.first is not None:
            sqlite.index_papers_from(conn, self.first)
            self.first = None


def _store_batch(conn, batch: list[PaperRecord], source_id: int, now: datetime,
                 report: FileReport, unindexed: _Unindexed) -> None:
    """Store one batch: new papers inserted, known ones filled in, provenance kept."""
    papers = dedupe.group(batch)
    if any(p.record.title for p in papers):
        unindexed.flush(conn)  # titles are looked up through the index
    found = dedupe.match(conn, papers)
    new = [i for i in range(len(papers)) if i not in found]
    if new:
        keys = _assign_keys(conn, [papers[i].fp for i in new],
                            preferred=[papers[i].record.extra.get("key") for i in new])
        last_id = conn.execute("SELECT coalesce(max(id), 0) FROM paper").scalar()
        conn.execute(
            "INSERT INTO paper(key, fingerprint, abstract, abstract_text, search_extra, headline,"
            " title, authors, venue, year, doi, arxiv_id, url, status, tags_text, notes_text,"
            " added_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'unread', '', '', ?, ?)",
            [_paper_row(keys[papers[i].fp], papers[i].fp, papers[i].record, now) for i in new],
        )
        # We hold the write lock and rowids are max+1, so the new ids follow in order.
        found.update(zip(new, range(last_id + 1, last_id + 1 + len(new))))
        unindexed.added(last_id + 1)
    fresh = set(new)
    matched = [(found[i], papers[i].record) for i in range(len(papers)) if i not in fresh]
    if matched:
        if unindexed.first is not None and any(pid >= unindexed.first for pid, _ in matched):
            unindexed.flush(conn)
        report.merged += dedupe.merge(conn, matched, now)
    report.new += len(new)
    report.known += len({pid for pid, _ in matched})
    conn.execute(
        "INSERT OR IGNORE INTO provenance(paper_id, source_id, position) VALUES (?, ?, ?)",
        [(found[i], source_id, position) for i, p in enumerate(papers) for position in p.positions],
    )


@lru_cache(maxsize=3 * BATCH)  # computed ahead in the reader thread (see _read_ahead)
def _derived(abstract: str) -> tuple[str, str, str]:
    """(rendered, headline, math spellings) of an abstract: the Python-heavy part of a row."""
    rendered = text.render(abstract)
    return rendered, text.headline(abstract, rendered=rendered), text.search_extra(abstract)


def _paper_row(key: str, fp: str, r: PaperRecord, now: datetime) -> tuple:
    rendered, headline, math = _derived(r.abstract) if r.abstract else ("", r.title or "", "")
    if r.title and r.abstract and title_key(r.title) == title_key(headline):
        r.title = None  # a derived headline (an export wrote it as the title) is not a real title
    extra = " ".join(filter(None, (math, cjk_search_text(r.title, headline, rendered, r.authors))))
    return (
        key, fp, r.abstract, rendered, extra, headline, r.title, r.authors,
        r.venue, r.year, r.doi, r.arxiv_id, r.url, now, now,
    )


def _assign_keys(conn, fingerprints: list[str], preferred: list[str | None] | None = None) -> dict[str, str]:
    """The shortest free key for each fingerprint; collisions take a longer prefix.

    A `preferred` key (one a catalog export carried) is kept when it is free, so a catalog
    rebuilt from its own export has the same keys."""
    candidates = {fp: key_candidates(fp) for fp in fingerprints}
    wanted = {fp: next(keys) for fp, keys in candidates.items()}
    asked = {fp: key for fp, key in zip(fingerprints, preferred or []) if key}
    taken = _existing_keys(conn, list(wanted.values()) + list(asked.values()))
    keys: dict[str, str] = {}
    for fp, key in asked.items():
        if key not in taken:
            keys[fp] = key
            taken.add(key)
    for fp in fingerprints:
        if fp in keys:
            continue
        candidate = wanted[fp]
        while candidate in taken or (candidate != wanted[fp] and _existing_keys(conn, [candidate])):
            candidate = next(candidates[fp])
        keys[fp] = candidate
        taken.add(candidate)
    return keys


def _existing_keys(conn, keys: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(keys), 500):
        chunk = keys[start:start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(conn.execute(
            f"SELECT key FROM paper WHERE key IN ({marks})", tuple(chunk)
        ).scalars())
    return found
