"""RIS (EndNote, Zotero, Mendeley), written with rispy. A paper whose kind is known
(catalog/ingest/kinds.py) gets its type: JOUR (the journal as T2 and JO), CPAPER (T2 "VENUE YEAR"),
CHAP, BOOK, THES (a master's thesis with M3 "Master's thesis"), RPRT, UNPB (T2 the venue); one whose kind is not known (a paper list's) is
CPAPER, or UNPB for preprints and papers without a venue. Your tags as keywords and your
notes as N1 notes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from catalog.ingest import kinds
from catalog.export.citekeys import citation_keys
from catalog.export.kept import keywords_hold_tags, record_in, says
from catalog.ingest.people import is_organisation, name_parts, split_people
from catalog.results import ExportPaper


def _line(value: str) -> str:
    """RIS is one value per line."""
    return " ".join(value.split())


# The call number (CN: where to find it in a library, this catalog) carries the paper's key,
# so a catalog rebuilt from this file gives every paper its key again.
KEY_PREFIX = "catalog:"

# kind -> RIS type
TYPES = {"article": "JOUR", "conference": "CPAPER", "chapter": "CHAP", "book": "BOOK",
         "thesis": "THES", "masters": "THES", "report": "RPRT", "preprint": "UNPB"}


def entry(p: ExportPaper, key: str) -> dict[str, object]:
    if p.kind in TYPES:
        kind, preprint = TYPES[p.kind], p.kind != "conference"  # only proceedings name the year
    else:
        preprint = not p.venue or p.venue.lower() == "arxiv"
        kind = "UNPB" if preprint else "CPAPER"
    out: dict[str, object] = {"type_of_reference": kind, "id": key}
    if p.exported_title:
        out["title"] = _line(p.exported_title)
    people = [n for n in split_people(p.authors) if n != "et al."]
    if people:
        # "et al." stays what it is: more authors, not a person (a re-import reads it so)
        out["authors"] = [n if is_organisation(n) else ", ".join(filter(None, reversed(name_parts(n))))
                          for n in people] + (["et al."] if "et al." in split_people(p.authors) else [])
    if p.venue:
        out["secondary_title"] = _line(f"{p.venue} {p.year}" if p.year and not preprint else p.venue)
        if kind == "JOUR":
            out["journal_name"] = _line(p.venue)
    if p.kind == "masters":  # RIS has one thesis type: its type of work says which
        out["type_of_work"] = kinds.MASTERS_GENRE
    if p.year:
        out["year"] = str(p.year)
    if p.abstract:
        out["abstract"] = _line(p.abstract)
    if p.doi:
        out["doi"] = p.doi
    if p.link:
        # RIS has no arXiv field: its abstract page carries the id (to readers, and back here).
        arxiv = f"https://arxiv.org/abs/{p.arxiv_id}" if p.arxiv_id else None
        # `;` encoded: RIS readers (rispy) split a UR line at it (a DOI's `...3.0.CO;2-P`)
        out["urls"] = [p.link.replace(";", "%3B")] + ([arxiv] if arxiv and arxiv != p.link else [])
    if p.tags:
        out["keywords"] = list(p.tags)
    if p.notes or p.notices:  # a retraction or correction first: it changes how to read the rest
        out["notes"] = [_line(n.sentence) for n in p.notices] + [_line(n) for n in p.notes]
    out["call_number"] = KEY_PREFIX + p.key
    return out


# What the catalog adds to a kept record that lacks the tag: rispy's name -> RIS tag.
_ADDED = {"id": "ID", "doi": "DO", "urls": "UR", "abstract": "AB", "keywords": "KW", "notes": "N1",
          "call_number": "CN"}


def kept_lines(p: ExportPaper, key: str) -> list[tuple[str, str]] | None:
    """A paper imported from RIS as its record was written: TY and every tag in file order,
    then what the catalog knows that the record lacks (ID, DOI, link, abstract); the paper's
    tags as KW (the record's own when they say the same) and your notes as N1."""
    record = record_in(p, ("ris",))
    if record is None or not record.entry_type:
        return None
    keywords = [str(v) for v in record.values("KW")]
    own_keywords = keywords_hold_tags(keywords, p.tags)
    lines = [("TY", record.entry_type)]
    lines += [(str(t), _line(str(v))) for t, v in record.fields if t != "KW" or own_keywords]
    present = {t for t, _ in lines}
    if "N2" in present:
        present.add("AB")  # an abstract as N2 (older files) is the record's abstract
    made = entry(p, key)
    for name, tag in _ADDED.items():
        values = made.get(name)
        if not values or (tag in present and tag not in ("KW", "N1")) or (tag == "UR" and not p.url):
            continue  # (a link only the DOI or arXiv id gives is not added)
        values = values if isinstance(values, list) else [values]
        if tag == "KW" and own_keywords or tag == "DO" and says(record, p.doi):
            continue
        if tag == "UR":
            values = [v for v in values if not says(record, v)]
        if tag == "N1":
            values = [v for v in values if v not in record.values("N1")]
        lines += [(tag, _line(str(v))) for v in values]
    return lines


def write(papers: Sequence[ExportPaper], out: TextIO) -> None:
    import rispy

    class Writer(rispy.RisWriter):
        def set_header(self, count: int) -> str:
            return ""  # rispy numbers records ("1."), which RIS itself does not have

    for p, key in zip(papers, citation_keys(papers)):
        if (lines := kept_lines(p, key)) is not None:
            out.write("".join(f"{tag}  - {value}\n" for tag, value in lines) + "ER  - \n")
        else:
            rispy.dump([entry(p, key)], out, implementation=Writer)
