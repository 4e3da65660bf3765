"""Portable annotations: your tags, notes, status, ratings, titles and saved searches as a
versioned JSON file (docs/formats.md), and merging such a file into a catalog.

Papers are found by identity, strongest first: the key with the same content, then the DOI,
arXiv id, cite key and fingerprint, then the normalised title (with the year and authors when
several papers share it), so a colleague's catalog whose keys differ still matches. An entry
that several papers could be ("Human memory", two papers) is not applied: it is reported. Merging never duplicates: tags are a
union, a note whose text is already there is not added again, and status, rating and title
are taken only where the catalog has none (or with `theirs`); a different value on both
sides is a conflict, reported.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from catalog.errors import CatalogError
from catalog.ingest.fields import title_key
from catalog.results import AnnotationsReport
from catalog.rules import STATUSES, now, tag_name, user_line
from catalog.text.terminal import safe

FORMAT = "catalog-annotations"
VERSION = 1


def collect(tx) -> dict[str, Any]:
    """Every paper you annotated, and your saved searches, as the file's JSON object."""
    searches = [{"name": s.name, "query": s.query} for s in tx.edits.saved_searches()]
    return {"format": FORMAT, "version": VERSION, "exported_at": now().isoformat(timespec="seconds") + "Z",
            "papers": tx.edits.annotated_papers(), "saved_searches": searches}


def check(document: object, name: str) -> dict[str, Any]:
    """The document if it is an annotations file this version reads; else a one-line error."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise CatalogError(f"{name} is not a catalog annotations file (no \"format\": \"{FORMAT}\")")
    version = document.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise CatalogError(f"{name} is annotations version {version}; this catalog reads up to {VERSION}")
    if not isinstance(document.get("papers", []), list) or not isinstance(document.get("saved_searches", []), list):
        raise CatalogError(f"{name}: \"papers\" and \"saved_searches\" must be lists")
    return document


def merge(tx, document: dict[str, Any], *, theirs: bool = False) -> AnnotationsReport:
    """Merge an annotations document into the catalog (`tx`: a write transaction). Its text is
    the file's: titles, saved searches, notes and tags are made what the catalog stores
    (catalog/rules.py) on the way in."""
    report = AnnotationsReport()
    for entry in document.get("papers", []):
        report.papers += 1
        if not isinstance(entry, dict):
            report.not_found.append(f"entry {report.papers} is not an object")
            continue
        label = _label(entry)
        try:
            pid = find(tx, entry)
        except Ambiguous as exc:
            report.ambiguous.append(f"{label}: {exc}")
            continue
        if pid is None:
            report.not_found.append(label)
            continue
        report.matched += 1
        entry = _cleaned(entry)
        if _merge_paper(tx, pid, entry, label, report, theirs):
            tx.edits.touch(pid)
    tx.edits.drop_unused_tags()
    for entry in document.get("saved_searches", []):
        if not isinstance(entry, dict) or not entry.get("name") or not isinstance(entry.get("query"), str):
            continue
        name, query = user_line(str(entry["name"])), user_line(entry["query"])
        if not name:
            continue
        have = tx.edits.saved_query(name)
        if have is None:
            tx.edits.save_query(name, query)
            report.searches_added += 1
        elif have != query:
            if theirs:
                tx.edits.save_query(name, query)
                report.searches_added += 1
            report.conflicts.append(f"saved search {name!r}: yours {have!r}, theirs {query!r}"
                                    + (" (took theirs)" if theirs else " (kept yours)"))
    return report


def _cleaned(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry with its user title and note bodies as the catalog would store them
    (control characters stripped)."""
    out = dict(entry)
    if isinstance(out.get("user_title"), str):
        out["user_title"] = user_line(out["user_title"])
    notes = out.get("notes")
    if isinstance(notes, list):
        out["notes"] = [{**n, "body": safe(n["body"])} if isinstance(n, dict) and isinstance(n.get("body"), str)
                        else safe(n) if isinstance(n, str) else n for n in notes]
    return out


def _label(entry: dict[str, Any]) -> str:
    title = entry.get("user_title") or entry.get("title") or entry.get("headline") or ""
    key = entry.get("key") or "?"
    return f"{key} {title!r}" if title else str(key)


class Ambiguous(Exception):
    """Several papers could be the one an entry is about; the message says which."""


