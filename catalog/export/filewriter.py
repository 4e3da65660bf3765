"""The one way catalog writes a file someone named: exports, annotations, backups, vault notes.

What is at the path is looked at before anything is written, and refused with one line when:
- it is not a regular file (a folder, a device such as /dev/null, a FIFO, a socket): a stream
  is written only when asked for (`-o -`, standard output), never by writing over its name;
- it is the open catalog or its -wal, -shm or -journal file (by inode as well as by name, so a
  link to them is refused too);
- it exists and `force` was not given;
- its folder does not exist (no folder is created) or cannot be written.
A symlink is followed: its target is written and the link stays a link. The content goes to a
temporary file in the target's folder, is flushed to disk and renamed over the target; on any
failure the target is as it was and no temporary file is left.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from catalog.errors import CatalogError

# What each companion of an SQLite catalog is called in a refusal.
DATABASE_FILES = {"": "this catalog", "-wal": "this catalog's write-ahead log",
                  "-shm": "this catalog's shared-memory file", "-journal": "this catalog's rollback journal"}


@dataclass(frozen=True)
class Protected:
    """Files nothing may be written over, each with what it is: by resolved name (also those
    not there yet) and by (device, inode) (also through a hard link). Looked up once, so that
    checking each of a vault's notes costs no more system calls."""

    names: Mapping[Path, str] = field(default_factory=dict)
    inodes: Mapping[tuple[int, int], str] = field(default_factory=dict)

    def what(self, target: Path, found: os.stat_result | None) -> str | None:
        if target in self.names:
            return self.names[target]
        return self.inodes.get((found.st_dev, found.st_ino)) if found is not None else None


NOTHING = Protected()


def database_files(db: Path | None) -> Protected:
    """The files of the catalog at `db` that no export or backup may write over (SQLite keeps
    its -wal, -shm and -journal beside the file a symlink points to)."""
    if db is None:
        return NOTHING
    real = os.path.realpath(db)
    names = {Path(real + suffix): what for suffix, what in DATABASE_FILES.items()}
    inodes = {}
    for path, what in names.items():
        with contextlib.suppress(OSError):
            found = os.stat(path)
            inodes[(found.st_dev, found.st_ino)] = what
    return Protected(names, inodes)


class NotAFile(CatalogError):
    """The path is a folder, a device, a FIFO or a socket (a command may say how to ask for a
    stream instead)."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"cannot write {path}: it is {kind}, not a regular file")
        self.kind = kind


def target_for(path: Path, *, force: bool = False, protected: Protected = NOTHING) -> Path:
    """The file to write for `path` (a symlink's final target), or a CatalogError saying why not."""
    path = Path(path)
    try:
        found = os.stat(path)  # follows symlinks: what a write would reach
    except FileNotFoundError:
        found = None
    except OSError as exc:
        raise CatalogError(f"cannot write {path}: {exc.strerror or exc}") from None
    target = Path(os.path.realpath(path))
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise NotAFile(path, _kind(found.st_mode))
    what = protected.what(target, found)
    if what is not None:
        raise CatalogError(f"cannot write {path}: it is {what}")
    if found is not None and not force:
        raise CatalogError(f"{path} exists; choose another name or pass --force to replace it")
    folder = target.parent
    if not folder.is_dir():
        shown = path.parent if not path.is_symlink() else folder
        raise CatalogError(f"cannot write {path}: folder {shown or '.'} does not exist")
    return target


class Pending:
    """A temporary file written whole beside its target, waiting to be renamed over it."""

    def __init__(self, path: Path, target: Path, temp: Path, force: bool) -> None:
        self.path, self.target, self.temp, self.force = path, target, temp, force

    def commit(self) -> None:
        """Rename the temporary file over the target (checked again: it may have changed)."""
        try:
            try:
                now = os.lstat(self.target)
            except FileNotFoundError:
                now = None
            if now is not None and not stat.S_ISREG(now.st_mode):
                raise CatalogError(f"cannot write {self.path}: it became {_kind(now.st_mode)} while it was written")
            if now is not None and not self.force:
                raise CatalogError(f"{self.path} appeared while it was written; pass --force to replace it")
            os.replace(self.temp, self.target)
        except BaseException as exc:
            self.discard()
            if isinstance(exc, OSError):
                raise CatalogError(f"cannot write {self.path}: {exc.strerror or exc}") from None
            raise
        _sync_folder(self.target.parent)

    def discard(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temp)


def prepare(path: Path, write: Callable[[TextIO], None], *, force: bool = False,
            protected: Protected = NOTHING) -> Pending:
    """Check `path` (see target_for), then write the whole text through `write` into a
    temporary file beside its target and flush it to disk; `commit()` puts it in place."""
    path = Path(path)
    with _temporary(path, target_for(path, force=force, protected=protected), force) as pending:
        fd = os.open(pending.temp, os.O_WRONLY | os.O_TRUNC)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
    return pending


def write_file(path: Path, write: Callable[[TextIO], None], *, force: bool = False,
               protected: Protected = NOTHING) -> Path:
    """Write `path` through `write` (see the module's rules); returns the file written."""
    pending = prepare(path, write, force=force, protected=protected)
    pending.commit()
    return pending.target


@contextlib.contextmanager
def replacing(path: Path, *, force: bool = False, protected: Protected = NOTHING) -> Iterator[Path]:
    """For a writer that needs a file name (an SQLite backup): the path of an empty temporary
    file beside the target to fill in the block, put in place when the block ends."""
    path = Path(path)
    with _temporary(path, target_for(path, force=force, protected=protected), force) as pending:
        yield pending.temp
        _copy_permissions(pending.temp, pending.target)  # the block may have made the file anew
        fd = os.open(pending.temp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    pending.commit()


@contextlib.contextmanager
def _temporary(path: Path, target: Path, force: bool) -> Iterator[Pending]:
    """An empty temporary file in `target`'s folder with the target's permissions (or a new
    file's); removed if the block fails, whose OSErrors become one line."""
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name[:200]}.", suffix=".tmp", dir=target.parent)
    except PermissionError:
        raise CatalogError(f"cannot write {path}: folder {target.parent} is not writable") from None
    except OSError as exc:
        raise CatalogError(f"cannot write {path}: {exc.strerror or exc}") from None
    pending = Pending(path, target, Path(temp), force)
    try:
        os.close(fd)
        _copy_permissions(pending.temp, target)
        yield pending
    except BaseException as exc:
        pending.discard()
        if isinstance(exc, OSError):
            raise CatalogError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


def _copy_permissions(temp: Path, target: Path) -> None:
    """The permissions (and, where allowed, the owner) `target` has, or a new file's."""
    try:
        old = os.stat(target)
    except FileNotFoundError:
        os.chmod(temp, 0o666 & ~current_umask())  # mkstemp makes 0600; a new file gets the umask's
        return
    os.chmod(temp, stat.S_IMODE(old.st_mode))
    with contextlib.suppress(OSError):  # only root may give a file away; others keep their own
        if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
            os.chown(temp, old.st_uid, old.st_gid)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (where the system lets a folder be opened and synced)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def current_umask() -> int:
    """The process umask, read without changing it where Linux says it (/proc, 4.7+)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and put back (single-threaded CLI)
    os.umask(mask)
    return mask
