"""Portable annotations: your tags, notes, status, ratings, titles and saved searches as a
versioned JSON file (docs/formats.md), and merging such a file into a catalog.

Papers are found by key first, then by fingerprint, DOI, arXiv id and normalised title, so
a colleague's catalog whose keys differ still matches. Merging never duplicates: tags are a
union, a note whose text is already there is not added again, and status, rating and title
are taken only where the catalog has none (or with `theirs`); a different value on both
sides is a conflict, reported.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from catalog.sqlite import Connection

from catalog.constants import STATUSES
from catalog.db import CatalogError
from catalog.ingest.fields import title_key
from catalog.results import AnnotationsReport

FORMAT = "catalog-annotations"
VERSION = 1


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def collect(conn: Connection) -> dict[str, Any]:
    """Every paper you annotated, and your saved searches, as the file's JSON object."""
    tags: dict[int, list[str]] = {}
    for pid, name in conn.execute(
            "SELECT pt.paper_id, t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id ORDER BY t.name"):
        tags.setdefault(pid, []).append(name)
    notes: dict[int, list[dict[str, str]]] = {}
    for pid, body, created, updated in conn.execute(
            "SELECT paper_id, body, created_at, updated_at FROM note ORDER BY created_at, id"):
        notes.setdefault(pid, []).append({"body": body, "created_at": str(created), "updated_at": str(updated)})
    papers = []
    rows = conn.execute(
        "SELECT id, key, fingerprint, doi, arxiv_id, title, headline, user_title, status, rating FROM paper"
        " WHERE status != 'unread' OR rating IS NOT NULL OR user_title IS NOT NULL"
        " OR id IN (SELECT paper_id FROM paper_tag) OR id IN (SELECT paper_id FROM note) ORDER BY id")
    for pid, key, fp, doi, arxiv, title, headline, user_title, status, rating in rows:
        papers.append({
            "key": key, "fingerprint": fp, "doi": doi, "arxiv_id": arxiv, "title": title,
            "headline": headline, "user_title": user_title, "status": status, "rating": rating,
            "tags": tags.get(pid, []), "notes": notes.get(pid, []),
        })
    searches = [{"name": n, "query": q} for n, q in conn.execute(
        "SELECT name, query FROM saved_search ORDER BY name")]
    return {"format": FORMAT, "version": VERSION, "exported_at": _now().isoformat(timespec="seconds") + "Z",
            "papers": papers, "saved_searches": searches}


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


def merge(conn: Connection, document: dict[str, Any], *, theirs: bool = False,
          validate_tag=lambda t: t, clean_line=lambda t: t, clean_note=lambda t: t) -> AnnotationsReport:
    """Merge an annotations document into the catalog (the caller holds a write transaction).
    Its text is the file's: `clean_line` and `clean_note` make titles, saved searches and notes
    what the catalog stores (control characters stripped), as `validate_tag` does for tags."""
    report = AnnotationsReport()
    now = _now()
    for entry in document.get("papers", []):
        report.papers += 1
        if not isinstance(entry, dict):
            report.not_found.append(f"entry {report.papers} is not an object")
            continue
        label = _label(entry)
        pid = find(conn, entry)
        if pid is None:
            report.not_found.append(label)
            continue
        report.matched += 1
        entry = _cleaned(entry, clean_line, clean_note)
        touched = _merge_paper(conn, pid, entry, label, report, theirs, validate_tag)
        if touched:
            conn.execute("UPDATE paper SET updated_at = ? WHERE id = ?", (now, pid))
    conn.execute("DELETE FROM tag WHERE id NOT IN (SELECT tag_id FROM paper_tag)")
    for entry in document.get("saved_searches", []):
        if not isinstance(entry, dict) or not entry.get("name") or not isinstance(entry.get("query"), str):
            continue
        name, query = clean_line(" ".join(str(entry["name"]).split())), clean_line(entry["query"])
        if not name:
            continue
        have = conn.execute("SELECT query FROM saved_search WHERE name = ?", (name,)).scalar()
        if have is None:
            conn.execute("INSERT INTO saved_search(name, query, created_at) VALUES (?, ?, ?)",
                                 (name, query, now))
            report.searches_added += 1
        elif have != query:
            if theirs:
                conn.execute("UPDATE saved_search SET query = ? WHERE name = ?", (query, name))
                report.searches_added += 1
            report.conflicts.append(f"saved search {name!r}: yours {have!r}, theirs {query!r}"
                                    + (" (took theirs)" if theirs else " (kept yours)"))
    return report


