"""CSL-JSON (what Zotero, Pandoc and citeproc read): an array of items, valid against the CSL
1.0.2 input schema. A paper whose kind is known (catalog/ingest/kinds.py) has its CSL type:
article-journal, paper-conference, chapter, book, thesis (genre "Master's thesis" for a
master's), report, or `article` for a preprint.
One whose kind is not known (a paper list's) is `paper-conference`, or `article` for arXiv
preprints and papers without a venue. The venue is the container-title; an arXiv id is the
`number` (arXiv:ID)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from catalog.ingest import kinds
from catalog.export.citekeys import citation_keys
from catalog.export.kept import keywords_hold_tags, record_in, says
from catalog.ingest.people import is_organisation, name_parts, split_people
from catalog.results import ExportPaper


def person(name: str) -> dict[str, str]:
    given, family = name_parts(name)
    return {"family": family, "given": given} if given and not is_organisation(name) else {"literal": name}


# An item's call number (where to find it in a library: this catalog) carries the paper's
# key, so a catalog rebuilt from this file gives every paper its key again.
KEY_PREFIX = "catalog:"

# kind -> CSL type
TYPES = {"article": "article-journal", "conference": "paper-conference", "chapter": "chapter",
         "book": "book", "thesis": "thesis", "masters": "thesis", "report": "report",
         "preprint": "article"}


def item(p: ExportPaper, key: str) -> dict[str, object]:
    preprint = not p.venue or p.venue.lower() == "arxiv"
    kind = TYPES.get(p.kind or "") or ("article" if preprint else "paper-conference")
    out: dict[str, object] = {"id": key, "type": kind}
    if p.exported_title:
        out["title"] = p.exported_title
    people = [n for n in split_people(p.authors) if n != "et al."]
    if people:
        # "et al." stays what it is: more authors, not a person (a re-import reads it so)
        out["author"] = [person(n) for n in people] + (
            [{"literal": "et al."}] if "et al." in split_people(p.authors) else [])
    if p.kind == "masters":  # CSL has one thesis type: its genre says which (as Zotero writes it)
        out["genre"] = kinds.MASTERS_GENRE
    if p.venue:
        out["container-title"] = p.venue
    if p.year:
        out["issued"] = {"date-parts": [[p.year]]}
    if p.abstract:
        out["abstract"] = p.abstract
    if p.doi:
        out["DOI"] = p.doi
    if p.arxiv_id:
        out["number"] = f"arXiv:{p.arxiv_id}"
    if p.link:
        out["URL"] = p.link
    if p.tags:
        out["keyword"] = ", ".join(p.tags)
    if p.notices:  # a retraction or correction travels with the citation
        out["note"] = p.notice_note
    out["call-number"] = KEY_PREFIX + p.key
    return out


# CSL 1.0.2's variables by the kind of value they hold (tests/data/csl-data.schema.json).
_NAMES = frozenset(
    "author chair collection-editor compiler composer container-author contributor curator director "
    "editor editorial-director executive-producer guest host interviewer illustrator narrator organizer "
    "original-author performer producer recipient reviewed-author script-writer series-creator "
    "translator".split())
_DATES = frozenset("accessed available-date event-date issued original-date submitted".split())
_NUMBERS = frozenset(
    "chapter-number citation-number collection-number edition first-reference-note-number issue "
    "locator number number-of-pages number-of-volumes page page-first part printing supplement "
    "volume".split())
_STRINGS = frozenset(
    "abstract annote archive archive_collection archive_location archive-place authority call-number "
    "citation-key citation-label collection-title container-title container-title-short dimensions "
    "division DOI event event-title event-place genre ISBN ISSN jurisdiction keyword language license "
    "medium note original-publisher original-publisher-place original-title part-title PMCID PMID "
    "publisher publisher-place references reviewed-genre reviewed-title scale section source status "
    "title title-short URL version year-suffix shortTitle journalAbbreviation".split())
TYPES_CSL = frozenset(
    "article article-journal article-magazine article-newspaper bill book broadcast chapter classic "
    "collection dataset document entry entry-dictionary entry-encyclopedia event figure graphic hearing "
    "interview legal_case legislation manuscript map motion_picture musical_score pamphlet "
    "paper-conference patent performance periodical personal_communication post post-weblog regulation "
    "report review review-book software song speech standard thesis treaty webpage".split())


def _fits(name: str, value: object) -> bool:
    """Whether a kept value is what CSL holds under this name."""
    if name in _STRINGS:
        return isinstance(value, str)
    if name in _NUMBERS:
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)
    if name in _NAMES:
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
    if name in _DATES:
        return isinstance(value, (str, dict))
    return name == "categories" and isinstance(value, list)


def kept_item(p: ExportPaper, key: str) -> dict[str, object] | None:
    """A paper imported from CSL-JSON as its item was written: every variable as the file had
    it (the `id` is the cite key), keys CSL does not define under `custom` (read back as
    keys of the item), then what the catalog knows that the item lacks; the paper's tags as
    `keyword` (the item's own when they say the same)."""
    record = record_in(p, ("json",))
    if record is None or record.entry_type not in TYPES_CSL:
        return None
    out: dict[str, object] = {"id": key, "type": record.entry_type}
    custom: dict[str, object] = {}
    for name, value in record.fields:
        if name in ("id", "type") or name in out or name in custom:
            continue
        if name == "custom" and isinstance(value, dict):
            custom.update({k: v for k, v in value.items() if k not in custom})
        elif _fits(name, value):
            out[name] = value
        else:
            custom[name] = value
    keyword = out.get("keyword")
    if not (isinstance(keyword, str) and keywords_hold_tags(keyword.split(","), p.tags)):
        out.pop("keyword", None)
    for name, value in item(p, key).items():
        # Not what the item says already in its own way: a link only the DOI or arXiv id
        # gives, an arXiv id it holds elsewhere, the venue "arXiv" the catalog gives preprints.
        if (name == "URL" and not p.url or name == "number" and says(record, p.arxiv_id)
                or name == "container-title" and str(value).lower() == "arxiv"):
            continue
        if name == "note" and isinstance(out.get("note"), str) and str(value) not in out["note"]:
            out["note"] = f"{out['note']}. {value}"  # the item's own note, then the notices
        out.setdefault(name, value)
    if custom:
        out["custom"] = custom
    return out


def write(papers: Sequence[ExportPaper], out: TextIO) -> None:
    out.write("[")
    for i, (p, key) in enumerate(zip(papers, citation_keys(papers))):
        made = kept_item(p, key) or item(p, key)
        out.write(("," if i else "") + "\n  " + json.dumps(made, ensure_ascii=False))
    out.write("\n]\n")
