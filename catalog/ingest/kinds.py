"""What kind of publication a paper is (`paper.kind`): the names the catalog stores, the
spellings each input format uses for them, and how `catalog show` names them.

NULL (None) is "not known": paper lists say nothing about it, and neither does a type this
module does not know. Imports never fail over a type.
"""

from __future__ import annotations

import re

# The stored names, in the order docs/schema.md lists them.
KINDS = ("article", "conference", "chapter", "book", "thesis", "masters", "report", "preprint")

# How `catalog show` and the TUI name them.
LABELS = {
    "article": "journal article", "conference": "conference paper", "chapter": "book chapter",
    "book": "book", "thesis": "thesis", "masters": "master's thesis", "report": "report",
    "preprint": "preprint",
}

# A type that says only "not in a journal or proceedings" (BibTeX @misc, @unpublished, RIS UNPB,
# CSL `article`): a preprint when the record has an arXiv id, else not known.
GENERIC = "generic"

# Each format's type names, compared without case, spaces, `-` or `_`: BibTeX and biblatex
# entry types, RIS TY codes, CSL types, Zotero item types (CSV `Item Type`), and the stored
# names themselves (this catalog's own csv and jsonl `kind` column).
_NAMES: dict[str, str] = {}
for _kind, _spellings in {
    "article": ("article", "journalarticle", "articlejournal", "jour", "ejour", "jfull", "journal"),
    "conference": ("conference", "inproceedings", "conferencepaper", "paperconference", "conf",
                   "cpaper", "proceedingspaper"),
    "chapter": ("chapter", "incollection", "inbook", "booksection", "chap", "echap", "bookchapter"),
    "book": ("book", "mvbook", "ebook", "edbook", "booklet"),
    "thesis": ("thesis", "phdthesis", "thes", "dissertation", "doctoralthesis"),
    "masters": ("masters", "mastersthesis", "masterthesis"),
    "report": ("report", "techreport", "rprt"),
    "preprint": ("preprint",),
    GENERIC: ("misc", "online", "electronic", "www", "unpublished", "unpb", "manuscript"),
}.items():
    for _name in _spellings:
        _NAMES[_name] = _kind

_SQUASH = re.compile(r"[\s_-]+")
_ARXIV_VENUE = re.compile(r"^(arxiv|corr)\b", re.IGNORECASE)


def named(value: object, *, article: str = "article") -> str | None:
    """The kind (or GENERIC) a format's type name stands for; None for a name not known.
    `article`: what the bare word `article` means in this column: a journal article for BibTeX
    and the catalog's own `kind`, GENERIC for CSL-JSON's `type` (a manuscript or preprint)."""
    if not isinstance(value, str):
        return None
    name = _SQUASH.sub("", value.strip().lower())
    if name == "article":
        return article
    return _NAMES.get(name)


# A thesis's own type (biblatex's `type`, RIS M3, CSL `genre`) that says it is a master's:
# "Master's thesis", "MSc thesis", "M.Sc.", "MPhil", biblatex's `mathesis`.
_MASTERS = re.compile(r"master|\bm\.?\s?sc\b|\bm\.?\s?phil\b|\bmathesis\b|\bm\.?\s?a\.?\s+thesis",
                      re.IGNORECASE)
# How exports name a master's thesis where the format has one thesis type (RIS M3, CSL genre).
MASTERS_GENRE = "Master's thesis"


def thesis(kind: str | None, genre: object) -> str | None:
    """`kind`, or "masters" for a thesis whose own type (`genre`) says it is a master's."""
    if kind == "thesis" and isinstance(genre, str) and _MASTERS.search(genre):
        return "masters"
    return kind


def settle(kind: str | None, *, arxiv_id: str | None, venue: str | None) -> str | None:
    """A record's kind once its arXiv id and venue are known: a generic type is a preprint when
    the record has an arXiv id, and so is a journal article whose journal is arXiv or CoRR
    (DBLP, Semantic Scholar and Google Scholar write arXiv papers as @article)."""
    if kind == GENERIC:
        return "preprint" if arxiv_id else None
    if kind == "article" and arxiv_id and venue and _ARXIV_VENUE.match(venue):
        return "preprint"
    return kind if kind in LABELS else None


def label(kind: str | None) -> str | None:
    """How the catalog names a stored kind ("journal article"); None when not known."""
    return LABELS.get(kind) if kind else None