def find(tx, entry: dict[str, Any]) -> int | None:
    """The catalog paper an entry is about, by its strongest identity: the same key and
    content; else the one paper with its DOI, arXiv id, cite key or fingerprint; else its title
    (narrowed by year, authors and key when several papers share it); else, when nothing
    says otherwise, the same key. Ambiguous when two papers remain."""
    key, fp = entry.get("key"), entry.get("fingerprint")
    by_key = tx.edits.paper_with("key", key) if isinstance(key, str) and key else None
    if by_key is not None and (not fp or tx.edits.fingerprint_of(by_key) == fp):
        return by_key
    for what, lookup in (("DOI", tx.papers.ids_with_doi), ("arXiv id", tx.papers.ids_with_arxiv_id),
                         ("cite key", tx.papers.ids_with_citekey)):
        value = entry.get({"DOI": "doi", "arXiv id": "arxiv_id", "cite key": "cite_key"}[what])
        if isinstance(value, str) and value:
            ids = lookup(value)
            if len(ids) == 1 or by_key in ids:
                return by_key if by_key in ids else ids[0]
            if ids:
                raise Ambiguous(f"{len(ids)} papers have the {what} {value}: {_keys(tx, ids)}")
    if isinstance(fp, str) and fp and (found := tx.edits.paper_with("fingerprint", fp)) is not None:
        return found
    title = entry.get("title")
    if isinstance(title, str) and title:
        wanted = title_key(title)
        papers = [p for p in tx.search.titled(title) if title_key(p.title) == wanted]
        papers = _narrowed(papers, entry, by_key)
        if len(papers) == 1:
            return papers[0].id
        if papers:
            raise Ambiguous(f"{len(papers)} papers have this title: {_keys(tx, [p.id for p in papers])}")
        if by_key is not None:
            return None  # the paper with that key is another paper now
    return by_key


def _narrowed(papers: list, entry: dict[str, Any], by_key: int | None) -> list:
    """Same-title papers (the store's PaperFacts) the entry's key, year and authors tell apart
    (each used only where it leaves at least one)."""
    if len(papers) < 2:
        return papers
    if by_key is not None and any(p.id == by_key for p in papers):
        return [p for p in papers if p.id == by_key]
    year = entry.get("year")
    if isinstance(year, int) and (same := [p for p in papers if p.year == year]):
        papers = same
    families = _families(entry.get("authors"))
    if families and len(papers) > 1 and (same := [p for p in papers if _families(p.authors) & families]):
        papers = same
    return papers


def _families(authors: object) -> set[str]:
    from catalog.ingest.people import people

    return {p.folded_family for p in people(authors)} if isinstance(authors, str) else set()


def _keys(tx, ids: list[int]) -> str:
    return ", ".join(tx.papers.key_of(pid) for pid in ids[:5])


def _merge_paper(tx, pid: int, entry: dict[str, Any], label: str,
                 report: AnnotationsReport, theirs: bool) -> bool:
    touched = False
    for column, value, unset in (("status", entry.get("status"), "unread"),
                                 ("rating", entry.get("rating"), None),
                                 ("user_title", entry.get("user_title"), None)):
        mine = tx.edits.user_field(pid, column)
        if not _valid(column, value) or value == unset or value == mine:
            continue
        if mine == unset or theirs:
            tx.edits.set_user_field(pid, column, value)
            report.fields_set += 1
            touched = True
        if mine != unset:
            what = "title" if column == "user_title" else column
            report.conflicts.append(f"{label}: {what} is {mine!r} here, {value!r} in the file"
                                    + (" (took theirs)" if theirs else " (kept yours)"))
    for tag in entry.get("tags") or []:
        try:
            name = tag_name(str(tag))
        except CatalogError:
            report.conflicts.append(f"{label}: tag {tag!r} is not a valid tag (skipped)")
            continue
        if tx.edits.add_tag(pid, name):
            report.tags_added += 1
            touched = True
    have = {" ".join(b.split()) for b in tx.edits.note_bodies(pid)}
    for note in entry.get("notes") or []:
        body = note.get("body") if isinstance(note, dict) else note
        if not isinstance(body, str) or not body.strip() or " ".join(body.split()) in have:
            continue
        created = _when(note.get("created_at")) if isinstance(note, dict) else None
        updated = _when(note.get("updated_at")) if isinstance(note, dict) else None
        author = note.get("author") if isinstance(note, dict) else None
        author = " ".join(safe(author).split())[:100] if isinstance(author, str) else None
        stamp = now()
        tx.edits.add_note(pid, body.strip(), created or stamp, updated or created or stamp, author=author or None)
        have.add(" ".join(body.split()))
        report.notes_added += 1
        touched = True
    return touched


def _valid(column: str, value: object) -> bool:
    if column == "status":
        return value in STATUSES
    if column == "rating":
        return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5
    return isinstance(value, str) and bool(value.strip())


def _when(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.rstrip("Z"))
    except ValueError:
        return None
    return parsed.replace(tzinfo=None)


__all__ = ["FORMAT", "VERSION", "Ambiguous", "collect", "check", "merge", "find"]
