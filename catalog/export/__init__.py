"""Exports: one small module per format, each `write(papers, out)` to a text stream. Files
are written only through filewriter.py (what may be written over, and atomically). Beside
the formats: citekeys.py (keys unique within one export), kept.py (what of a paper's imported
records an export writes back), bibfiles.py (project .bib files kept current, catalog.citing's)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import NamedTuple, TextIO

from catalog.results import ExportPaper
from catalog.text.terminal import visible_controls


class Format(NamedTuple):
    module: str  # catalog/export/<module>.py
    suffix: str  # of the file it writes


FORMATS: dict[str, Format] = {
    "bibtex": Format("bibtex", ".bib"),
    "csljson": Format("csljson", ".json"),
    "ris": Format("ris", ".ris"),
    "markdown": Format("markdown", ".md"),
    "csv": Format("csvfile", ".csv"),
    "jsonl": Format("jsonl", ".jsonl"),
}


# Formats written as a folder of files, one per paper: name -> module.
FOLDER_FORMATS: dict[str, str] = {"vault": "vault"}


class ExportError(ValueError):
    pass


def format_for(path: Path) -> str | None:
    """The format a file name asks for (`reading.md` -> markdown), if its suffix says."""
    suffix = path.suffix.lower()
    return next((name for name, f in FORMATS.items() if f.suffix == suffix), None)


def writer(fmt: str) -> Callable[[Sequence[ExportPaper], TextIO], None]:
    """The format's writer; whatever it writes carries no control characters (see visible)."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    write = _module(FORMATS[fmt].module).write
    return lambda papers, out: write([visible(p) for p in papers], out)


def _module(name: str) -> ModuleType:
    """A format's module, imported when that format is written: an export loads its own
    format's libraries only (bibtexparser for BibTeX), and each import is one a reader can follow."""
    match name:
        case "bibtex":
            from catalog.export import bibtex as module
        case "csljson":
            from catalog.export import csljson as module
        case "ris":
            from catalog.export import ris as module
        case "markdown":
            from catalog.export import markdown as module
        case "csvfile":
            from catalog.export import csvfile as module
        case "jsonl":
            from catalog.export import jsonl as module
        case _:
            raise ExportError(f"no export module {name!r}")
    return module


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
