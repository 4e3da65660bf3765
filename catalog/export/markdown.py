"""A reading list in Markdown that reads well on GitHub: papers grouped by status (reading,
queued, unread, read, skipped), each with authors, venue, rating stars, tags and notes.

Imported text (titles, authors, venues, tags) is escaped so it never turns into emphasis,
links, HTML or math; notes are your own Markdown and are kept as written, quoted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TextIO

from catalog.results import ExportPaper

ORDER = ("reading", "queued", "unread", "read", "skipped")
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~$#!])")
_ENTITY = re.compile(r"&(?=#?\w+;)")


def escape(text: str) -> str:
    """Inline text as literal Markdown (GitHub flavour, math included)."""
    text = " ".join(text.split())
    return _ENTITY.sub("&amp;", _SPECIAL.sub(r"\\\1", text))


def stars(rating: int | None) -> str:
    return "★" * rating + "☆" * (5 - rating) if rating else ""


def _code(tag: str) -> str:
    fence = "``" if "`" in tag else "`"
    pad = " " if "`" in tag else ""
    return f"{fence}{pad}{tag}{pad}{fence}"


def _link_target(url: str) -> str:
    return "<" + re.sub(r"[\s<>]", lambda m: f"%{ord(m[0]):02X}", url) + ">"


def notice_lines(p: ExportPaper) -> list[str]:
    """One line per notice: **Retracted**: [Retraction of 2019-03-01](<https://doi.org/...>)."""
    out = []
    for n in p.notices:
        what = escape(n.label or n.kind.replace("_", " ").capitalize()) + (f" of {n.updated}" if n.updated else "")
        out.append(f"**{n.flag.capitalize()}**: [{what}]({_link_target('https://doi.org/' + n.doi)})")
    return out


def paper(p: ExportPaper) -> list[str]:
    title = f"**{escape(p.display_title)}**"
    if p.link:
        title = f"[{title}]({_link_target(p.link)})"
    if not p.exported_title:
        title += (" (untitled; headline derived from the abstract)" if p.abstract
                  else " (untitled; headline from its fields)")
    meta = [escape(p.authors)] if p.authors else []
    where = " ".join(x for x in (p.venue or "", str(p.year or "")) if x)
    if where:
        meta.append(escape(where))
    if p.rating:
        meta.append(stars(p.rating))
    if p.tags:
        meta.append(" ".join(_code(t) for t in p.tags))
    meta.append(f"`{p.key}`")
    lines = [f"- {title}  ", f"  {' · '.join(meta)}"]
    for line in notice_lines(p):  # a retraction or correction: it changes how to read the paper
        lines[-1] += "  "
        lines.append(f"  {line}")
    for note in p.notes:
        lines.append("")
        lines.extend(f"  > {line}".rstrip() for line in note.replace("<", "&lt;").splitlines())
    if p.notes:
        lines.append("")
    return lines


def write(papers: Sequence[ExportPaper], out: TextIO, *, title: str = "Reading list") -> None:
    out.write(f"# {escape(title)}\n\n{len(papers)} {'paper' if len(papers) == 1 else 'papers'}\n")
    for status in ORDER:
        group = [p for p in papers if p.status == status]
        if not group:
            continue
        out.write(f"\n## {status.capitalize()} ({len(group)})\n\n")
        for p in group:
            out.write("\n".join(paper(p)) + "\n")
