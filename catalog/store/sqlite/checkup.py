"""What `catalog doctor` can learn of a SQLite file that no other command opens: a damaged
file (what SQLite can still read), a catalog whose schema version is gone (which revision its
tables match, and putting it back), a read-only catalog (checked on a copy). `FileCheck` is
what doctor holds (catalog.store.check_file)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from catalog.errors import CatalogError
from catalog.store import schema
from catalog.store.sqlite import files
from catalog.store.sqlite.connection import plain_connection
from catalog.store.sqlite.fts import FTS_TABLE

_COUNTED = (("paper", "papers"), ("note", "notes"), ("paper_tag", "tags on papers"))
# Alembic's own definition of its version table.
_ALEMBIC_VERSION_TABLE = ("CREATE TABLE IF NOT EXISTS alembic_version (version_num VARCHAR(32) NOT NULL,"
                          " CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))")


class FileCheck:
    """A catalog file as doctor sees it before (or instead of) opening it as a store."""

    def __init__(self, path: Path):
        self.path = path

    def state(self) -> files.FileState:
        """What the path holds (CatalogError for what is no database file at all)."""
        return files.inspect_file(self.path)

    def refusal(self, state: files.FileState, shown: Path) -> str:
        """The one line for a file no command may open as a catalog ("" when it may be)."""
        return files.refusal(shown, state)

    def refuse_newer(self, state: files.FileState, shown: Path) -> None:
        schema.refuse_newer(shown, state.revision)

    def read_only(self) -> bool:
        """A file this process may read but not change (or its folder)."""
        return self.path.is_file() and not writable(self.path)

    @contextmanager
    def copy(self) -> Iterator["FileCheck"]:
        with copy_of(self.path) as copy:
            yield FileCheck(copy)

    def readable_parts(self) -> list[str]:
        return readable_parts(self.path)

    def matching_revision(self) -> str | None:
        return matching_revision(self.path)

    def write_schema_version(self, revision: str) -> None:
        write_schema_version(self.path, revision)

    def backup(self, label: str) -> Path:
        return files.backup_copy(self.path, label)

    def open(self, notify=lambda message: None):
        """The catalog as a store (SqliteStore), its hand edits left for doctor to find."""
        from catalog.store.sqlite.store import SqliteStore

        return SqliteStore.open(self.path, notify=notify)


def writable(path: Path) -> bool:
    folder = path.parent if str(path.parent) else Path(".")
    return os.access(path, os.W_OK) and os.access(folder, os.W_OK | os.X_OK)


@contextmanager
def copy_of(path: Path) -> Iterator[Path]:
    """A copy of the file (and its -wal) in a temporary folder, for checks that must write."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / path.name
        try:
            shutil.copyfile(path, copy)
            wal = path.with_name(path.name + "-wal")
            if wal.exists():
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        except OSError as exc:
            raise CatalogError(f"cannot read {path}: {exc.strerror or exc}") from None
        yield copy


def readable_parts(path: Path) -> list[str]:
    """SQLite's own complaints about a damaged file, and how many rows it can still read."""
    out: list[str] = []
    try:
        conn = plain_connection(path)
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


def _table_columns(conn: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
             if n != "alembic_version" and not n.startswith("sqlite_") and not n.startswith(FTS_TABLE + "_")]
    return {t: tuple(r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')) for t in names}


def matching_revision(path: Path) -> str | None:
    """The newest known revision whose tables and columns are exactly the file's."""
    from catalog.store.sqlite.migrations import upgrade

    conn = plain_connection(path)
    try:
        have = _table_columns(conn)
    finally:
        conn.close()
    for revision, _, _ in reversed(schema.history()):
        with tempfile.TemporaryDirectory() as tmp:
            reference = Path(tmp) / "reference.db"
            upgrade(reference, revision)
            ref = plain_connection(reference)
            try:
                wanted = _table_columns(ref)
            finally:
                ref.close()
        if wanted == have:
            return revision
    return None


def write_schema_version(path: Path, revision: str) -> None:
    conn = plain_connection(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(_ALEMBIC_VERSION_TABLE)
        conn.execute("DELETE FROM alembic_version")
        conn.execute("INSERT INTO alembic_version(version_num) VALUES (?)", (revision,))
        conn.execute("COMMIT")
    finally:
        conn.close()
