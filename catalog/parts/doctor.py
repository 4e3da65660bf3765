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
    ranked lists   a big catalog's frequent words without  repair: rank them (after the
                   lists, lists out of date, or not the    others, in short transactions
                   full ranking's head                     of their own, with progress)

Checks run inside one write transaction (FTS5's integrity-check is an INSERT). With --fix a
copy of the file is kept first, then every repair runs in one write transaction, the ranked
lists (derived data, minutes at a million papers) are ranked after it, and the checks run
again, so the report says what was done and what is still wrong.

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
from catalog.store import Store, check_file as file_check


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
    fix: Callable[[object], str] | None  # a transaction -> what it did
    # Or, for derived data too long to rank in the repairs' transaction: (store, notify) ->
    # what it did, after that transaction.
    after: Callable[[Store, Callable[[str], None]], str] | None = None


def _integrity(tx) -> list[str]:
    problems = tx.upkeep.integrity_problems()
    if len(problems) > 5:
        problems = [*problems[:5], f"... and {len(problems) - 5} more"]
    return problems


def _reindex(tx) -> str:
    tx.upkeep.reindex()
    return "rebuilt every index (REINDEX)"


def _schema(tx) -> list[str]:
    return [f"{missing.kind} {missing.name} is missing" for missing in tx.upkeep.missing_objects()]


def _create_missing(tx) -> str:
    missing = tx.upkeep.missing_objects()
    tx.upkeep.create_objects(missing)
    return "created " + ", ".join(f"{created.kind} {created.name}" for created in missing)


def _orphans(tx) -> list[str]:
    counts: dict[tuple[str, str], int] = {}
    for row in tx.upkeep.dangling_rows():
        counts[(row.table, row.parent)] = counts.get((row.table, row.parent), 0) + 1
    return [f"{n} {table} row(s) point to a {parent} that does not exist"
            for (table, parent), n in sorted(counts.items())]


def _delete_orphans(tx) -> str:
    counts = tx.upkeep.delete_dangling()
    return "deleted rows that pointed nowhere: " + ", ".join(
        f"{n} from {table}" for table, n in sorted(counts.items()))


def _empty_sources(tx) -> list[str]:
    n = tx.upkeep.empty_sources()
    return [f"{n} imported file(s) hold no papers; importing them again would be skipped"] if n else []


def _delete_empty_sources(tx) -> str:
    n = tx.upkeep.delete_empty_sources()
    return f"forgot {n} imported file(s) without papers (import them again to get their papers)"


def _stale_copies(tx) -> list[str]:
    return [f"{n} paper(s) have a {column} that does not match their "
            f"{'tags' if column == 'tags_text' else 'notes'}"
            for column, n in tx.upkeep.stale_copies().items() if n]


def _recompute_copies(tx) -> str:
    return "recomputed " + ", ".join(f"{column} of {n} paper(s)"
                                     for column, n in tx.upkeep.recompute_copies().items() if n)


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
    problem = tx.upkeep.search_index_problem()
    if problem is None:
        return []
    # FTS5 says "database disk image is malformed" for an index that is merely out of date.
    detail = "" if "malformed" in problem else f" ({problem})"
    return [f"the search index does not match the papers{detail}"]


def _rebuild(tx) -> str:
    tx.upkeep.rebuild_search_index()
    return "rebuilt the search index"


def _ranked_lists(tx) -> list[str]:
    found = tx.lists.problems()
    problems = []
    if found.choose_at:
        problems.append(f"the frequent words of these {found.choose_at:,} papers have no ranked lists (searches"
                        " for them rank every match until they are ranked)")
    if found.stale:
        problems.append(f"{len(found.stale)} ranked list(s) of frequent words are out of date (searches for"
                        " those words rank every match until they are rebuilt)")
    return problems + [f"the ranked list of {key} differs from the full ranking" for key in found.differing]


def _rank_lists_again(store: Store, notify: Callable[[str], None] = lambda message: None) -> str:
    """Rebuild any list unlike the ranking and drop the lists of ANDs and phrases ranked
    before the last change (not a problem: the next search of each ranks it again, which
    ranking hundreds here would only do sooner), in one transaction; then rank the lists out
    of date and those of the frequent words chosen again, each in short transactions of its
    own, saying how far it got."""
    with store.write(catch_up=False) as tx:
        rebuilt, dropped = tx.lists.repair()

    def progress(done: int, of: int) -> None:
        if done == of or done % max(1, of // 10) == 0:
            notify(f"ranking lists: {done:,} of {of:,}")

    built, left = store.lists.refresh(budget=None, rescored=True, progress=progress)
    also = (f"; dropped {dropped} list(s) of ANDs and phrases ranked before the last change (the next"
            " search of each ranks it again)") if dropped else ""
    if left:
        also += f"; {left} left, the catalog changed meanwhile (run it again)"
    return f"rebuilt {rebuilt + built} ranked list(s){also}"


CHECKS = (
    _Check("integrity", _integrity, _reindex),
    _Check("schema", _schema, _create_missing),
    _Check("orphans", _orphans, _delete_orphans),
    _Check("empty files", _empty_sources, _delete_empty_sources),
    _Check("search copies", _stale_copies, _recompute_copies),
    _Check("derived text", _derived, _rederive),
    _Check("search index", _search_index, _rebuild),
    _Check("ranked lists", _ranked_lists, None, _rank_lists_again),
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


def run(store: Store, *, fix: bool = False, notify: Callable[[str], None] = lambda message: None) -> DoctorReport:
    report = DoctorReport(store.path or store.location, checked=[c.name for c in CHECKS])
    # Checking changes nothing: its transaction (a write one, for FTS5's integrity-check) is
    # rolled back, which also keeps a damaged page from failing a COMMIT.
    with store.checking() as tx:
        report.found = examine(tx)
        try:
            lists = tx.lists.note()
        except StoreError:  # a damaged page under the ranked lists: the checks above say so
            lists = None
        if lists is not None:
            report.notes.append(lists)
    report.checked.append("attached files")
    report.found += _missing_files(store)
    report.remaining = list(report.found)
    if not fix or not any(f.fixable for f in report.found):
        return report
    report.backup = store.safety_copy("before-doctor")  # a server: the one transaction is the safety
    found = {f.check for f in report.found}
    try:
        with store.write(catch_up=False) as tx:  # the "derived text" check does it, and says so
            for check in CHECKS:
                if check.fix is not None and _run_check(tx, check):
                    report.repaired.append(_repair(check.name, lambda: check.fix(tx)))
    except StoreError as exc:  # the repairs could not be committed: nothing changed
        report.repaired = [f"could not save the repairs: {str(exc).splitlines()[0]}"]
        return report
    for check in CHECKS:
        if check.after is not None and check.name in found:
            report.repaired.append(_repair(check.name, lambda: check.after(store, notify)))
    with store.checking() as tx:
        report.remaining = examine(tx)
    report.remaining += _missing_files(store)
    return report


def _missing_files(store: Store) -> list[Finding]:
    """Attached files that are not where the catalog keeps them (moved, deleted, a disk not
    mounted): reported, never repaired by guessing."""
    from catalog.attachments import attaching

    try:
        gone = attaching.missing(store)
    except StoreError as exc:
        return [Finding("attached files", f"the check failed: {str(exc).splitlines()[0]}", fixable=False)]
    return [Finding("attached files", f"{key}: file {a.number} ({a.name}) is missing: {a.location or a.path}",
                    fixable=False) for key, a in gone]


def _repair(name: str, action: Callable[[], str]) -> str:
    try:
        return action()
    except StoreError as exc:
        return f"could not repair {name}: {str(exc).splitlines()[0]}"


# --- files the other commands refuse: damaged, unversioned, read-only -----------------------

def check_file(path: Path, *, fix: bool = False, notify=lambda message: None) -> DoctorReport:
    """`catalog doctor`: check whatever is at `path`, including files the other commands
    refuse. Writes only with `fix`, and then keeps a copy first; never writes to a file that
    is not a catalog, is damaged or is read-only. A postgresql:// URL: the catalog there."""
    from catalog.paths import is_server_url

    if is_server_url(path):
        from catalog.store import open_store

        store = open_store(path, notify=notify)
        try:
            return run(store, fix=fix, notify=notify)
        finally:
            store.close()
    catalog_file = file_check(path)
    if catalog_file.read_only():
        return _check_read_only(catalog_file, fix)
    return _check(catalog_file, path, fix, notify)


def _check(catalog_file, shown: Path, fix: bool, notify) -> DoctorReport:
    state = catalog_file.state()
    if state.kind == "new":
        raise CatalogError(f"there is no catalog at {shown} to check")
    if state.kind == "foreign":
        raise CatalogError(catalog_file.refusal(state, shown))
    if state.kind in ("damaged", "unreadable"):
        return _damaged(catalog_file, shown, state, fix)
    catalog_file.refuse_newer(state, shown)
    version: list[Finding] = []
    report = DoctorReport(shown)
    if state.revision is None:
        report.checked = ["schema version"]
        version, stamped = _schema_version(catalog_file, state, fix, report)
        if not stamped:
            report.found = report.remaining = version
            return report
    store = catalog_file.open(notify)
    try:
        checked = run(store, fix=fix, notify=notify)
        if catalog_file.path == shown:  # not a copy: the cache belongs to the file's own path
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


def _check_read_only(catalog_file, fix: bool) -> DoctorReport:
    """A read-only catalog is checked on a copy (FTS5 checks its index with an INSERT)."""
    path = catalog_file.path
    with catalog_file.copy() as copy:
        report = _check(copy, path, False, lambda message: None)
    report.notes.append(f"{path} is read-only: checked a copy of it")
    if fix and report.remaining:
        report.notes.append("nothing was repaired: make the file and its folder writable, "
                            "then run `catalog doctor --fix` again")
    return report


def _damaged(catalog_file, shown: Path, state, fix: bool) -> DoctorReport:
    """What can be said about a file SQLite cannot read as a whole; nothing is written."""
    report = DoctorReport(shown, checked=["file"])
    problems = [f"{'cannot open it' if state.kind == 'unreadable' else 'SQLite cannot read it'}: "
                f"{state.problem}"]
    if state.kind == "damaged":
        problems.extend(catalog_file.readable_parts())
    report.found = report.remaining = [Finding("file", p, fixable=False) for p in problems]
    copies = sorted(shown.parent.glob(shown.name + ".*.bak"), key=lambda p: p.stat().st_mtime)
    if copies:
        report.notes.append(f"the newest copy is {copies[-1]} ({len(copies)} in all)")
    if fix:
        report.notes.append("--fix cannot repair a damaged file; nothing was changed")
    return report


def _schema_version(catalog_file, state, fix: bool, report: DoctorReport) -> tuple[list[Finding], bool]:
    """A catalog whose alembic_version is gone or empty: which revision its tables match,
    and with `fix` that revision written back (a copy of the file kept first)."""
    what = "is empty" if "alembic_version" in state.tables else "is gone"
    revision = catalog_file.matching_revision()
    if revision is None:
        return [Finding("schema version", f"the alembic_version table {what}, and the tables "
                        "match no schema this version of catalog knows", fixable=False)], False
    finding = Finding("schema version", f"the alembic_version table {what} "
                                        f"(the tables are those of schema {revision})")
    if not fix:
        return [finding], False
    report.backup = catalog_file.backup("before-doctor")
    catalog_file.write_schema_version(revision)
    report.repaired.append(f"wrote schema version {revision} back into alembic_version")
    return [finding], True
