"""Rows to the dataclasses of catalog/results.py, always by column name; and the helper that
splits long `IN (...)` lists (SQLite allows a limited number of parameters per statement)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime

from catalog.results import ExportPaper, NoteView, PaperSummary, SourceRef

CHUNK = 500


def as_datetime(value) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def chunks(values: Sequence, size: int = CHUNK) -> Iterator[tuple[tuple, str]]:
    """(values, "?,?,...") for each slice of at most `size` values."""
    values = list(values)
    for start in range(0, len(values), size):
        part = tuple(values[start:start + size])
        yield part, ",".join("?" * len(part))


def summary(row, match: str | None = None) -> PaperSummary:
    """From SUMMARY_COLUMNS: key, title (the shown one), venue, year, status, rating, tags_text,
    has_notes (optional: a query that leaves it out says no)."""
    try:
        has_notes = bool(row["has_notes"])
    except (IndexError, KeyError):
        has_notes = False
    return PaperSummary(key=row["key"], title=row["title"], venue=row["venue"], year=row["year"],
                        status=row["status"], rating=row["rating"], tags=tuple(row["tags_text"].split()),
                        has_notes=has_notes, match=match)


def note(row, number: int) -> NoteView:
    return NoteView(id=row["id"], number=number, body=row["body"],
                    created_at=as_datetime(row["created_at"]), updated_at=as_datetime(row["updated_at"]),
                    author=row["author"])


def source(row) -> SourceRef:
    return SourceRef(path=row["path"], venue=row["venue"], year=row["year"], position=row["position"],
                     evidence=row["evidence"])


def export_paper(row, tags: Sequence[str], notes: Sequence[str]) -> ExportPaper:
    return ExportPaper(
        key=row["key"], fingerprint=row["fingerprint"], title=row["title"], headline=row["headline"],
        user_title=row["user_title"], authors=row["authors"], venue=row["venue"], year=row["year"],
        status=row["status"], rating=row["rating"], tags=tuple(tags), notes=tuple(notes),
        doi=row["doi"], arxiv_id=row["arxiv_id"], url=row["url"], abstract=row["abstract"],
        added_at=as_datetime(row["added_at"]), kind=row["kind"])
