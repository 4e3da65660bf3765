"""What an export writes back of a paper's imported records (results.RecordFields): the record
of the format being written, and whether its keywords still say what the paper's tags say."""

from __future__ import annotations

from catalog.results import ExportPaper, RecordFields
from catalog.rules import keyword_tag


def record_in(p: ExportPaper, formats: tuple[str, ...]) -> RecordFields | None:
    """The paper's first record read from a file of one of these formats, or None."""
    return next((r for r in p.records if r.format in formats), None)


def keywords_hold_tags(keywords: list[str], tags: tuple[str, ...]) -> bool:
    """Whether the record's keywords, as tags, are the paper's tags: then they are written as
    the file had them, else the tags are."""
    return {t.lower() for t in map(keyword_tag, keywords) if t} == {t.lower() for t in tags}


def says(record: RecordFields, value: str | None) -> bool:
    """Whether one of the record's values holds this (a DOI, arXiv id or link the catalog
    read from it): the record says it already, in its own way, and nothing is added."""
    if not value:
        return False
    value = value.lower()
    return any(value in str(f[1]).lower() for f in record.fields)
