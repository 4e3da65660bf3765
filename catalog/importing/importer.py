"""Import files into the catalog: each file in one write transaction, papers deduplicated.

Paper lists, BibTeX, RIS, JSON/JSONL and CSV files are told apart by suffix. Rows go in with
executemany and the search index is filled with one statement per file (the per-row trigger
stands aside: the store's bulk_load), several times faster than an ORM object per row. The
Python work per paper (catalog/importing/prepare.py) runs ahead in a worker process for large imports
(catalog/importing/reader.py).
Records that are papers already in the catalog fill their empty fields (catalog/importing/dedupe.py)
with UPDATEs, which the FTS update trigger reindexes.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from catalog import rules
from catalog.ingest import citekeys
from catalog.searching import acronyms
from catalog.importing import dedupe, merges
from catalog.importing.identity import insert_papers
from catalog.ingest.mapping import FieldMap
from catalog.ingest.records import IngestError, PaperRecord
from catalog.ingest.formats import SUFFIXES
from catalog.importing.prepare import Batch, Job, Opened, prepare_batch
from catalog.importing import reader
from catalog.importing.reader import Reader, WorkerError
from catalog.results import FileReport, ImportReport
from catalog.store import Store, StoreError
from catalog.text.terminal import safe


Progress = Callable[[int], None]
# Suffixes of a clashing cite key asked of the database at once, at first (then as many again
# as were asked before: a key thousands of papers share takes a few dozen queries).
SUFFIX_BLOCK = 4


def expand(paths: Iterable[Path]) -> Iterator[Path]:
    """Files named directly, and importable files found in folders (hidden entries skipped);
    then each folder that could not be read, for _plan to report.

    os.walk does not follow symlinked folders, so a symlink loop cannot trap it.
    """
    for path in paths:
        if path.is_dir():
            unreadable: list[Path] = []
            for root, dirs, files in os.walk(path, onerror=lambda exc: unreadable.append(Path(exc.filename))):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    candidate = Path(root) / name
                    if not name.startswith(".") and candidate.suffix.lower() in SUFFIXES:
                        yield candidate
            yield from unreadable
        else:
            yield path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def import_paths(store: Store, paths: Iterable[Path], *, venue: str | None = None,
                 year: int | None = None, progress: Progress | None = None,
                 field_map: FieldMap | None = None) -> ImportReport:
    report = ImportReport()
    files = list(expand(paths))
    plans = [_plan(store, path, venue, year, field_map) for path in files]
    to_read = [plan for plan in plans if not plan.error and not plan.known]
    jobs = [plan.job for plan in to_read]
    parallel = sum(plan.size for plan in to_read) >= reader.WORKER_MIN_BYTES
    with _fewer_collections(), Reader(jobs, parallel) as ahead:
        for plan in plans:
            file_report = FileReport(str(plan.path))
            report.files.append(file_report)
            try:
                if plan.error:
                    raise plan.error
                _import_file(store, ahead, plan, file_report, progress)
                continue
            except IngestError as exc:
                file_report.error = str(exc)
            except OSError as exc:
                file_report.error = f"{plan.path}: {exc.strerror or exc}"
            except StoreError as exc:
                file_report.error = f"{plan.path}: database error: {exc}"
            except WorkerError as exc:
                file_report.error = f"{plan.path}: {exc}"
            file_report.new = file_report.known = file_report.merged = file_report.folded = 0
            file_report.merges.clear()
    new = sum(f.new for f in report.files)
    if new:
        store.imported(new)
    return report


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """An import makes millions of short-lived objects without cycles (reference counting
    frees them); the cyclic collector, run every 700 allocations, keeps walking the batches
    waiting in memory, a noticeable share of a large import. Run it far less often meanwhile."""
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


def _plan(store: Store, path: Path, venue, year, field_map) -> _Plan:
    plan = _Plan(path, Job(path, venue, year, field_map))
    try:
        if not path.exists():
            raise IngestError(str(path), "no such file or folder")
        if path.is_dir():  # one expand() could not read
            try:
                os.listdir(path)
            except OSError as exc:
                raise IngestError(str(path), f"cannot read this folder ({exc.strerror or exc})") from None
        if not path.is_file():
            raise IngestError(str(path), "not a regular file")
        plan.sha, plan.size = file_sha256(path), path.stat().st_size
    except (IngestError, OSError) as exc:
        plan.error = exc
        return plan
    with store.read() as tx:
        plan.known = tx.imports.source_with(plan.sha) is not None
    return plan


def _import_file(store: Store, reader: Reader, plan: _Plan, report: FileReport,
                 progress: Progress | None) -> None:
    # Read before taking the write lock: parsing a large BibTeX or JSON file takes a while.
    items = None if plan.known else reader.stream(plan.job)
    opened: Opened | None = None if items is None else next(items)
    with store.write() as tx:
        # Asked again under the write lock: another import may have stored these bytes since.
        known_source = tx.imports.source_with(plan.sha)
        if known_source is not None:
            # The same bytes were imported before (maybe under another name): nothing to do
            # but say again what they lacked.
            report.known = tx.imports.papers_from(known_source.id)
            report.said_before.extend(_named_warnings(plan.path, known_source.warnings))
            return
        if items is None:  # known when planned, removed since (by `catalog doctor --fix`, say)
            items = reader.stream(plan.job)
            opened = next(items)
        report.warnings.extend(opened.warnings)
        now = rules.now()
        source_id = tx.imports.add_source(
            # A file name that is not UTF-8 is kept readable (U+FFFD) rather than failing.
            path=os.fsencode(plan.path.resolve()).decode("utf-8", "replace"), sha256=plan.sha,
            venue=opened.venue, year=opened.year, format=opened.format, imported_at=now,
            warnings=_unnamed_warnings(plan.path, opened.warnings))
        with tx.imports.bulk_load():
            unindexed, suffixes = _Unindexed(), _Suffixes()
            keywords: list[tuple[int, str]] = []
            streamed: list[str] = []  # warnings of a streamed file, found as it was read
            for batch in items:
                streamed.extend(batch.warnings)
                if batch.papers:
                    keywords.extend(_store_batch(tx, batch, source_id, now, report, unindexed, opened.format,
                                                 suffixes).tags)
                if progress and batch.records:
                    progress(batch.records)
            if report.new == 0 and report.known == 0:
                raise IngestError(str(plan.path), "no abstracts found")
            if streamed:  # kept with the source, as a file read whole keeps them
                report.warnings.extend(streamed)
                tx.imports.set_source_warnings(source_id, _unnamed_warnings(plan.path, opened.warnings + streamed))
            unindexed.flush(tx)
            # Tagging updates the paper (its tags_text), which must be in the index by now.
            for paper_id, name in keywords:
                tx.edits.add_tag(paper_id, name)


def import_records(store: Store, records: list[PaperRecord], *, origin: str, format: str,
                   sha256: str, facts: WebFacts | None = None) -> Stored:
    """Store records that came from elsewhere than a file (a web service's answer) as one
    source named `origin` (its URL): merged with papers already there like an imported file's,
    and, like a file's bytes, the same `sha256` stored twice changes nothing. The report and
    the ids of the papers the records are."""
    report, filled = FileReport(origin), []
    batch = prepare_batch(records)
    with store.write() as tx:
        known = tx.imports.source_with(sha256)
        if known is not None:
            ids = tx.imports.paper_ids_from(known.id)
            report.known = len(ids)
            return Stored(report, ids, [])
        now = rules.now()
        source_id = tx.imports.add_source(path=origin, sha256=sha256, venue=None, year=None,
                                          format=format, imported_at=now, warnings="")
        with tx.imports.bulk_load():
            unindexed = _Unindexed()
            batched = _store_batch(tx, batch, source_id, now, report, unindexed, format, _Suffixes())
            unindexed.flush(tx)
            for paper_id, name in batched.tags:
                tx.edits.add_tag(paper_id, name)
            filled = batched.filled
        ids = tx.imports.paper_ids_from(source_id)
        if facts:
            _store_facts(tx, ids, source_id, facts)
    if report.new:
        store.imported(report.new)
    return Stored(report, ids, filled)


def merge_into(store: Store, paper_id: int, record: PaperRecord, *, origin: str, format: str,
               sha256: str, evidence: str, facts: WebFacts | None = None) -> list[str]:
    """Fill the empty fields of one chosen paper from a record found for it (`catalog enrich`:
    the record matched it on `evidence`, not on the rules imports use), kept like an import's
    merge: the answer is a source of the paper, `catalog show` lists it with the evidence and
    `catalog split` undoes it. The fields filled."""
    with store.write() as tx:
        known = tx.imports.source_with(sha256)
        if known is not None and paper_id in tx.imports.paper_ids_from(known.id):
            return []  # this answer was merged into this paper before
        now = rules.now()
        source_id = known.id if known is not None else tx.imports.add_source(
            path=origin, sha256=sha256, venue=None, year=None, format=format, imported_at=now, warnings="")
        changed, [filled] = dedupe.merge(tx, [(paper_id, record)], now)
        if "authors" in filled:  # the people, as an import's merge keeps them (paper_author)
            tx.imports.set_authors([(paper_id, record.authors)])
        tx.imports.add_provenance([(paper_id, source_id, record.position)])
        merges.store_merges(tx, [(paper_id, source_id, record.position, evidence, filled, record)], now)
        if facts:
            _store_facts(tx, [paper_id], source_id, facts)
    return list(filled)


class WebFacts(NamedTuple):
    """What a web service says of a paper beyond a record's fields (paper_link, paper_notice)."""

    links: list[tuple[str, str]]  # (relation, url): ("pdf", "https://arxiv.org/pdf/...")
    notices: list[tuple[str, str, str, str | None]]  # (kind, notice DOI, label, YYYY-MM-DD)


def _store_facts(tx, ids: list[int], source_id: int, facts: WebFacts) -> None:
    tx.imports.add_links([(pid, rel, url, source_id) for pid in ids for rel, url in facts.links])
    tx.imports.add_notices([(pid, *notice, source_id) for pid in ids for notice in facts.notices])


class Stored(NamedTuple):
    report: FileReport
    ids: list[int]  # the papers the records are, new or known
    filled: list[str]  # the fields known papers gained


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

    def flush(self, tx) -> None:
        if self.first is not None:
            tx.imports.index_papers_from(self.first)
            self.first = None


def _store_batch(tx, batch: Batch, source_id: int, now: datetime,
                 report: FileReport, unindexed: _Unindexed, fmt: str, suffixes: _Suffixes) -> _Batched:
    """Store one batch: new papers inserted, known ones filled in, provenance, merges and each
    record's fields kept."""
    papers = batch.papers
    if any(p.record.title for p in papers):
        unindexed.flush(tx)  # titles are looked up through the index
    found, taken = dedupe.match(tx, papers)
    ids = {i: f.paper_id for i, f in found.items()}
    new = [i for i in range(len(papers)) if i not in found]
    if new:
        inserted = insert_papers(tx, [papers[i] for i in new], [batch.fields[i] for i in new], taken, now)
        ids.update(zip(new, inserted))
        unindexed.added(inserted[0])
        _give_citekeys(tx, [(ids[i], papers[i], batch.fields[i]) for i in new], fmt, report, suffixes)
        tx.imports.set_authors([(ids[i], batch.fields[i].authors) for i in new if batch.fields[i].authors])
        _learn_acronyms(tx, [batch.acronyms[i] for i in new] if batch.acronyms else [],
                        [batch.fields[i].abstract_text for i in new],
                        None if batch.ordinary is None else [batch.ordinary.get(i, ()) for i in new])
    matched = sorted(found)
    filled: list[tuple[str, ...]] = []
    if matched:
        if unindexed.first is not None and any(ids[i] >= unindexed.first for i in matched):
            unindexed.flush(tx)
        changed, filled = dedupe.merge(tx, [(ids[i], papers[i].record) for i in matched], now)
        report.merged += changed
        tx.imports.set_authors([(ids[i], papers[i].record.authors) for i, gave in zip(matched, filled)
                                if "authors" in gave])
    report.new += len(new)
    report.known += len({ids[i] for i in matched})
    tx.imports.add_provenance(
        [(ids[i], source_id, position) for i, p in enumerate(papers) for position in p.positions])
    merges.store_merges(tx, _merges(papers, ids, found, dict(zip(matched, filled)), source_id, report), now)
    return _Batched(filled=sorted({name for names in filled for name in names}),
                    tags=_keep_records(tx, papers, ids, source_id))


class _Suffixes:
    """What one write transaction learned of cite keys: the keys taken (lower case), and of each
    clashing (key, made by the catalog): the last suffix it gave and how far its suffixes were
    checked against the database. Valid for the transaction only: it holds the write lock, so
    nothing but its own keys arrives meanwhile."""

    def __init__(self) -> None:
        self.taken: set[str] = set()
        self.last: dict[tuple[str, bool], int] = {}
        self.asked: dict[tuple[str, bool], int] = {}


def _give_citekeys(tx, new: list[tuple[int, dedupe.Paper, object]], fmt: str, report: FileReport,
                   suffixes: _Suffixes) -> None:
    """Each new paper's cite key, given once: its file's (BibTeX's entry key; a CSL `id` or RIS
    `ID` LaTeX can cite), else one made from its authors, year and title. A key another paper
    has takes a suffix (a file's key -2, a made one a, b...), and a file's key that had to is
    reported."""
    wanted: list[tuple[int, str, bool, int]] = []
    pattern = tx.imports.setting(citekeys.SETTING) or citekeys.PATTERN
    for paper_id, paper, row in new:
        records = [r for r in (paper.record, *(m.record for m in paper.merges)) if r.kept is not None]
        own = citekeys.own_key([citekeys.FileKey(fmt, r.kept.cite_key) for r in records])
        key = own or citekeys.made_key(authors=row.authors, year=row.year, title=row.title or row.headline,
                                       venue=row.venue, fallback="paper", pattern=pattern)
        wanted.append((paper_id, key, own is None, paper.record.line))
    taken, last, asked = suffixes.taken, suffixes.last, suffixes.asked
    taken |= tx.imports.citekeys_taken([key for _, key, _, _ in wanted if key.lower() not in taken])
    # A key that clashes takes a suffix. Each (key, kind) goes on from the last suffix it gave,
    # and the suffixes are asked of the database in growing blocks (equality lookups: the
    # unique index serves them on both backends). One query per suffix tried made a batch
    # quadratic in the papers sharing a key (a venue's papers without authors).
    counts = Counter((key.lower(), made) for _, key, made, _ in wanted)
    # Of every key that clashes, the suffixes this batch's papers of it will take (a block at
    # least), in one lookup for the batch; the doubling below is for suffixes other papers
    # hold. A key a venue's papers share took a lookup per doubling per batch (thousands in a
    # large import).
    blocks = []
    for name, key in {(key.lower(), made): key for _, key, made, _ in wanted}.items():
        if name in asked:
            first, end = asked[name] + 1, last.get(name, 0) + counts[name]
        elif name[0] in taken or counts[name] > 1:
            first, end = 1, max(SUFFIX_BLOCK, counts[name])
        else:
            continue
        if end >= first:
            blocks.append((name, key, first, end))
            asked[name] = end
    taken |= tx.imports.citekeys_taken([citekeys.suffixed(key, m, generated=name[1])
                                        for name, key, first, end in blocks for m in range(first, end + 1)])
    rows = []
    for paper_id, key, made, line in wanted:
        name = (key.lower(), made)
        given, n = key, last.get(name, 0)
        if n:
            given = citekeys.suffixed(key, n, generated=made)
        while given.lower() in taken or n > asked.get(name, 0):
            if n > asked.get(name, 0):
                block = range(n, n + max(SUFFIX_BLOCK, asked.get(name, 0)))  # doubling
                taken |= tx.imports.citekeys_taken([citekeys.suffixed(key, m, generated=made) for m in block])
                asked[name] = block[-1]
                continue
            n += 1
            given = citekeys.suffixed(key, n, generated=made)
        last[name] = n
        taken.add(given.lower())
        rows.append((paper_id, given, made))
        if given != key and not made:
            report.warnings.append(f"{report.path}:{line}: cite key '{key}' is another paper's already;"
                                   f" this paper's is '{given}'")
    tx.imports.add_citekeys(rows)


def _safe(value):
    """Kept values made terminal-safe on the way in, like all imported text (control
    characters stripped; line breaks and tabs stay), however deep in a CSL value."""
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, list):
        return [_safe(v) for v in value]
    if isinstance(value, dict):
        return {safe(str(k)): _safe(v) for k, v in value.items()}
    return value


