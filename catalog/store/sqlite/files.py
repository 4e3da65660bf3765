"""What is at a catalog path, found without changing it; new files; consistent copies.

No command may write to a file that is not a catalog, is damaged or cannot be opened: each is
refused with one line before anything touches it (no table, no migration, no journal-mode
switch)."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from catalog.errors import CatalogError
from catalog.store.sqlite.connection import plain_connection
from catalog.store.sqlite.fts import is_hand_made_table

SQLITE_MAGIC = b"SQLite format 3\x00"
# PRAGMA user_version of the default catalog once the bundled seeds are fully imported. Seeding
# imports several files; a process killed half-way leaves this unset and the next run finishes.
SEEDED = 1
# Columns only a catalog's `paper` table has together: a file whose `paper` table lacks them
# belongs to another program.
CATALOG_COLUMNS = {"key", "fingerprint", "abstract", "abstract_text"}


@dataclass(frozen=True)
class FileState:
    """What is at a catalog path, as far as reading it (never writing) can tell.

    kind: "new"        nothing there, an empty file, or an SQLite file without any table
          "catalog"    a catalog at `revision` (None when its alembic_version is gone or empty)
          "foreign"    an SQLite file of another program (`tables` lists its tables)
          "damaged"    an SQLite file SQLite cannot read (`problem` says why)
          "unreadable" a file this process cannot open (`problem` says why)
    """

    kind: str
    tables: tuple[str, ...] = ()
    revision: str | None = None
    problem: str = ""
    seeded: bool = False  # a catalog's PRAGMA user_version says the bundled seeds are in


def inspect_file(path: Path) -> FileState:
    """What `path` holds. Raises CatalogError for what is not a database file at all (a folder,
    a device, a file of another kind); writes nothing, and runs no pragma that could."""
    try:
        if not path.exists():
            return FileState("new")
        if path.is_dir():
            raise CatalogError(f"{path} is a directory, not a catalog database")
        if not path.is_file():
            raise CatalogError(f"{path} is not a regular file (a device, pipe or socket); "
                               "give the path of a catalog database file")
        size = path.stat().st_size
        with path.open("rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise CatalogError(f"cannot read {path}: {exc.strerror or exc}") from None
    if size == 0:
        return FileState("new")
    if header[:16] != SQLITE_MAGIC:
        raise CatalogError(f"{path} is not a catalog database (not an SQLite file)")
    cut = _cut_short(path, header, size)
    if cut:
        return FileState("damaged", problem=cut)
    try:
        conn = plain_connection(path)
        try:
            return _classify(conn)
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        message = str(exc)
        if isinstance(exc, sqlite3.OperationalError) and ("unable to open" in message or "readonly" in message):
            return FileState("unreadable", problem=_unreachable_reason(path, message))
        return FileState("damaged", problem=message)


def _classify(conn: sqlite3.Connection) -> FileState:
    objects = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
    tables = tuple(sorted(name for kind, name in objects if kind == "table"
                          and not name.startswith("sqlite_") and not is_hand_made_table(name)))
    if not objects:
        return FileState("new")
    columns = {row[1] for row in conn.execute("PRAGMA table_info(paper)")}
    if not CATALOG_COLUMNS <= columns:
        others = tables or tuple(sorted(name for _, name in objects))
        return FileState("foreign", tables=others)
    revision = None
    if "alembic_version" in tables:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        revision = row[0] if row else None
    seeded = conn.execute("PRAGMA user_version").fetchone()[0] == SEEDED
    return FileState("catalog", tables=tables, revision=revision, seeded=seeded)


def _cut_short(path: Path, header: bytes, size: int) -> str:
    """Why the file is shorter than its own header says, or "". (The header's page count is
    valid when its change counter matches "version valid for"; a -wal file may hold the rest.)"""
    if len(header) < 100:
        return f"the file ends inside its header ({size} bytes)"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    valid = header[24:28] == header[92:96]
    wal = path.with_name(path.name + "-wal")
    if valid and pages and size < pages * page_size and not (wal.exists() and wal.stat().st_size):
        return f"the file was cut short: it is {size:,} bytes, its header says {pages * page_size:,}"
    return ""


def _unreachable_reason(path: Path, message: str) -> str:
    folder = path.parent if str(path.parent) else Path(".")
    if not os.access(folder, os.W_OK):
        return (f"its folder {folder} is read-only, and SQLite needs to create {path.name}-shm "
                "beside it to read a catalog; copy the file to a folder you can write")
    return message


def refusal(path: Path, state: FileState) -> str:
    """The one line for a file no command may open as a catalog ("" when it may be opened)."""
    if state.kind == "foreign":
        listed = ", ".join(state.tables[:8]) + (", ..." if len(state.tables) > 8 else "")
        return f"{path} is not a catalog database (it has tables {listed}); use a new file"
    if state.kind == "damaged":
        return f"{path} is damaged ({state.problem}); `catalog --db {path} doctor` tells more"
    if state.kind == "unreadable":
        return f"cannot open {path}: {state.problem}"
    if state.kind == "catalog" and state.revision is None:
        return (f"{path} is a catalog without its schema version (the alembic_version table is "
                f"gone or empty); `catalog --db {path} doctor --fix` puts it back")
    return ""


def prepare_new(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CatalogError(f"cannot create {path.parent}: {exc.strerror}") from None
    folder = path.parent if str(path.parent) else Path(".")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CatalogError(f"cannot create a catalog at {path}: folder {folder} is read-only")


def backup_copy(path: Path, label: str) -> Path:
    """A consistent copy next to the file, `NAME.LABEL-STAMP.bak`; never overwrites one.

    Written under a `.partial` name and renamed when complete, so a `.bak` is always whole.
    """
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{label}-{stamp}.bak")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.{label}-{stamp}-{n}.bak")
    copy_database(path, target)
    return target


def copy_database(path: Path, target: Path) -> None:
    """A consistent copy of the catalog at `path`, safe while others use it. Written under a
    temporary name beside `target` and renamed when complete, so `target` is never half-written."""
    partial = target.with_name(f".{target.name}.partial")
    try:
        source = plain_connection(path)
        try:
            copy_connection(source, partial)
        finally:
            source.close()
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def copy_connection(source: sqlite3.Connection, target: Path) -> None:
    """A consistent copy through SQLite's backup API, safe while others use the file."""
    dst = sqlite3.connect(target)
    try:
        source.backup(dst)
    finally:
        dst.close()
