"""`catalog doctor`: check the database file, and with --fix repair what can be repaired.

What goes wrong when people edit the file by hand (foreign keys off, triggers dropped, raw
inserts) or when a disk misbehaves:

    integrity      PRAGMA integrity_check                  repair: REINDEX (else: a backup)
    schema         triggers, views, indexes, FTS table     repair: create the missing ones
    orphans        provenance, paper_tag, note rows        repair: delete them
                   pointing nowhere (foreign_key_check)
    empty files    source rows that hold no papers         repair: delete (re-import works)
    search copies  paper.tags_text / notes_text stale      repair: recompute
    derived text   abstract_text, headline, search_extra,  repair: derive again (keys kept)
                   fingerprint not those of the abstract
    search index   FTS5 integrity-check                    repair: 'rebuild'

Checks run inside one write transaction (FTS5's integrity-check is an INSERT). With --fix a
copy of the file is kept first, then every repair runs in one write transaction and the
checks run again, so the report says what was done and what is still wrong.

`check_file` is what `catalog doctor` runs: it also takes files no other command opens.

    damaged        SQLite cannot read it, or it was cut   report what can still be read;
                   short                                  --fix suggests `.recover`
    schema version alembic_version gone or empty          repair: put the revision whose
                                                          tables the file has back
    read-only      the file or its folder                 check a copy; nothing to repair
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


from catalog import db, sqlite
from catalog.db import CatalogError
from catalog.sqlite import Connection


@dataclass(frozen=True)
class Finding:
    check: str
    problem: str
    fixable: bool = True


@dataclass
class DoctorReport:
    path: Path
    checked: list[str] = field(default_factory=list)
    found: list[Finding] = field(default_factory=list)  # before any repair
    repaired: list[str] = field(default_factory=list)  # what --fix did, one line each
    remaining: list[Finding] = field(default_factory=list)  # still wrong at the end
    backup: Path | None = None
    notes: list[str] = field(default_factory=list)  # what else the user should know

    @property
    def healthy(self) -> bool:
        return not self.remaining


@dataclass(frozen=True)
class _Check:
    name: str
    find: Callable[[Connection], list[str]]
    fix: Callable[[Connection], str] | None


# --- integrity --------------------------------------------------------------------------

def _integrity(conn: Connection) -> list[str]:
    problems = sqlite.integrity_problems(conn)
    if len(problems) > 5:
        problems = [*problems[:5], f"... and {len(problems) - 5} more"]
    return problems


def _reindex(conn: Connection) -> str:
    conn.execute("REINDEX")
    return "rebuilt every index (REINDEX)"


# --- schema objects ---------------------------------------------------------------------

def _reference_schema(revision: str = "head") -> dict[str, tuple[str, str]]:
    """name -> (type, sql) of a fresh database at `revision` (default: this program's schema)."""
    from catalog import migrate

    with tempfile.TemporaryDirectory() as tmp:
        reference = db.Database(Path(tmp) / "reference.db")
        migrate.upgrade(reference.path, revision)
        with reference.connect() as conn:
            rows = conn.execute(
                "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL"
            ).all()
        reference.close()
    # Shadow tables of the FTS index come with the index; the FTS check covers them. The
    # schema version has a check of its own (check_file).
    return {name: (kind, sql) for kind, name, sql in rows
            if not (kind == "table" and name.startswith(sqlite.FTS_TABLE + "_"))
            and name != "alembic_version"}


_ORDER = {"table": 0, "index": 1, "view": 2, "trigger": 3}


def _missing_objects(conn: Connection) -> list[tuple[str, str, str]]:
    present = set(conn.execute("SELECT name FROM sqlite_master").scalars())
    missing = [(kind, name, sql) for name, (kind, sql) in _reference_schema().items()
               if name not in present]
    return sorted(missing, key=lambda m: (_ORDER.get(m[0], 9), m[1]))


def _schema(conn: Connection) -> list[str]:
    return [f"{kind} {name} is missing" for kind, name, _ in _missing_objects(conn)]


def _create_missing(conn: Connection) -> str:
    missing = _missing_objects(conn)
    for _, _, sql in missing:
        conn.execute(sql)
    return "created " + ", ".join(f"{kind} {name}" for kind, name, _ in missing)


# --- rows pointing nowhere --------------------------------------------------------------

def _dangling(conn: Connection) -> list[tuple[str, int | None, str]]:
    return [(table, rowid, parent)
            for table, rowid, parent, _fkid in sqlite.foreign_key_problems(conn)]


def _orphans(conn: Connection) -> list[str]:
    counts = Counter((table, parent) for table, _, parent in _dangling(conn))
    return [f"{n} {table} row(s) point to a {parent} that does not exist"
            for (table, parent), n in sorted(counts.items())]


def _delete_orphans(conn: Connection) -> str:
    rows = {(table, rowid) for table, rowid, _ in _dangling(conn) if rowid is not None}
    for table, rowid in sorted(rows):
        conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
    counts = Counter(table for table, _ in rows)
    return "deleted rows that pointed nowhere: " + ", ".join(
        f"{n} from {table}" for table, n in sorted(counts.items()))


# --- sources without papers -------------------------------------------------------------

_EMPTY_SOURCES = "FROM source WHERE id NOT IN (SELECT source_id FROM provenance)"


def _empty_sources(conn: Connection) -> list[str]:
    n = conn.execute(f"SELECT count(*) {_EMPTY_SOURCES}").scalar()
    if n:
        return [f"{n} imported file(s) hold no papers; importing them again would be skipped"]
    return []


def _delete_empty_sources(conn: Connection) -> str:
    n = conn.execute(f"DELETE {_EMPTY_SOURCES}").rowcount
    return f"forgot {n} imported file(s) without papers (import them again to get their papers)"


# --- tags_text / notes_text -------------------------------------------------------------

_COPIES = {"tags_text": sqlite.TAGS_TEXT_OF, "notes_text": sqlite.NOTES_TEXT_OF}


def _stale_copies(conn: Connection) -> list[str]:
    out = []
    for column, expected in _COPIES.items():
        n = conn.execute(
            f"SELECT count(*) FROM paper WHERE {column} IS NOT {expected.format(pid='paper.id')}"
        ).scalar()
        if n:
            source = "tags" if column == "tags_text" else "notes"
            out.append(f"{n} paper(s) have a {column} that does not match their {source}")
    return out


def _recompute_copies(conn: Connection) -> str:
    done = []
    for column, expected in _COPIES.items():
        value = expected.format(pid="paper.id")
        n = conn.execute(
            f"UPDATE paper SET {column} = {value} WHERE {column} IS NOT {value}"
        ).rowcount
        if n:
            done.append(f"{column} of {n} paper(s)")
    return "recomputed " + ", ".join(done)


# --- text derived from the abstract ----------------------------------------------------------
#
# abstract_text, headline, search_extra and fingerprint come from `abstract` (and, without one,
# the title) in Python. A hand edit of `abstract` is noted by a trigger (paper_rederive, and the
# next command derives the text again); other edits show as a fingerprint that is not the
# abstract's. That witness is cheap, and it is confirmed by deriving the text: a paper may keep
# an older fingerprint on purpose (another paper had its abstract first).

_DERIVED_FROM = "SELECT id, abstract, title, authors, doi, arxiv_id, fingerprint, abstract_text, headline, search_extra FROM paper"


def _fingerprint(abstract: str, title: str | None, doi: str | None, arxiv_id: str | None) -> str:
    """The fingerprint a paper with these values would get (dedupe.fingerprint)."""
    from catalog.dedupe import fingerprint
    from catalog.ingest.records import PaperRecord

    return fingerprint(PaperRecord(abstract, 0, 0, title=title, doi=doi, arxiv_id=arxiv_id))


def _stale_derived(conn: Connection) -> list[int]:
    from catalog.dedupe import fingerprint_of, identifies

    stale = set(sqlite.papers_to_rederive(conn))
    for pid, abstract, title, authors, doi, arxiv_id, fp, *derived in conn.execute(_DERIVED_FROM).all():
        if pid in stale or fp == _fingerprint(abstract, title, doi, arxiv_id):
            continue
        # An identifying abstract's fingerprint that no other paper has belongs to this one.
        # (Otherwise the fingerprint may differ on purpose: made unique beside another paper,
        # or from a title and identifiers that merges completed later.)
        if identifies(abstract) and not conn.execute(
                "SELECT 1 FROM paper WHERE fingerprint = ?", (fingerprint_of(abstract),)).first():
            stale.add(pid)
            continue
        from catalog.prepare import derived_text

        if list(derived_text(abstract, title, authors)) != derived:
            stale.add(pid)
    return sorted(stale)


def _derived(conn: Connection) -> list[str]:
    n = len(_stale_derived(conn))
    if n:
        return [f"{n} paper(s) have an abstract_text, headline, search_extra or fingerprint that "
                "no longer matches their abstract (edited by hand?)"]
    return []


def refresh_derived(conn: Connection, ids: list[int]) -> int:
    """Derive the text of these papers again from their abstracts; keys stay (a key is the
    paper's identity), and so does a fingerprint another paper has. Returns how many changed."""
    from catalog.prepare import derived_text

    changed = 0
    for start in range(0, len(ids), 500):
        chunk = tuple(ids[start:start + 500])
        marks = ",".join("?" * len(chunk))
        for pid, abstract, title, authors, doi, arxiv_id, fp, *derived in conn.execute(
                f"{_DERIVED_FROM} WHERE id IN ({marks})", chunk).all():
            fresh = list(derived_text(abstract, title, authors))
            wanted = _fingerprint(abstract, title, doi, arxiv_id)
            if wanted != fp and conn.execute("SELECT 1 FROM paper WHERE fingerprint = ?", (wanted,)).first():
                wanted = fp  # the same text as another paper: a duplicate, left to the user
            if fresh != derived or wanted != fp:
                conn.execute("UPDATE paper SET abstract_text = ?, headline = ?, search_extra = ?,"
                             " fingerprint = ? WHERE id = ?", (*fresh, wanted, pid))
                changed += 1
    sqlite.rederived(conn, ids)
    return changed


def _rederive(conn: Connection) -> str:
    n = refresh_derived(conn, _stale_derived(conn))
    return f"derived abstract_text, headline, search_extra and fingerprint of {n} paper(s) again (keys kept)"


# --- the FTS index ----------------------------------------------------------------------

def _search_index(conn: Connection) -> list[str]:
    problem = sqlite.fts_problem(conn)
    if problem is None:
        return []
    # FTS5 says "database disk image is malformed" for an index that is merely out of date.
    detail = "" if "malformed" in problem else f" ({problem})"
    return [f"the search index does not match the papers{detail}"]


def _rebuild(conn: Connection) -> str:
    sqlite.rebuild_fts(conn)
    return "rebuilt the search index"


CHECKS = (
    _Check("integrity", _integrity, _reindex),
    _Check("schema", _schema, _create_missing),
    _Check("orphans", _orphans, _delete_orphans),
    _Check("empty files", _empty_sources, _delete_empty_sources),
    _Check("search copies", _stale_copies, _recompute_copies),
    _Check("derived text", _derived, _rederive),
    _Check("search index", _search_index, _rebuild),
)

def recover_hint(path: Path) -> str:
    """How to salvage what SQLite can still read from a damaged file, as commands to type."""
    salvaged = path.with_name(f"{path.stem}-recovered{path.suffix or '.db'}")
    return (f"salvage what SQLite can still read with `sqlite3 {path} .recover | sqlite3 {salvaged}` "
            f"(an sqlite3 shell with .recover), then `catalog --db {salvaged} doctor --fix`; "
            "or restore a copy (the .bak files next to it)")


def _run_check(conn: Connection, check: _Check) -> list[Finding]:
    try:
        problems = check.find(conn)
    except sqlite3.DatabaseError as exc:  # a damaged file can fail the check itself
        problems = [f"the check failed: {str(exc).splitlines()[0]}"]
    return [Finding(check.name, p, check.fix is not None) for p in problems]


def examine(conn: Connection) -> list[Finding]:
    return [f for check in CHECKS for f in _run_check(conn, check)]


def run(database: db.Database, path: Path, *, fix: bool = False) -> DoctorReport:
    report = DoctorReport(path, checked=[c.name for c in CHECKS])
    # Checking changes nothing: its transaction (a write one, for FTS5's integrity-check) is
    # rolled back, which also keeps a damaged page from failing a COMMIT.
    with database.connect() as conn:
        sqlite.begin_write(conn)
        try:
            report.found = examine(conn)
        finally:
            conn.rollback()
    report.remaining = list(report.found)
    if not fix or not report.found:
        return report
    report.backup = db.backup_copy(path, "before-doctor")
    try:
        with db.write(database, rederive=False) as conn:  # the "derived text" check does it, and says so
            for check in CHECKS:
                if check.fix is not None and _run_check(conn, check):
                    try:
                        report.repaired.append(check.fix(conn))
                    except sqlite3.DatabaseError as exc:
                        report.repaired.append(
                            f"could not repair {check.name}: {str(exc).splitlines()[0]}")
            report.remaining = examine(conn)
    except sqlite3.DatabaseError as exc:  # the repairs could not be committed: nothing changed
        report.repaired = [f"could not save the repairs: {str(exc).splitlines()[0]}"]
        report.remaining = list(report.found)
    return report


# --- files the other commands refuse: damaged, unversioned, read-only -----------------------

def check_file(path: Path, *, fix: bool = False, notify=lambda message: None) -> DoctorReport:
    """`catalog doctor`: check whatever is at `path`, including files the other commands
    refuse. Writes only with `fix`, and then keeps a copy first; never writes to a file that
    is not a catalog, is damaged or is read-only."""
    if path.is_file() and not _writable(path):
        return _check_read_only(path, fix)
    return _check(path, path, fix, notify)


def _check(path: Path, shown: Path, fix: bool, notify) -> DoctorReport:
    state = db.inspect_file(path)
    if state.kind == "new":
        raise CatalogError(f"there is no catalog at {shown} to check")
    if state.kind == "foreign":
        raise CatalogError(db.refusal(shown, state))
    if state.kind in ("damaged", "unreadable"):
        return _damaged(path, shown, state, fix)
    db._refuse_newer(shown, state.revision)
    version: list[Finding] = []
    report = DoctorReport(shown)
    if state.revision is None:
        report.checked = ["schema version"]
        version, stamped = _schema_version(path, state, fix, report)
        if not stamped:
            report.found = report.remaining = version
            return report
    database = db.open_database(path, notify=notify)
    try:
        checked = run(database, path, fix=fix)
    finally:
        database.close()
    checked.path = shown
    checked.checked[:0] = report.checked
    checked.found[:0] = version
    checked.repaired[:0] = report.repaired
    checked.backup = report.backup or checked.backup
    return checked


def _writable(path: Path) -> bool:
    folder = path.parent if str(path.parent) else Path(".")
    return os.access(path, os.W_OK) and os.access(folder, os.W_OK | os.X_OK)


def _check_read_only(path: Path, fix: bool) -> DoctorReport:
    """A read-only catalog is checked on a copy (FTS5 checks its index with an INSERT)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / path.name
        try:
            shutil.copyfile(path, copy)
            wal = path.with_name(path.name + "-wal")
            if wal.exists():
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        except OSError as exc:
            raise CatalogError(f"cannot read {path}: {exc.strerror or exc}") from None
        report = _check(copy, path, False, lambda message: None)
    report.notes.append(f"{path} is read-only: checked a copy of it")
    if fix and report.remaining:
        report.notes.append("nothing was repaired: make the file and its folder writable, "
                            "then run `catalog doctor --fix` again")
    return report


def _damaged(path: Path, shown: Path, state: db.FileState, fix: bool) -> DoctorReport:
    """What can be said about a file SQLite cannot read as a whole; nothing is written."""
    report = DoctorReport(shown, checked=["file"])
    problems = [f"{'cannot open it' if state.kind == 'unreadable' else 'SQLite cannot read it'}: "
                f"{state.problem}"]
    if state.kind == "damaged":
        problems.extend(_readable_parts(path))
    report.found = report.remaining = [Finding("file", p, fixable=False) for p in problems]
    copies = sorted(shown.parent.glob(shown.name + ".*.bak"), key=lambda p: p.stat().st_mtime)
    if copies:
        report.notes.append(f"the newest copy is {copies[-1]} ({len(copies)} in all)")
    if fix:
        report.notes.append("--fix cannot repair a damaged file; nothing was changed")
    return report


_COUNTED = (("paper", "papers"), ("note", "notes"), ("paper_tag", "tags on papers"))


def _readable_parts(path: Path) -> list[str]:
    """SQLite's own complaints, and how many rows it can still read (for `.recover`)."""
    out: list[str] = []
    try:
        conn = sqlite3.connect(path, timeout=sqlite.BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error:
        return out
    try:
        try:
            lines = [r[0] for r in conn.execute("PRAGMA quick_check(5)") if r[0] != "ok"]
            out.extend(f"quick_check: {line}" for line in lines)
        except sqlite3.DatabaseError as exc:
            out.append(f"quick_check cannot run: {exc}")
        counts = []
        for table, label in _COUNTED:
            try:
                counts.append(f"{conn.execute(f'SELECT count(*) FROM {table}').fetchone()[0]} {label}")
            except sqlite3.DatabaseError:
                counts.append(f"no {label}")
        out.append("readable rows: " + ", ".join(counts))
    finally:
        conn.close()
    return out


def _schema_version(path: Path, state: db.FileState, fix: bool,
                    report: DoctorReport) -> tuple[list[Finding], bool]:
    """A catalog whose alembic_version is gone or empty: which revision its tables match,
    and with `fix` that revision written back (a copy of the file kept first)."""
    what = "is empty" if "alembic_version" in state.tables else "is gone"
    revision = _matching_revision(path)
    if revision is None:
        return [Finding("schema version", f"the alembic_version table {what}, and the tables "
                        "match no schema this version of catalog knows", fixable=False)], False
    finding = Finding("schema version", f"the alembic_version table {what} "
                                        f"(the tables are those of schema {revision})")
    if not fix:
        return [finding], False
    report.backup = db.backup_copy(path, "before-doctor")
    conn = sqlite3.connect(path, isolation_level=None, timeout=sqlite.BUSY_TIMEOUT_MS / 1000)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(_ALEMBIC_VERSION_TABLE)
        conn.execute("DELETE FROM alembic_version")
        conn.execute("INSERT INTO alembic_version(version_num) VALUES (?)", (revision,))
        conn.execute("COMMIT")
    finally:
        conn.close()
    report.repaired.append(f"wrote schema version {revision} back into alembic_version")
    return [finding], True


# Alembic's own definition of its version table.
_ALEMBIC_VERSION_TABLE = ("CREATE TABLE IF NOT EXISTS alembic_version (version_num VARCHAR(32) NOT NULL,"
                          " CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))")


def _columns(conn: sqlite3.Connection, tables) -> dict[str, tuple[str, ...]]:
    return {t: tuple(r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')) for t in tables}


def _matching_revision(path: Path) -> str | None:
    """The newest known revision whose tables and columns are exactly the file's."""
    from catalog import migrate

    conn = sqlite3.connect(path, timeout=sqlite.BUSY_TIMEOUT_MS / 1000)
    try:
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                 if n != "alembic_version" and not n.startswith("sqlite_")
                 and not n.startswith(sqlite.FTS_TABLE + "_")]
        have = _columns(conn, names)
    finally:
        conn.close()
    for revision, _, _ in reversed(migrate.history()):
        with tempfile.TemporaryDirectory() as tmp:
            reference = Path(tmp) / "reference.db"
            migrate.upgrade(reference, revision)
            ref = sqlite3.connect(reference)
            try:
                tables = [n for (n,) in ref.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                          if n != "alembic_version" and not n.startswith(sqlite.FTS_TABLE + "_")]
                wanted = _columns(ref, tables)
            finally:
                ref.close()
        if wanted == have:
            return revision
    return None
