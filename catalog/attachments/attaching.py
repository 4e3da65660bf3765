"""Attached files on disk: the catalog's folder of files, readable names, hashes, copying in
and taking out. No SQL (the store keeps the rows) and no PDF library (catalog/attachments/pdftext.py).

The folder of files is `$CATALOG_FILES`, else `<name>-files/` beside a catalog file
(`catalog.db` -> `catalog-files/`). A catalog on a server has no file to sit beside: its
members set CATALOG_FILES to a folder every one of them can read (docs/files.md).

A managed copy is named from `$CATALOG_FILE_NAMES` (default `{year} {author} - {title}`, the
first author's family name) plus the file's own suffix; characters no file system takes are
dropped, and a name already taken gets ` (2)`, ` (3)`. Whether `catalog attach` copies or
links by default is `$CATALOG_ATTACH` (`copy`, the default, or `link`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import stat
from pathlib import Path

from catalog.errors import CatalogError
from catalog.results import PaperFile

FILES_VAR = "CATALOG_FILES"
NAMES_VAR = "CATALOG_FILE_NAMES"
ATTACH_VAR = "CATALOG_ATTACH"
PATTERN = "{year} {author} - {title}"
NAME_CHARS = 120  # file names stay well under every file system's 255 bytes
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')
_CHUNK = 1 << 20


def folder(store) -> Path:
    """The catalog's folder of files (not created here)."""
    if os.environ.get(FILES_VAR):
        return Path(os.environ[FILES_VAR]).expanduser().absolute()
    if store.path is None:
        raise CatalogError(f"a shared catalog keeps attached files in a folder every member can read: set "
                           f"{FILES_VAR} to it, or attach with --link (docs/files.md)")
    path = Path(store.path).absolute()
    return path.with_name(f"{path.stem}-files")


def links_by_default() -> bool:
    value = os.environ.get(ATTACH_VAR, "copy").strip().lower()
    if value not in ("copy", "link"):
        raise CatalogError(f"{ATTACH_VAR} is {value!r}: it takes copy or link")
    return value == "link"


