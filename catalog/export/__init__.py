"""Exports: one small module per format, each `write(papers, out)` to a text stream.

`write_file` replaces its target atomically (a temporary file beside it, then a rename), so
an interrupted export never leaves half a file where a whole one was.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from catalog.results import ExportPaper
from catalog.text.terminal import visible_controls

# name -> (module, file suffix)
FORMATS: dict[str, tuple[str, str]] = {
    "bibtex": ("bibtex", ".bib"),
    "csljson": ("csljson", ".json"),
    "ris": ("ris", ".ris"),
    "markdown": ("markdown", ".md"),
    "csv": ("csvfile", ".csv"),
    "jsonl": ("jsonl", ".jsonl"),
}


# Formats written as a folder of files, one per paper: name -> module.
FOLDER_FORMATS: dict[str, str] = {"vault": "vault"}


class ExportError(ValueError):
    pass


def format_for(path: Path) -> str | None:
    """The format a file name asks for (`reading.md` -> markdown), if its suffix says."""
    suffix = path.suffix.lower()
    return next((name for name, (_, s) in FORMATS.items() if s == suffix), None)


def writer(fmt: str) -> Callable[[Sequence[ExportPaper], TextIO], None]:
    """The format's writer; whatever it writes carries no control characters (see visible)."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    write = importlib.import_module(f"catalog.export.{FORMATS[fmt][0]}").write
    return lambda papers, out: write([visible(p) for p in papers], out)


def visible(p: ExportPaper) -> ExportPaper:
    """The paper with any control character left in its text (stored before the catalog
    stripped them on the way in, or edited by hand) shown as a visible stand-in: `cat` on an
    export must not clear the screen or retitle the terminal."""
    changes = {}
    for f in dataclasses.fields(p):
        value = getattr(p, f.name)
        if isinstance(value, str):
            shown = visible_controls(value)
        elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):
            shown = tuple(map(visible_controls, value))
        else:
            continue
        if shown != value:
            changes[f.name] = shown
    return dataclasses.replace(p, **changes) if changes else p


def write_file(path: Path, write: Callable[[TextIO], None]) -> None:
    """Write through `write` to a temporary file beside `path`, then rename it over `path`."""
    directory = path.parent if str(path.parent) else Path(".")
    mode = _mode_for(path)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, mode)  # mkstemp makes 0600; the file gets what `path` has or a new file would
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def _mode_for(path: Path) -> int:
    """The permissions `path` has, or those a new file gets under the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~current_umask()


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
