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
    ranked lists   top-k lists of frequent words stale,    repair: rank them again
                   or not the full ranking's head

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

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from catalog.importing import derived
from catalog.errors import CatalogError, StoreError
from catalog.store.sqlite import checkup, files, migrations
from catalog.store.sqlite.store import SqliteStore


@dataclass(frozen=True)
class Finding:
    check: str
    problem: str
    fixable: bool = True  # whether `--fix` can repair it here


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

    @property
    def recover_hint(self) -> str:
        """How to salvage a file doctor cannot repair, as commands to type."""
        return recover_hint(self.path)


@dataclass(frozen=True)
class _Check:
    name: str
    find: Callable[[object], list[str]]  # a transaction -> the problems, one line each
    fix: Callable[[object], str]  # a transaction -> what it did


def _integrity(tx) -> list[str]:
    problems = tx.integrity_problems()
    if len(problems) > 5:
        problems = [*problems[:5], f"... and {len(problems) - 5} more"]
    return problems


def _reindex(tx) -> str:
    tx.reindex()
    return "rebuilt every index (REINDEX)"


def _schema(tx) -> list[str]:
    return [f"{kind} {name} is missing" for kind, name, _ in tx.missing_objects()]


def _create_missing(tx) -> str:
    missing = tx.missing_objects()
    tx.create_objects(missing)
    return "created " + ", ".join(f"{kind} {name}" for kind, name, _ in missing)


def _orphans(tx) -> list[str]:
    counts: dict[tuple[str, str], int] = {}
    for table, _, parent in tx.dangling_rows():
        counts[(table, parent)] = counts.get((table, parent), 0) + 1
    return [f"{n} {table} row(s) point to a {parent} that does not exist"
            for (table, parent), n in sorted(counts.items())]


def _delete_orphans(tx) -> str:
    counts = tx.delete_dangling()
    return "deleted rows that pointed nowhere: " + ", ".join(
        f"{n} from {table}" for table, n in sorted(counts.items()))


def _empty_sources(tx) -> list[str]:
    n = tx.empty_sources()
    return [f"{n} imported file(s) hold no papers; importing them again would be skipped"] if n else []


def _delete_empty_sources(tx) -> str:
    n = tx.delete_empty_sources()
    return f"forgot {n} imported file(s) without papers (import them again to get their papers)"


def _stale_copies(tx) -> list[str]:
    return [f"{n} paper(s) have a {column} that does not match their "
            f"{'tags' if column == 'tags_text' else 'notes'}"
            for column, n in tx.stale_copies().items() if n]


def _recompute_copies(tx) -> str:
    return "recomputed " + ", ".join(f"{column} of {n} paper(s)"
                                     for column, n in tx.recompute_copies().items() if n)


def _derived(tx) -> list[str]:
    n = len(derived.stale(tx))
    if n:
        return [f"{n} paper(s) have an abstract_text, headline, search_extra or fingerprint that "
                "no longer matches their abstract (edited by hand?)"]
    return []


def _rederive(tx) -> str:
    n = derived.refresh(tx, derived.stale(tx))
    return f"derived abstract_text, headline, search_extra and fingerprint of {n} paper(s) again (keys kept)"


def _search_index(tx) -> list[str]:
    problem = tx.search_index_problem()
    if problem is None:
        return []
    # FTS5 says "database disk image is malformed" for an index that is merely out of date.
    detail = "" if "malformed" in problem else f" ({problem})"
    return [f"the search index does not match the papers{detail}"]


def _rebuild(tx) -> str:
    tx.rebuild_search_index()
    return "rebuilt the search index"


def _top_lists(tx) -> list[str]:
    problems = []
    stale = tx.stale_top_lists()
    if stale:
        problems.append(f"{len(stale)} ranked list(s) of frequent words are out of date (searches for"
                        " those words rank every match until they are rebuilt)")
    problems += [f"the ranked list of {key} differs from the full ranking" for key in tx.top_list_mismatches()]
    return problems


