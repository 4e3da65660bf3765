"""Import files into the catalog: each file in one write transaction, papers deduplicated.

Paper lists, BibTeX, JSON/JSONL and CSV files are told apart by suffix. Rows go in with
executemany and the FTS index is filled with one statement per file (the per-row trigger
stands aside: sqlite.bulk_load), several times faster than an ORM object per row. The
Python work per paper runs ahead in a worker process for large imports (catalog/prepare.py).
Records that are papers already in the catalog fill their empty fields (catalog/dedupe.py)
with UPDATEs, which the FTS update trigger reindexes.
"""

from __future__ import annotations

import gc
import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from catalog import db, dedupe, prepare, sqlite
from catalog.db import Database
from catalog.ingest.mapping import FieldMap
from catalog.ingest.records import IngestError
from catalog.prepare import SUFFIXES, Batch, Job, Opened, Reader, WorkerError
from catalog.results import FileReport, ImportReport

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
    number = int(fp, 16)  # 128 bits: 25 base32 digits, from the top
    for length in range(KEY_LENGTH, 26):
        prefix = number >> (128 - 5 * length)
        yield "".join(_KEY_ALPHABET[(prefix >> shift) & 31] for shift in range(5 * length - 5, -1, -5))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def import_paths(database: Database, paths: Iterable[Path], *, venue: str | None = None,
                 year: int | None = None, progress: Progress | None = None,
                 field_map: FieldMap | None = None) -> ImportReport:
    report = ImportReport()
    files = list(expand(paths))
    plans = [_plan(database, path, venue, year, field_map) for path in files]
    to_read = [plan for plan in plans if not plan.error and not plan.known]
    jobs = [plan.job for plan in to_read]
    parallel = sum(plan.size for plan in to_read) >= prepare.WORKER_MIN_BYTES
    with _fewer_collections(), Reader(jobs, parallel) as reader:
        for plan in plans:
            file_report = FileReport(str(plan.path))
            report.files.append(file_report)
            try:
                if plan.error:
                    raise plan.error
                _import_file(database, reader, plan, file_report, progress)
                continue
            except IngestError as exc:
                file_report.error = str(exc)
            except OSError as exc:
                file_report.error = f"{plan.path}: {exc.strerror or exc}"
            except sqlite3.Error as exc:
                file_report.error = f"{plan.path}: database error: {exc}"
            except WorkerError as exc:
                file_report.error = f"{plan.path}: {exc}"
            file_report.new = file_report.known = file_report.merged = file_report.folded = 0
            file_report.merges.clear()
    return report


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """An import makes millions of short-lived objects without cycles (reference counting
    frees them); the cyclic collector, run every 700 allocations, keeps walking the batches
    waiting in memory: a tenth of a 100k-paper import. Run it 70x less often meanwhile."""
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 50_000), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


@dataclass
class _Plan:
    """One file to import: its checksum, the job that reads it, and whether its bytes were
    imported before (then nobody reads it, unless that import is gone by the time it is
    this file's turn)."""

    path: Path
    job: Job
    sha: str = ""
    size: int = 0
    known: bool = False
    error: Exception | None = None


def _plan(database: Database, path: Path, venue, year, field_map) -> _Plan:
    plan = _Plan(path, Job(path, venue, year, field_map))
    try:
        if not path.exists():
            raise IngestError(str(path), "no such file or folder")
        if not path.is_file():
            raise IngestError(str(path), "not a regular file")
        plan.sha, plan.size = file_sha256(path), path.stat().st_size
    except (IngestError, OSError) as exc:
        plan.error = exc
        return plan
    with db.read(database) as conn:
        plan.known = bool(conn.execute("SELECT 1 FROM source WHERE sha256 = ?", (plan.sha,)).first())
    return plan


def _import_file(database: Database, reader: Reader, plan: _Plan, report: FileReport,
                 progress: Progress | None) -> None:
    # Read before taking the write lock: parsing a large BibTeX or JSON file takes a while.
    items = None if plan.known else reader.stream(plan.job)
    opened: Opened | None = None if items is None else next(items)
    with db.write(database) as conn:
        # Asked again under the write lock: another import may have stored these bytes since.
        known_source = conn.execute(
            "SELECT id, warnings FROM source WHERE sha256 = ?", (plan.sha,)
        ).first()
        if known_source is not None:
            # The same bytes were imported before (maybe under another name): nothing to do
            # but say again what they lacked.
            report.known = conn.execute(
                "SELECT count(DISTINCT paper_id) FROM provenance WHERE source_id = ?", (known_source[0],)
            ).scalar()
            report.warnings.extend(_named_warnings(plan.path, known_source[1]))
            return
        if items is None:  # known when planned, removed since (by `catalog doctor --fix`, say)
            items = reader.stream(plan.job)
            opened = next(items)
        report.warnings.extend(opened.warnings)
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        source_id = conn.execute(
            "INSERT INTO source(path, sha256, venue, year, format, imported_at, warnings) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            # A file name that is not UTF-8 is kept readable (U+FFFD) rather than failing.
            (os.fsencode(plan.path.resolve()).decode("utf-8", "replace"), plan.sha,
             opened.venue, opened.year, opened.format, now, _unnamed_warnings(plan.path, opened.warnings)),
        ).scalar()
        with sqlite.bulk_load(conn):
            unindexed = _Unindexed()
            for batch in items:
                _store_batch(conn, batch, source_id, now, report, unindexed)
                if progress:
                    progress(batch.records)
            if report.new == 0 and report.known == 0:
                raise IngestError(str(plan.path), "no abstracts found")
            unindexed.flush(conn)