def _cleaned(entry: dict[str, Any], clean_line, clean_note) -> dict[str, Any]:
    """The entry with its user title and note bodies as the catalog would store them."""
    out = dict(entry)
    if isinstance(out.get("user_title"), str):
        out["user_title"] = clean_line(out["user_title"])
    notes = out.get("notes")
    if isinstance(notes, list):
        out["notes"] = [{**n, "body": clean_note(n["body"])} if isinstance(n, dict) and isinstance(n.get("body"), str)
                        else clean_note(n) if isinstance(n, str) else n for n in notes]
    return out


def _label(entry: dict[str, Any]) -> str:
    title = entry.get("user_title") or entry.get("title") or entry.get("headline") or ""
    key = entry.get("key") or "?"
    return f"{key} {title!r}" if title else str(key)


def find(conn: Connection, entry: dict[str, Any]) -> int | None:
    """The catalog paper an entry is about: same key and content, else the same fingerprint,
    DOI, arXiv id or title, else (last) the same key."""
    key, fp = entry.get("key"), entry.get("fingerprint")
    by_key = conn.execute("SELECT id, fingerprint FROM paper WHERE key = ?", (key,)).first() if key else None
    if by_key and (not fp or by_key[1] == fp):
        return by_key[0]
    for column, value in (("fingerprint", fp), ("doi", entry.get("doi")), ("arxiv_id", entry.get("arxiv_id"))):
        if value:
            row = conn.execute(f"SELECT id FROM paper WHERE {column} = ?", (value,)).first()
            if row:
                return row[0]
    if entry.get("title"):
        from catalog import search

        wanted = title_key(entry["title"])
        for row in search.papers_titled(conn, entry["title"]):
            if title_key(row[2]) == wanted:
                return row[0]
    return by_key[0] if by_key else None


def _merge_paper(conn: Connection, pid: int, entry: dict[str, Any], label: str,
                 report: AnnotationsReport, theirs: bool, validate_tag) -> bool:
    touched = False
    status, rating, user_title = conn.execute(
        "SELECT status, rating, user_title FROM paper WHERE id = ?", (pid,)).one()
    for column, mine, value, unset in (("status", status, entry.get("status"), "unread"),
                                       ("rating", rating, entry.get("rating"), None),
                                       ("user_title", user_title, entry.get("user_title"), None)):
        if not _valid(column, value) or value == unset or value == mine:
            continue
        if mine == unset or theirs:
            conn.execute(f"UPDATE paper SET {column} = ? WHERE id = ?", (value, pid))
            report.fields_set += 1
            touched = True
        if mine != unset:
            what = "title" if column == "user_title" else column
            report.conflicts.append(f"{label}: {what} is {mine!r} here, {value!r} in the file"
                                    + (" (took theirs)" if theirs else " (kept yours)"))
    for tag in entry.get("tags") or []:
        try:
            name = validate_tag(str(tag))
        except CatalogError:
            report.conflicts.append(f"{label}: tag {tag!r} is not a valid tag (skipped)")
            continue
        conn.execute("INSERT OR IGNORE INTO tag(name) VALUES (?)", (name,))
        added = conn.execute(
            "INSERT OR IGNORE INTO paper_tag(paper_id, tag_id) SELECT ?, id FROM tag WHERE name = ?",
            (pid, name)).rowcount
        report.tags_added += added
        touched = touched or bool(added)
    have = {" ".join(b.split()) for b in conn.execute(
        "SELECT body FROM note WHERE paper_id = ?", (pid,)).scalars()}
    for note in entry.get("notes") or []:
        body = note.get("body") if isinstance(note, dict) else note
        if not isinstance(body, str) or not body.strip() or " ".join(body.split()) in have:
            continue
        created = _when(note.get("created_at")) if isinstance(note, dict) else None
        updated = _when(note.get("updated_at")) if isinstance(note, dict) else None
        now = _now()
        conn.execute("INSERT INTO note(paper_id, body, created_at, updated_at) VALUES (?, ?, ?, ?)",
                             (pid, body.strip(), created or now, updated or created or now))
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


__all__ = ["FORMAT", "VERSION", "collect", "check", "merge", "find"]
