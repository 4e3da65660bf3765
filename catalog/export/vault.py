"""A Markdown vault for Obsidian and Logseq: one file per paper, `KEY.md`, in a folder.

Each file starts with YAML front matter (key, title, aliases, authors, venue, year, kind, doi,
arxiv, url, tags, status, rating), then the title, a line of authors and venue, the rendered
abstract and your notes, then the MARKER line. Everything above the marker is the catalog's and
is rewritten by each export; everything below it is yours and is kept as it is. A file
without the marker (one you made, or whose marker you deleted) is left alone and reported.
Files whose content would not change are not written again, so sync tools see no change.

An export changes the folder all at once or not at all: every changed note is first written
whole beside its file, and only when all are written are they renamed into place (a full disk
leaves every note as it was). A note that is a symlink is written through to its target; one
that is not a regular file (a folder, a pipe) is left alone and reported.

Front matter values are JSON scalars and flow sequences, which YAML reads as they are:
quotes, colons, `#` and newlines in titles cannot break the block.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from catalog.errors import CatalogError
from catalog.export import filewriter as files
from catalog.export.markdown import escape, notice_lines
from catalog.ingest.people import split_people
from catalog.results import ExportPaper
from catalog.text.tex import render

MARKER = "<!-- catalog: everything above this line is rewritten by each export; write your own notes below it -->"


@dataclass
class VaultReport:
    written: int = 0  # new or changed files
    unchanged: int = 0
    skipped: list[str] = field(default_factory=list)  # files left alone, with the reason
    left: list[str] = field(default_factory=list)  # files that could not be put in place, with the reason


def related(p: ExportPaper) -> list[tuple[str, str]]:
    """(key, title) of papers related to `p`, written as `[[key]]` links under "Related".

    TODO(similar): nothing relates papers yet. When `catalog similar` exists, return its
    nearest papers here (those in the same export, so each link has a file to open)."""
    return []


def front_matter(p: ExportPaper) -> str:
    aliases = list(dict.fromkeys(t for t in (p.display_title, p.title) if t))
    values = {
        "key": p.key, "title": p.display_title, "aliases": aliases,
        "authors": [n for n in split_people(p.authors) if n != "et al."],
        "venue": p.venue, "year": p.year, "kind": p.kind, "doi": p.doi, "arxiv": p.arxiv_id, "url": p.url,
        "tags": list(p.tags), "status": p.status, "rating": p.rating,
    }
    lines = [f"{name}: {json.dumps(value, ensure_ascii=False)}" for name, value in values.items()]
    return "---\n" + "\n".join(lines) + "\n---\n"


def body(p: ExportPaper) -> str:
    out = [f"# {escape(p.display_title)}", ""]
    meta = [escape(p.authors)] if p.authors else []
    where = " ".join(x for x in (p.venue or "", str(p.year or "")) if x)
    if where:
        meta.append(escape(where))
    if p.link:
        meta.append(f"<{p.link}>")
    if meta:
        out += [" · ".join(meta), ""]
    if p.notices:  # before the abstract: it changes how to read it
        out += ["  \n".join(notice_lines(p)), ""]
    if p.abstract:
        paragraphs = [escape(part) for part in render(p.abstract).split("\n\n") if part.strip()]
        out += ["## Abstract", "", "\n\n".join(paragraphs), ""]
    if p.notes:
        out += ["## Notes", ""]
        for note in p.notes:
            out += [note.strip(), ""]
    links = related(p)
    if links:
        out += ["## Related", ""] + [f"- [[{key}]] {escape(title)}" for key, title in links] + [""]
    return "\n".join(out)


def page(p: ExportPaper) -> str:
    """The catalog's part of a paper's file, up to and including the marker line."""
    return front_matter(p) + "\n" + body(p) + "\n" + MARKER + "\n"


def write(papers: Sequence[ExportPaper], folder: Path, *,
          protected: files.Protected = files.NOTHING) -> VaultReport:
    """Write or update `folder/KEY.md` for each paper (the folder is created if missing; its
    parent must exist). Raises (and changes nothing) when a note cannot be written whole."""
    created = not folder.exists()
    folder.mkdir(exist_ok=True)
    report = VaultReport()
    pending: list[files.Pending] = []
    try:
        for p in papers:
            path = folder / f"{p.key}.md"
            try:
                target = files.target_for(path, force=True, protected=protected)
            except CatalogError as exc:  # a folder or a pipe under a note's name
                report.skipped.append(f"{path}: {str(exc).removeprefix(f'cannot write {path}: ')}; left as it is")
                continue
            text = _updated(page(p), target, path, report)
            if text is not None:
                pending.append(files.prepare(path, lambda out, text=text: out.write(text), force=True,
                                             protected=protected))
    except BaseException:
        for note in pending:
            note.discard()
        if created:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    for note in pending:
        try:
            note.commit()
            report.written += 1
        except CatalogError as exc:
            report.left.append(str(exc))
    return report


def _updated(generated: str, target: Path, path: Path, report: VaultReport) -> str | None:
    """The note's new text (the catalog's part, then what you wrote below the marker), or None
    when it is unchanged or not the catalog's (both counted in `report`)."""
    if not target.exists():
        return generated
    old = target.read_text(encoding="utf-8", errors="replace")
    head, marker, tail = old.partition(MARKER + "\n")
    if not marker:
        head, marker, tail = old.partition(MARKER)
    if not marker:
        report.skipped.append(f"{path}: no catalog marker line; left as it is")
        return None
    if head + MARKER + "\n" == generated:
        report.unchanged += 1
        return None
    return generated + tail
