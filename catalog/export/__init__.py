"""Exports: one small module per format, each `write(papers, out)` to a text stream. Files
are written only through filewriter.py (what may be written over, and atomically)."""

from __future__ import annotations

import dataclasses
import importlib
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
