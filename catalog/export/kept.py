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


# --- a hand edit of a paper's fields, written into its kept records ----------------------------
# Exports write a kept record as its file had it: a title, authors, venue, year, DOI or URL the
# user corrected would come back as the file said unless the record says it too. Each format's
# names for each field (the first is added when the record lacks it), compared without case.
EDITED_NAMES = {
    "bibtex": {"title": ("title",), "authors": ("author",), "venue": ("journal", "booktitle"),
               "year": ("year",), "doi": ("doi",), "url": ("url",)},
    "csv": {"title": ("Title",), "authors": ("Author",), "venue": ("Publication Title",),
            "year": ("Publication Year",), "doi": ("DOI",), "url": ("Url",)},
    "ris": {"title": ("TI", "T1"), "authors": ("AU", "A1"), "venue": ("T2", "JO", "JF", "BT"),
            "year": ("PY", "Y1"), "doi": ("DO",), "url": ("UR",)},
    "json": {"title": ("title",), "authors": ("author",), "venue": ("container-title",),
             "year": ("issued",), "doi": ("DOI",), "url": ("URL",)},
}


def with_edit(format: str, fields: list, field: str, value) -> list:
    """A kept record's fields (as stored: [name, value] lists) with `field` set to `value`
    (None: taken out), written as that format writes it."""
    names = EDITED_NAMES.get(format, {}).get(field)
    if not names:
        return fields
    folded = {n.lower() for n in names}
    at = next((i for i, f in enumerate(fields) if str(f[0]).lower() in folded), None)
    first = fields[at][0] if at is not None else names[0]
    kept = [f for f in fields if str(f[0]).lower() not in folded]
    if value is None or value == "":
        return kept
    new = [[first, v] for v in _written(format, field, value)]
    at = len(kept) if at is None else sum(1 for f in fields[:at] if str(f[0]).lower() not in folded)
    return kept[:at] + new + kept[at:]


def _written(format: str, field: str, value) -> list:
    from catalog.ingest.people import split_people

    if field == "authors":
        names = split_people(value)
        if format == "ris":
            return names  # one AU line each
        if format == "json":
            return [[{"literal": n} for n in names]]
        return [" and ".join(names) if format == "bibtex" else "; ".join(names)]
    if field == "year" and format == "json":
        return [{"date-parts": [[int(value)]]}]
    return [str(value)]