def _unnamed_warnings(path: Path, warnings: list[str]) -> str:
    """Warnings as stored with their file: "LINE: what", one per line (the same bytes may be
    imported again under another name)."""
    prefix = f"{path}:"
    return "\n".join(" ".join(w.removeprefix(prefix).split()) for w in warnings)


def _named_warnings(path: Path, stored: str) -> list[str]:
    return [f"{path}:{w}" for w in stored.splitlines() if w]


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


def _store_batch(conn, batch: Batch, source_id: int, now: datetime,
                 report: FileReport, unindexed: _Unindexed) -> None:
    """Store one batch: new papers inserted, known ones filled in, provenance and merges kept."""
    papers = batch.papers
    if any(p.record.title for p in papers):
        unindexed.flush(conn)  # titles are looked up through the index
    found, taken = dedupe.match(conn, papers)
    ids = {i: f.paper_id for i, f in found.items()}
    new = [i for i in range(len(papers)) if i not in found]
    if new:
        inserted = insert_papers(conn, [papers[i] for i in new], [batch.fields[i] for i in new], taken, now)
        ids.update(zip(new, inserted))
        unindexed.added(inserted[0])
    matched = sorted(found)
    filled: list[tuple[str, ...]] = []
    if matched:
        if unindexed.first is not None and any(ids[i] >= unindexed.first for i in matched):
            unindexed.flush(conn)
        changed, filled = dedupe.merge(conn, [(ids[i], papers[i].record) for i in matched], now)
        report.merged += changed
    report.new += len(new)
    report.known += len({ids[i] for i in matched})
    conn.execute(
        "INSERT OR IGNORE INTO provenance(paper_id, source_id, position) VALUES (?, ?, ?)",
        [(ids[i], source_id, position) for i, p in enumerate(papers) for position in p.positions],
    )
    dedupe.store_merges(conn, _merges(papers, ids, found, dict(zip(matched, filled)), source_id, report), now)


def _merges(papers: list[dedupe.Paper], ids: dict[int, int], found: dict[int, dedupe.Found],
            filled: dict[int, tuple[str, ...]], source_id: int, report: FileReport) -> list[tuple]:
    """The merge rows of a batch (see dedupe.store_merges), each also told in the report.

    A record folded into an entry above gave the new paper the fields it filled; when that
    entry is a catalog paper, it gave what the catalog paper took of them."""
    rows = []
    for i, paper in enumerate(papers):
        pid = ids[i]
        into = found.get(i)
        for m in paper.merges:
            gave = m.filled if into is None else tuple(f for f in m.filled if f in filled[i])
            rows.append((pid, source_id, m.record.position, m.evidence, gave, m.record))
            report.folded += 1
            report.merges.append(f"{report.path}:{m.record.line}: merged with the entry at line "
                                 f"{m.into_line} ({m.evidence})")
        if into is not None:
            theirs = {f for m in paper.merges for f in m.filled}
            gave = tuple(f for f in filled[i] if f not in theirs)
            rows.append((pid, source_id, paper.record.position, into.evidence, gave, paper.own_record()))
            report.merges.append(f"{report.path}:{paper.record.line}: already in the catalog as "
                                 f"{into.key} ({into.evidence})")
    return rows


def insert_papers(conn, papers: list[dedupe.Paper], rows: list[tuple], taken: set[str],
                  now: datetime) -> list[int]:
    """Insert new papers (their prepare.paper_fields rows) with free fingerprints and keys;
    their ids, in order. During an import the FTS insert trigger stands aside (the caller
    indexes them); otherwise it indexes them."""
    stamp = sqlite.timestamp(now)  # once, not twice per row
    fps = unique_fingerprints(conn, [p.fp for p in papers], taken)
    keys = _assign_keys(conn, fps, preferred=[p.record.extra.get("key") for p in papers])
    last_id = conn.execute("SELECT coalesce(max(id), 0) FROM paper").scalar()
    conn.execute(
        "INSERT INTO paper(key, fingerprint, abstract, abstract_text, search_extra, headline,"
        " title, authors, venue, year, doi, arxiv_id, url, status, tags_text, notes_text,"
        " added_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'unread', '', '', ?, ?)",
        [(keys[fp], fp, *row[1:], stamp, stamp) for fp, row in zip(fps, rows)],
    )
    # We hold the write lock and rowids are max+1, so the new ids follow in order.
    return list(range(last_id + 1, last_id + 1 + len(papers)))


def unique_fingerprints(conn, fps: list[str], taken: set[str], keep: str | None = None) -> list[str]:
    """The fingerprints, each made distinct where two papers the rules keep apart hash alike
    (one placeholder abstract, one generic title): the fingerprint is the paper's unique id.
    `taken`: those catalog papers hold (dedupe.match looked them up); `keep`: the one the paper
    being changed holds, free for it."""
    out: list[str] = []
    seen: set[str] = set()
    for fp in fps:
        candidate, n = fp, 1
        while (candidate in taken or candidate in seen) and candidate != keep:
            n += 1
            candidate = hashlib.sha256(f"{fp}/{n}".encode()).hexdigest()[:32]
            if candidate != keep and conn.execute("SELECT 1 FROM paper WHERE fingerprint = ?", (candidate,)).first():
                taken.add(candidate)
        seen.add(candidate)
        out.append(candidate)
    return out


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
