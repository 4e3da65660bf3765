"""Which column (CSV) or key (JSON) holds which paper field.

Defaults cover the names Zotero, CSL-JSON, spreadsheets and this catalog's own exports use;
`catalog import --map field=column` names another (documented in docs/formats.md). Column
names are compared without case, spaces, `_` or `-` ("Publication Year" = publication_year).
The first default column with a value wins, row by row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from catalog.ingest import kinds
from catalog.ingest import fields
from catalog.ingest.links import FileLinks
from catalog.ingest.records import Kept

DEFAULT_COLUMNS: dict[str, tuple[str, ...]] = {
    "title": ("title", "paper title"),
    "abstract": ("abstract", "summary", "abstract note"),
    "authors": ("authors", "author", "creators"),
    "year": ("year", "publication year", "issued", "date", "published"),
    "venue": ("venue", "booktitle", "journal", "conference", "container title", "publication title",
              "proceedings title", "conference name", "journaltitle"),
    "doi": ("doi",),
    "url": ("url", "link"),
    "arxiv_id": ("arxiv id", "arxiv", "arxivid", "eprint"),
    "key": ("key",),
    # The catalog's own name (its csv and jsonl exports), then each program's type field:
    # CSL-JSON's `type`, Zotero's CSV `Item Type`, a spreadsheet's `type`.
    "kind": ("kind", "item type", "type", "entry type", "entrytype", "type of reference"),
}
FIELDS = tuple(DEFAULT_COLUMNS)
# Columns that may name an arXiv id among other things: CSL-JSON's `number` ("arXiv:1706.03762",
# as this catalog's own export writes it), Zotero's `Extra` ("arXiv:1706.03762 [cs]"), notes.
ARXIV_HINTS = ("number", "extra", "note")
_ALIASES = {"author": "authors", "arxiv": "arxiv_id", "arxivid": "arxiv_id", "summary": "abstract",
            "booktitle": "venue", "journal": "venue", "date": "year"}


class MappingError(ValueError):
    """A --map option that names no known field."""


def _norm(name: str) -> str:
    return re.sub(r"[\s_-]+", " ", name.strip().lower())


@dataclass(frozen=True)
class FieldMap:
    """Field -> the column it is read from, for fields the user named with --map."""

    overrides: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, specs: Iterable[str]) -> "FieldMap":
        overrides: dict[str, str] = {}
        for spec in specs:
            name, sep, column = spec.partition("=")
            key = _ALIASES.get(_norm(name).replace(" ", "_"), _norm(name).replace(" ", "_"))
            if not sep or not column.strip():
                raise MappingError(f"--map {spec!r}: write it as field=column, like title=Name")
            if key not in DEFAULT_COLUMNS:
                raise MappingError(f"--map {spec!r}: unknown field {name!r}; fields are {', '.join(FIELDS)}")
            overrides[key] = column.strip()
        return cls(overrides)

    def columns(self, available: Iterable[str]) -> dict[str, list[str]]:
        """For each field, the columns present in `available` to read it from, best first."""
        by_norm: dict[str, str] = {}
        for name in available:
            by_norm.setdefault(_norm(name), name)
        out: dict[str, list[str]] = {}
        for name, defaults in DEFAULT_COLUMNS.items():
            if name in self.overrides:
                wanted = [self.overrides[name]]
                out[name] = [by_norm[_norm(w)] for w in wanted if _norm(w) in by_norm]
            else:
                taken = {_norm(c) for c in self.overrides.values()}
                out[name] = [by_norm[d] for d in defaults if d in by_norm and d not in taken]
        out["arxiv hints"] = [by_norm[h] for h in ARXIV_HINTS if h in by_norm]
        return out

    def missing(self, available: Iterable[str]) -> list[str]:
        """--map columns that are not in the file."""
        names = {_norm(n) for n in available}
        return [c for c in self.overrides.values() if _norm(c) not in names]


def _first(row: Mapping[str, object], columns: list[str]) -> object:
    for column in columns:
        value = row.get(column)
        if value not in (None, "", [], {}):
            return value
    return None


# Columns only this catalog's own CSV and JSONL exports have: their authors are
# "First Last, First Last" (an organisation's " and " is part of its name).
OWN_EXPORT = frozenset({"key", "headline", "user_title"})


def values(row: Mapping[str, object], columns: dict[str, list[str]], *, links: FileLinks, line: int,
           semicolons: bool = False) -> dict[str, object]:
    """A row's field values, normalised as fields.record expects them; its link is picked by
    the file's `links` (the row starts at `line`). `semicolons`: authors are separated by `;`
    only (Zotero's CSV)."""
    authors = _first(row, columns["authors"])
    if isinstance(authors, str) and OWN_EXPORT <= row.keys():
        authors = fields.join_people(authors.split(","))
    else:
        authors = fields.any_authors(authors, semicolons=semicolons)
    get = lambda name: _first(row, columns[name])  # noqa: E731
    title, abstract = get("title"), get("abstract")
    found_url = links.pick([get("url")], line)
    found_doi = fields.doi(get("doi")) or fields.doi_link(get("url"))
    arxiv = fields.arxiv_id(get("arxiv_id"), bare=True) or fields.arxiv_id(found_url)
    venue_value = get("venue")
    if arxiv is None and isinstance(venue_value, str):
        arxiv = fields.arxiv_id(venue_value)
    for column in columns.get("arxiv hints", ()) if arxiv is None else ():
        if isinstance(row.get(column), str) and (arxiv := fields.arxiv_id(row[column])):
            break
    venue = fields.venue(_text(venue_value)) if venue_value else ("arXiv" if arxiv else None)
    key = get("key") or next((str(v).removeprefix("catalog:") for n, v in row.items() if _own_key(n, v)), None)
    kind_column = next((c for c in columns["kind"] if row.get(c) not in (None, "", [], {})), None)
    return {
        "title": _text(title) if title is not None else None,
        "abstract": _text(abstract) if abstract is not None else "",
        "authors": authors,
        "year": fields.year(get("year")),
        "venue": venue,
        "doi": found_doi,
        "arxiv_id": arxiv,
        "url": found_url,
        "key": key if isinstance(key, str) else None,
        # What names a row without title or abstract (fields.headline_from_fields): CSL-JSON's
        # `volume` and `page`, Zotero's CSV `Volume` and `Pages`
        "volume": _text(v) if (v := _first(row, ("volume",))) not in (None, "") else None,
        "pages": _text(v) if (v := _first(row, ("page", "pages"))) not in (None, "") else None,
        # In a `kind` column `article` is the catalog's journal article; elsewhere (CSL's
        # `type`) it is a manuscript: a preprint with an arXiv id, else not known.
        "kind": kinds.thesis(kinds.named(row[kind_column], article="article"
                                         if _norm(kind_column) == "kind" else kinds.GENERIC),
                             row.get("genre")) if kind_column else None,  # CSL: thesis + genre
    }


def _text(value: object) -> str:
    if isinstance(value, list):  # CSL-JSON's container-title is sometimes a list
        return " ".join(str(v) for v in value if v is not None)
    return str(value)


def _own_key(name: str, value: object) -> bool:
    """This catalog's key for the paper, as its CSL-JSON export writes it (call-number)."""
    return name == "call-number" and isinstance(value, str) and value.startswith("catalog:")


def unpacked(item: Mapping[str, object]) -> Mapping[str, object]:
    """A CSL-JSON item with what its `custom` holds (keys CSL does not define, which this
    catalog's export puts there) as keys of its own; the item's own keys win."""
    custom = item.get("custom")
    if not isinstance(custom, dict):
        return item
    out = {k: v for k, v in item.items() if k != "custom"}
    for name, value in custom.items():
        out.setdefault(name, value)
    return out


def kept(row: Mapping[str, object], *, csv: bool = False) -> Kept:
    """Every key of a JSON item (every non-empty cell of a CSV row) as written. CSL-JSON's
    `type`, `id` and `keyword` ("a, b") are the entry type, cite key and keywords; a CSV
    row (Zotero's) has its `Item Type` and `Manual Tags` ("a; b"), and no cite key."""
    if csv:
        pairs = [[name, value] for name, value in row.items() if name is not None and value not in (None, "")]
        by_norm = {_norm(name): value for name, value in pairs}
        tags = str(by_norm.get("manual tags") or "")
        return Kept(str(by_norm.get("item type") or "") or None, None, pairs,
                    tuple(t.strip() for t in tags.split(";") if t.strip()))
    pairs = [[name, value] for name, value in row.items() if not _own_key(name, value)]
    kind, key, words = row.get("type"), row.get("id"), row.get("keyword")
    return Kept(kind if isinstance(kind, str) else None,
                str(key) if isinstance(key, (str, int)) and not isinstance(key, bool) and str(key) else None,
                pairs, tuple(w.strip() for w in words.split(",") if w.strip()) if isinstance(words, str) else ())
