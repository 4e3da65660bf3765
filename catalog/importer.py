"""Import files into the catalog: each file in one write transaction, papers deduplicated.

Rows go in with executemany and the FTS index is filled with one statement per file (the
per-row trigger stands aside), which is several times faster than an ORM object per row.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from catalog import db, sqlite, text
from catalog.cjk import cjk_search_text
from catalog.ingest.paperlist import read_paper_list
from catalog.ingest.records import IngestError, PaperRecord
from catalog.results import FileReport, ImportReport

PAPER_LIST_SUFFIXES = {".txt", ".text", ".md", ""}
BATCH = 2000
KEY_LENGTH = 7
# Crockford's base32 alphabet in lower case: no i, l, o or u to misread or mistype.
_TO_KEY_ALPHABET = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789abcdefghjkmnpqrstvwxyz")

Progress = Callable[[int], None]


def expand(paths: Iterable[Path]) -> Iterator[Path]:
    """Files named directly, and paper lists found in folders (hidden entries skipped).

    os.walk does not follow symlinked folders, so a symlink loop cannot trap it.
    """
    for path in paths:
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    candidate = Path(root) / name
                    if not name.startswith(".") and candidate.suffix.lower() in PAPER_LIST_SUFFIXES:
                        yield candidate
        else:
            yield path


def fingerprint(record: PaperRecord) -> str:
    basis = record.abstract or record.title or ""
    return hashlib.sha256(text.normalize(basis).encode()).hexdigest()[:32]


def key_candidates(fp: str) -> Iterator[str]:
    """Short keys from the fingerprint, longer ones after a collision."""
    encoded = base64.b32encode(bytes.fromhex(fp)).decode().rstrip("=").translate(_TO_KEY_ALPHABET)
    for length in range(KEY_LENGTH, len(encoded) + 1):
        yield encoded[:length]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def import_paths(engine: Engine, paths: Iterable[Path], *, venue: str | None = None,
                 year: int | None = None, progress: Progress | None = None) -> ImportReport:
    report = ImportReport()
    for path in expand(paths):
        file_report = FileReport(str(path))
        report.files.append(file_report)
        try:
            _import_file(engine, path, file_report, venue=venue, year=year, progress=progress)
        except IngestError as exc:
            file_report.error, file_report.new, file_report.known = str(exc), 0, 0
        except OSError as exc:
            file_report.error = f"{path}: {exc.strerror or exc}"
            file_report.new = file_report.known = 0
        except DBAPIError as exc:
            file_report.error = f"{path}: database error: {exc.orig}"
            file_report.new = file_report.known = 0
    return report


def _import_file(engine: Engine, path: Path, report: FileReport, *, venue, year, progress) -> None:
    if not path.exists():
        raise IngestError(str(path), "no such file or folder")
    if not path.is_file():
        raise IngestError(str(path), "not a regular file")
    sha = file_sha256(path)
    with read_paper_list(path, venue=venue, year=year) as paper_list, db.write(engine) as conn:
        known_source = conn.exec_driver_sql(
            "SELECT id FROM source WHERE sha256 = ?", (sha,)
        ).scalar()
        if known_source is not None:
            # The same bytes were imported before (maybe under another name): nothing to do.
            report.known = conn.exec_driver_sql(
                "SELECT count(DISTINCT paper_id) FROM provenance WHERE source_id = ?", (known_source,)
            ).scalar()
            return
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        source_id = conn.exec_driver_sql(
            "INSERT INTO source(path, sha256, venue, year, format, imported_at) "
            "VALUES (?, ?, ?, ?, 'paperlist', ?) RETURNING id",
            (str(path.resolve()), sha, paper_list.venue, paper_list.year, now),
        ).scalar()
        first_new_id = (conn.exec_driver_sql("SELECT max(id) FROM paper").scalar() or 0) + 1
        sqlite.set_bulk_loading(conn, True)
        batch: list[PaperRecord] = []
        for record in paper_list.records:
            batch.append(record)
            if len(batch) >= BATCH:
                _store_batch(conn, batch, source_id, now, report)
                if progress:
                    progress(len(batch))
                batch = []
        if batch:
            _store_batch(conn, batch, source_id, now, report)
            if progress:
                progress(len(batch))
        if report.new == 0 and report.known == 0:
            raise IngestError(str(path), "no abstracts found")
        sqlite.index_papers_from(conn, first_new_id)
        sqlite.set_bulk_loading(conn, False)


def _store_batch(conn, batch: list[PaperRecord], source_id: int, now: datetime,
                 report: FileReport) -> None:
    by_fp: dict[str, PaperRecord] = {}
    provenance: list[tuple[str, int]] = []
    for record in batch:
        fp = fingerprint(record)
        by_fp.setdefault(fp, record)
        provenance.append((fp, record.position))
    ids = _ids_for(conn, list(by_fp))
    new = [fp for fp in by_fp if fp not in ids]
    if new:
        keys = _assign_keys(conn, new)
        last_id = conn.exec_driver_sql("SELECT coalesce(max(id), 0) FROM paper").scalar()
        conn.exec_driver_sql(
            "INSERT INTO paper(key, fingerprint, abstract, abstract_text, search_extra, headline,"
            " title, authors, venue, year, doi, arxiv_id, url, status, tags_text, notes_text,"
            " added_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'unread', '', '', ?, ?)",
            [_paper_row(keys[fp], fp, by_fp[fp], now) for fp in new],
        )
        # We hold the write lock and rowids are max+1, so the new ids follow in order.
        ids.update(zip(new, range(last_id + 1, last_id + 1 + len(new))))
    report.new += len(new)
    report.known += len(by_fp) - len(new)
    conn.exec_driver_sql(
        "INSERT OR IGNORE INTO provenance(paper_id, source_id, position) VALUES (?, ?, ?)",
        [(ids[fp], source_id, position) for fp, position in provenance],
    )


def _paper_row(key: str, fp: str, r: PaperRecord, now: datetime) -> tuple:
    rendered = text.render(r.abstract)
    headline = text.headline(r.abstract, rendered=rendered) if r.abstract else (r.title or "")
    extra = " ".join(filter(None, (
        text.search_extra(r.abstract), cjk_search_text(r.title, headline, rendered, r.authors))))
    return (
        key, fp, r.abstract, rendered, extra, headline, r.title, r.authors,
        r.venue, r.year, r.doi, r.arxiv_id, r.url, now, now,
    )


def _ids_for(conn, fingerprints: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for start in range(0, len(fingerprints), 500):
        chunk = fingerprints[start:start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(conn.exec_driver_sql(
            f"SELECT fingerprint, id FROM paper WHERE fingerprint IN ({marks})", tuple(chunk)
        ).all())
    return found


def _assign_keys(conn, fingerprints: list[str]) -> dict[str, str]:
    """The shortest free key for each fingerprint; collisions take a longer prefix."""
    candidates = {fp: key_candidates(fp) for fp in fingerprints}
    wanted = {fp: next(keys) for fp, keys in candidates.items()}
    taken = _existing_keys(conn, list(wanted.values()))
    keys: dict[str, str] = {}
    for fp in fingerprints:
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
        found.update(conn.exec_driver_sql(
            f"SELECT key FROM paper WHERE key IN ({marks})", tuple(chunk)
        ).scalars())
    return found