def _rebuild_top_lists(tx) -> str:
    """Rebuild the lists of words out of date and any list unlike the ranking; drop the lists
    of ANDs and phrases ranked before the last change (not a problem: the next search of each
    ranks it again, which rebuilding hundreds here would only do sooner)."""
    keys = sorted(set(tx.stale_top_lists()) | set(tx.top_list_mismatches()))
    for key in keys:
        tx.build_top_list(key)
    stale = [k for k in tx.compound_lists()[1] if k not in keys]
    tx.drop_compound_lists(stale)
    tx.clear_top_changes()
    dropped = (f"; dropped {len(stale)} list(s) of ANDs and phrases ranked before the last change (the next"
               " search of each ranks it again)") if stale else ""
    return f"rebuilt {len(keys)} ranked list(s){dropped}"


CHECKS = (
    _Check("integrity", _integrity, _reindex),
    _Check("schema", _schema, _create_missing),
    _Check("orphans", _orphans, _delete_orphans),
    _Check("empty files", _empty_sources, _delete_empty_sources),
    _Check("search copies", _stale_copies, _recompute_copies),
    _Check("derived text", _derived, _rederive),
    _Check("search index", _search_index, _rebuild),
    _Check("ranked lists", _top_lists, _rebuild_top_lists),
)


def recover_hint(path: Path) -> str:
    """How to salvage what SQLite can still read from a damaged file, as commands to type."""
    salvaged = path.with_name(f"{path.stem}-recovered{path.suffix or '.db'}")
    return (f"salvage what SQLite can still read with `sqlite3 {path} .recover | sqlite3 {salvaged}` "
            f"(an sqlite3 shell with .recover), then `catalog --db {salvaged} doctor --fix`; "
            "or restore a copy (the .bak files next to it)")


def _run_check(tx, check: _Check) -> list[Finding]:
    try:
        problems = check.find(tx)
    except StoreError as exc:  # a damaged file can fail the check itself
        problems = [f"the check failed: {str(exc).splitlines()[0]}"]
    return [Finding(check.name, p) for p in problems]


def examine(tx) -> list[Finding]:
    return [f for check in CHECKS for f in _run_check(tx, check)]


def run(store: SqliteStore, *, fix: bool = False) -> DoctorReport:
    report = DoctorReport(store.path or store.location, checked=[c.name for c in CHECKS])
    # Checking changes nothing: its transaction (a write one, for FTS5's integrity-check) is
    # rolled back, which also keeps a damaged page from failing a COMMIT.
    with store.checking() as tx:
        report.found = examine(tx)
        if (lists := tx.top_lists_note()) is not None:
            report.notes.append(lists)
    report.remaining = list(report.found)
    if not fix or not report.found:
        return report
    report.backup = store.safety_copy("before-doctor")  # a server: the one transaction is the safety
    try:
        with store.write(catch_up=False) as tx:  # the "derived text" check does it, and says so
            for check in CHECKS:
                if _run_check(tx, check):
                    try:
                        report.repaired.append(check.fix(tx))
                    except StoreError as exc:
                        report.repaired.append(f"could not repair {check.name}: {str(exc).splitlines()[0]}")
            report.remaining = examine(tx)
    except StoreError as exc:  # the repairs could not be committed: nothing changed
        report.repaired = [f"could not save the repairs: {str(exc).splitlines()[0]}"]
        report.remaining = list(report.found)
    return report


# --- files the other commands refuse: damaged, unversioned, read-only -----------------------

def check_file(path: Path, *, fix: bool = False, notify=lambda message: None) -> DoctorReport:
    """`catalog doctor`: check whatever is at `path`, including files the other commands
    refuse. Writes only with `fix`, and then keeps a copy first; never writes to a file that
    is not a catalog, is damaged or is read-only. A postgresql:// URL: the catalog there."""
    from catalog.paths import is_server_url

    if is_server_url(path):
        from catalog.store import open_store

        store = open_store(path, notify=notify, catch_up=False)
        try:
            return run(store, fix=fix)
        finally:
            store.close()
    if path.is_file() and not checkup.writable(path):
        return _check_read_only(path, fix)
    return _check(path, path, fix, notify)