def readable(path: Path) -> Path:
    """`path` checked as a file one can attach: a regular file that can be read."""
    path = Path(path).expanduser()
    try:
        info = path.stat()
    except FileNotFoundError:
        raise CatalogError(f"no file at {path}") from None
    except OSError as exc:
        raise CatalogError(f"cannot read {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise CatalogError(f"{path} is not a file (a folder, a device or a pipe): attach files")
    if not os.access(path, os.R_OK):
        raise CatalogError(f"cannot read {path}: permission denied")
    return path.absolute()


def fingerprint(path: Path) -> tuple[str, int]:
    """(sha256, size) of the file's bytes."""
    digest, size = hashlib.sha256(), 0
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
                size += len(chunk)
    except OSError as exc:
        raise CatalogError(f"cannot read {path}: {exc.strerror}") from None
    return digest.hexdigest(), size


def file_name(detail, suffix: str) -> str:
    """The managed copy's name for paper `detail` (a PaperDetail) and the file's suffix."""
    first = (detail.authors or "").split(",")[0].split()
    fields = {"year": detail.summary.year or "", "author": first[-1] if first else "",
              "title": detail.summary.title or detail.headline or detail.summary.key,
              "key": detail.summary.key, "venue": detail.summary.venue or ""}
    pattern = os.environ.get(NAMES_VAR) or PATTERN
    try:
        name = pattern.format(**fields)
    except (KeyError, IndexError, ValueError) as exc:
        raise CatalogError(f"{NAMES_VAR} {pattern!r} is not a name pattern ({exc}): it takes "
                           "{year} {author} {title} {key} {venue}") from None
    name = re.sub(r"\s+", " ", _UNSAFE.sub(" ", name)).strip(" .-")
    name = re.sub(r"^- | -$", "", name)[:NAME_CHARS].rstrip(" .") or detail.summary.key
    return name + suffix.lower()


def copy_in(source: Path, into: Path, name: str, *, sha256: str | None = None) -> str:
    """Copy `source` into the folder `into` as `name` (or `name (2)`...); the name used. The
    bytes go to a hidden temporary file first and take their name whole (a hard link, which
    never replaces a file), so a copy killed midway leaves no half file under a paper's name,
    and the next copy on this machine removes what it left. A file already there under one of
    those names with `sha256`'s bytes is used as it is: the copy of a run killed before it
    stored the attachment. Where the folder takes no hard links, the name is claimed first
    (O_EXCL) and the bytes copied into it."""
    try:
        into.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CatalogError(f"cannot make the folder of files {into}: {exc.strerror}") from None
    _sweep(into)
    temp = into / f"{_TEMP_PREFIX}{_HOST}-{os.getpid()}-{os.urandom(4).hex()}.part"
    try:
        shutil.copyfile(source, temp)
    except BaseException as exc:
        temp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise CatalogError(f"cannot copy {source} into {into}: {exc.strerror}") from None
        raise
    try:
        return _take_a_name(source, temp, into, name, sha256)
    finally:
        temp.unlink(missing_ok=True)


_TEMP_PREFIX = ".catalog-copy-"
_HOST = re.sub(r"[^A-Za-z0-9.]", "", os.uname().nodename if hasattr(os, "uname") else "") or "here"


def _take_a_name(source: Path, temp: Path, into: Path, name: str, sha256: str | None) -> str:
    stem, suffix = os.path.splitext(name)
    number, links = 1, True
    while number < 1000:
        candidate = name if number == 1 else f"{stem} ({number}){suffix}"
        target = into / candidate
        try:
            if links:
                os.link(temp, target)
            else:
                _copy_claimed(temp, target)
            return candidate
        except FileExistsError:
            if sha256 is not None and target.stat().st_size == source.stat().st_size and fingerprint(target)[0] == sha256:
                return candidate
            number += 1
        except OSError as exc:
            if not links:
                raise CatalogError(f"cannot write into {into}: {exc.strerror}") from None
            links = False  # no hard links in this folder (FAT, some shares): claim the name, copy into it
    raise CatalogError(f"{into} already holds {name} and 999 more like it")


def _copy_claimed(temp: Path, target: Path) -> None:
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    try:
        shutil.copyfile(temp, target)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def _sweep(into: Path) -> None:
    """Remove the temporary copies of processes of this machine that are gone (killed)."""
    for leftover in into.glob(f"{_TEMP_PREFIX}{_HOST}-*.part"):
        try:
            pid = int(leftover.name[len(_TEMP_PREFIX) + len(_HOST) + 1:].split("-")[0])
        except ValueError:
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            leftover.unlink(missing_ok=True)
        except OSError:  # another user's process: alive
            pass


def is_pdf(path: Path) -> bool:
    return Path(path).suffix.lower() == ".pdf"


def pdfs_in(paths) -> list[Path]:
    """The PDFs among `paths` and inside the folders among them (hidden ones skipped), sorted
    within each folder; a folder's symlinked folders are not followed."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found += [Path(root) / name for name in sorted(files) if not name.startswith(".") and is_pdf(Path(name))]
        elif is_pdf(path):
            found.append(path)
    return found


def move_within(into: Path, old: str, name: str) -> str:
    """Rename the copy `old` in the folder `into` to `name` (or `name (2)`...), never over
    another file; the name used."""
    stem, suffix = os.path.splitext(name)
    for number in range(1, 1000):
        candidate = name if number == 1 else f"{stem} ({number}){suffix}"
        try:
            os.link(into / old, into / candidate)  # fails on a name taken: nothing is replaced
        except FileExistsError:
            continue
        except OSError as exc:
            raise CatalogError(f"cannot rename {old} in {into}: {exc.strerror}") from None
        (into / old).unlink()
        return candidate
    raise CatalogError(f"{into} already holds {name} and 999 more like it")


def location(into: Path | None, attachment) -> Path:
    """Where an attachment's file is on this machine."""
    return into / attachment.path if attachment.stored == "managed" else Path(attachment.path)


def located(store, attachment):
    """The AttachmentView with where its file is on this machine and whether it is there."""
    try:
        where = location(folder(store) if attachment.stored == "managed" else None, attachment)
    except CatalogError:  # a server's managed file without CATALOG_FILES: not on this machine
        return dataclasses.replace(attachment, present=False)
    return dataclasses.replace(attachment, location=str(where), present=where.is_file())


def missing(store) -> list[PaperFile]:
    """Each attached file that is not where the catalog keeps it."""
    with store.read() as tx:
        every = tx.papers.every_attachment()
    return [PaperFile(f.key, found) for f in every if not (found := located(store, f.attachment)).present]


def remove(path: Path) -> None:
    """Delete a managed copy (gone already: nothing to do)."""
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise CatalogError(f"detached, but cannot delete {path}: {exc.strerror}") from None
