"""`catalog doctor`: check the database file, and with --fix repair what can be repaired.

What goes wrong when people edit the file by hand (foreign keys off, triggers dropped, raw
inserts) or when a disk misbehaves:

    integrity      PRAGMA integrity_check                  repair: REINDEX (else: a backup)
    schema         triggers, views, indexes, FTS table     repair: create the missing ones
    orphans        provenance, paper_tag, note rows        repair: delete them
                   pointing nowhere (foreign_key_check)
    empty files    source rows that hold no papers         repair: delete (re-import works)
    search copies  paper.tags_text / notes_text stale      repair: recompute
    search index   FTS5 integrity-check                    repair: 'rebuild'

Checks run inside one write transaction (FTS5's integrity-check is an INSERT). With --fix a
copy of the file is kept first, then every repair runs in one write transaction and the
checks run again, so the report says what was done and what is still wrong.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


from catalog import db, sqlite
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

def _reference_schema() -> dict[str, tuple[str, str]]:
    """name -> (type, sql) of a fresh database at this program's schema."""
    from catalog import migrate

    with tempfile.TemporaryDirectory() as tmp:
        reference = db.Database(Path(tmp) / "reference.db")
        migrate.upgrade(reference.path)
        with reference.connect() as conn:
            rows = conn.execute(
                "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL"
            ).all()
    # Shadow tables of the FTS index come with the index; the FTS check covers them.
    return {name: (kind, sql) for kind, name, sql in rows
            if not (kind == "table" and name.startswith(sqlite.FTS_TABLE + "_"))}


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
    _Check("search index", _search_index, _rebuild),
)

UNFIXABLE_HINT = ("restore a copy (the .bak files next to the database) or salvage the rows "
                  "with `sqlite3 FILE .recover`")


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
    with db.write(database) as conn:
        report.found = examine(conn)
    report.remaining = list(report.found)
    if not fix or not report.found:
        return report
    report.backup = db.backup_copy(path, "before-doctor")
    with db.write(database) as conn:
        for check in CHECKS:
            if check.fix is not None and _run_check(conn, check):
                try:
                    report.repaired.append(check.fix(conn))
                except sqlite3.DatabaseError as exc:
                    report.repaired.append(
                        f"could not repair {check.name}: {str(exc).splitlines()[0]}")
        report.remaining = examine(conn)
    return report