def _check(path: Path, shown: Path, fix: bool, notify) -> DoctorReport:
    state = files.inspect_file(path)
    if state.kind == "new":
        raise CatalogError(f"there is no catalog at {shown} to check")
    if state.kind == "foreign":
        raise CatalogError(files.refusal(shown, state))
    if state.kind in ("damaged", "unreadable"):
        return _damaged(path, shown, state, fix)
    migrations.refuse_newer(shown, state.revision)
    version: list[Finding] = []
    report = DoctorReport(shown)
    if state.revision is None:
        report.checked = ["schema version"]
        version, stamped = _schema_version(path, state, fix, report)
        if not stamped:
            report.found = report.remaining = version
            return report
    store = SqliteStore.open(path, notify=notify, catch_up=False)
    try:
        checked = run(store, fix=fix)
        if path == shown:  # not a copy: the cache belongs to the file's own path
            checked.notes.extend(derived_data(store))
    finally:
        store.close()
    checked.path = shown
    checked.checked[:0] = report.checked
    checked.found[:0] = version
    checked.repaired[:0] = report.repaired
    checked.backup = report.backup or checked.backup
    return checked


def derived_data(store) -> list[str]:
    """What doctor says about the discovery cache and the stored topics: derived data, rebuilt
    by itself, so never a problem to repair."""
    from catalog.discover import related

    try:
        cache = related.status(store)
        _, topics_stale = related.stored_topics(store)
    except (OSError, StoreError) as exc:
        return [f"discovery cache: cannot be read ({exc})"]
    if cache.state == "missing":
        line = "discovery cache: not built yet (`catalog similar`, `recommend` and `topics` build it)"
    else:
        folder = Path(cache.path).parent  # the cache, not its current generation
        size = f"{cache.papers} papers, {cache.terms} terms, {cache.bytes / 1e6:.1f} MB in {folder}"
        line = (f"discovery cache: up to date ({size})" if cache.state == "fresh" else
                f"discovery cache: out of date ({size}); the next similar, recommend or topics "
                "updates it")
    if cache.state != "fresh" and related.refreshing(store):
        line = ("discovery cache: being built in the background since the last import" if
                cache.state == "missing" else line.split(";")[0] + "; being updated in the "
                "background since the last import")
    notes = [line]
    if topics_stale and cache.state != "missing":
        notes.append("topics of the whole catalog: none stored, or papers came or went since "
                     "(`catalog topics` makes them again)")
    return notes


def _check_read_only(path: Path, fix: bool) -> DoctorReport:
    """A read-only catalog is checked on a copy (FTS5 checks its index with an INSERT)."""
    with checkup.copy_of(path) as copy:
        report = _check(copy, path, False, lambda message: None)
    report.notes.append(f"{path} is read-only: checked a copy of it")
    if fix and report.remaining:
        report.notes.append("nothing was repaired: make the file and its folder writable, "
                            "then run `catalog doctor --fix` again")
    return report


def _damaged(path: Path, shown: Path, state, fix: bool) -> DoctorReport:
    """What can be said about a file SQLite cannot read as a whole; nothing is written."""
    report = DoctorReport(shown, checked=["file"])
    problems = [f"{'cannot open it' if state.kind == 'unreadable' else 'SQLite cannot read it'}: "
                f"{state.problem}"]
    if state.kind == "damaged":
        problems.extend(checkup.readable_parts(path))
    report.found = report.remaining = [Finding("file", p, fixable=False) for p in problems]
    copies = sorted(shown.parent.glob(shown.name + ".*.bak"), key=lambda p: p.stat().st_mtime)
    if copies:
        report.notes.append(f"the newest copy is {copies[-1]} ({len(copies)} in all)")
    if fix:
        report.notes.append("--fix cannot repair a damaged file; nothing was changed")
    return report


def _schema_version(path: Path, state, fix: bool, report: DoctorReport) -> tuple[list[Finding], bool]:
    """A catalog whose alembic_version is gone or empty: which revision its tables match,
    and with `fix` that revision written back (a copy of the file kept first)."""
    what = "is empty" if "alembic_version" in state.tables else "is gone"
    revision = checkup.matching_revision(path)
    if revision is None:
        return [Finding("schema version", f"the alembic_version table {what}, and the tables "
                        "match no schema this version of catalog knows", fixable=False)], False
    finding = Finding("schema version", f"the alembic_version table {what} "
                                        f"(the tables are those of schema {revision})")
    if not fix:
        return [finding], False
    report.backup = files.backup_copy(path, "before-doctor")
    checkup.write_schema_version(path, revision)
    report.repaired.append(f"wrote schema version {revision} back into alembic_version")
    return [finding], True