def _keep_records(tx, papers: list[dedupe.Paper], ids: dict[int, int], source_id: int) -> list[tuple[int, str]]:
    """Store every record's fields as written; the tags its keywords become."""
    rows, tags = [], []
    for i, paper in enumerate(papers):
        for record in [paper.record, *(m.record for m in paper.merges)]:
            kept = record.kept
            if kept is None:
                continue
            rows.append((source_id, record.position, ids[i], _safe(kept.entry_type), _safe(kept.cite_key),
                         json.dumps(_safe(kept.fields), ensure_ascii=False)))
            tags.extend((ids[i], name) for name in map(rules.keyword_tag, kept.keywords) if name)
    if rows:
        tx.imports.add_kept_records(rows)
    return tags


class _Batched(NamedTuple):
    filled: list[str]  # the names of the fields known papers gained
    tags: list[tuple[int, str]]  # the (paper id, tag) its records' keywords ask for


def _learn_acronyms(tx, defined: list[list[tuple[str, str]]], texts: list[str],
                    ordinary: list[Iterable[str]] | None = None) -> None:
    """Count the acronyms new papers define (each paper once per pair); short forms these
    papers also use as ordinary lowercase words ("it", "us") are marked never to expand.
    `ordinary`: of each paper, such words the reader found (prepare.Batch.ordinary), or None
    (then looked for here)."""
    pairs: dict[tuple[str, str], tuple[str, int]] = {}
    for found in defined:
        for (short, key), long in {(s, acronyms.long_key(lf)): lf for s, lf in found}.items():
            surface, n = pairs.get((short, key), (long, 0))
            pairs[(short, key)] = (surface, n + 1)
    if not pairs:
        return
    tx.imports.add_acronyms([(short, key, long, n) for (short, key), (long, n) in pairs.items()])
    shorts = {short.lower() for short, _ in pairs}
    if ordinary is None:
        used = acronyms.used_as_words(shorts, texts)
    else:
        used = shorts.intersection(word for words in ordinary for word in words)
    if used:
        tx.imports.mark_ordinary_words(sorted(used))


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
