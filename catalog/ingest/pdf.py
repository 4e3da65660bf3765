"""What a PDF's text says about the paper it holds: DOIs and arXiv ids printed on its front
pages (not those of its reference list), a title, authors and an abstract as far as the file
reveals them, and its front text in the form matching compares (catalog/importing/pdfs.py).

Works on catalog/attachments/pdftext.py's PdfText; reads no file and loads no PDF library itself.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from catalog.ingest import fields

FRONT_PAGES = 2  # where a paper prints its own identifiers, title and abstract
FRONT_CHARS = 12_000
MAX_ABSTRACT = 3_000
# A heading that starts the reference list: identifiers after it are other papers'.
_REFERENCES = re.compile(r"(?im)^\s*(?:\d+\.?\s*|[IVX]+\.\s*)?(references|bibliography|literature cited)\s*$")
_ABSTRACT = re.compile(r"(?i)\babstract\b[\s.:—–-]*")
_ABSTRACT_END = re.compile(
    r"(?m)^\s*(?i:(?:1|I)\.?\s+introduction|introduction\b|keywords\b|key\s*words\b|index terms\b|ccs concepts\b"
    r"|categories and subject descriptors\b|general terms\b|author keywords\b|acm classification\b)"
    # the first numbered section, whatever its name ("1 Background"); case kept: "1 in 5 ..." is no heading
    r"|^\s*1\.?\s+[A-Z][a-z]+(?:\s+[A-Z]?[a-z]+){0,3}\s*$")
_COPYRIGHT = re.compile(r"(?:copyright|©|\(c\))\s*(?:\S{1,2}\s*)?((?:19|20)\d\d)\b", re.IGNORECASE)
_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+", re.IGNORECASE)
_ARXIV = re.compile(r"arxiv\s*:\s*(\d{4}\.\d{4,5}|[a-z][a-z.-]+/\d{7})(v\d+)?", re.IGNORECASE)
# arXiv's stamp in the margin of page 1: "arXiv:2401.00001v2 [cs.LG] 5 Jan 2024"; PDFium may
# give it without the "arXiv:" when the stamp is drawn letter by letter.
_STAMP = re.compile(r"\b(\d{4}\.\d{4,5})v\d+\s*\[[a-z-]+(?:\.[A-Za-z]{2})?\]")
# Lines a first page prints above its title, and titles that are file names.
_NOT_TITLE = re.compile(r"(?i)^(microsoft word|untitled|paper\s*\d*$|doi|arxiv|proceedings|journal|vol\.|preprint"
                        r"|published|accepted|under review|to appear|in submission|workshop|conference)"
                        r"|\.(docx?|pdf|tex|dvi)$")
# A journal's running head or a copyright line in large type: "(2014), 26:1, 147–154", "©2023".
_CITATION = re.compile(r"\((?:19|20)\d\d\)|\b\d+\s*:\s*\d+\s*,|©|\bvol\.\s*\d|\bpp\.\s*\d|(?i:\bissn\b)")
_WORDS = re.compile(r"[^\W_]+")
_JOINING = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to", "via", "with"}


@dataclass
class PdfFacts:
    front: str  # pages 1-2 up to a reference list, as compare() makes text
    dois: list[str] = field(default_factory=list)  # found first first
    arxiv_ids: list[str] = field(default_factory=list)
    title: str | None = None
    authors: str | None = None
    abstract: str | None = None
    year: int | None = None


def compare(text: str) -> str:
    """Text as matching compares it: lower case, words only, hyphenation at line ends undone."""
    text = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", unicodedata.normalize("NFKC", text))  # NFKC: ligatures (ﬁ) as letters
    return " ".join(_WORDS.findall(text.lower()))


def front_text(pages: list[str]) -> str:
    """The first pages' text, cut where a reference list starts."""
    text = "\n".join(pages[:FRONT_PAGES])[:FRONT_CHARS]
    cut = _REFERENCES.search(text)
    return text[:cut.start()] if cut else text


def facts(pages: list[str], metadata: dict[str, str], headings: list[str] = ()) -> PdfFacts:
    front = front_text(pages)
    described = " ".join(metadata.get(name, "") for name in ("Subject", "Keywords", "Title"))
    dois = _unique(fields.doi(m[0]) for m in _DOI.finditer(described + "\n" + front))
    arxiv = _unique([*(m[1].lower() for m in _ARXIV.finditer(described + "\n" + front)),
                     *(m[1] for m in _STAMP.finditer(front))])
    return PdfFacts(front=compare(front), dois=dois, arxiv_ids=arxiv, title=_title(metadata, front, headings),
                    authors=_authors(metadata), abstract=_abstract(front), year=_year(metadata, front))


def _unique(values) -> list[str]:
    return [v for v in dict.fromkeys(values) if v]


def _title(metadata: dict[str, str], front: str, headings=()) -> str | None:
    """The file's Title when it looks like one; else page 1's largest type that reads as a
    title (3 to 40 words, mostly letters, not a journal's name); else the first line of page 1
    that reads as one (3 to 30 words, not a header, a date or an arXiv stamp)."""
    given = " ".join(metadata.get("Title", "").split())
    if 3 <= len(given.split()) <= 40 and not _NOT_TITLE.search(given):
        return given
    for run in headings:
        words = run.split()
        if (len(words) <= 40 and run[:1].isalnum() and not _NOT_TITLE.search(run) and not _CITATION.search(run)
                and sum(c.isalpha() for c in run) > 0.6 * len(run.replace(" ", ""))
                and sum(len(w) > 1 for w in words) >= 0.7 * len(words)):  # not letters spaced out (a logo)
            return run
    lines = [" ".join(line.split()) for line in front.splitlines()[:12]]
    for number, line in enumerate(lines):
        words = line.split()
        if (3 <= len(words) <= 30 and not _NOT_TITLE.search(line) and not _STAMP.search(line)
                and "@" not in line and sum(c.isalpha() for c in line) > 0.7 * len(line.replace(" ", ""))):
            following = lines[number + 1] if number + 1 < len(lines) else ""
            # A title broken over two lines: a long first line (it wrapped) or one ending in a
            # word no title ends with, then a short rest with no names' commas, marks or digits.
            wrapped = len(line) >= 45 or words[-1].lower() in _JOINING
            if (following and wrapped and len(following.split()) <= 6 and line[-1:].isalpha()
                    and not re.search(r"[,@\d∗*†‡§#$]|(?i:author)", following)):
                return f"{line} {following}"
            return line
    return None


def _authors(metadata: dict[str, str]) -> str | None:
    given = " ".join(metadata.get("Author", "").split())
    if not given or given.lower() in ("unknown", "author", "admin", "user") or given.startswith("ARRAY("):
        return None
    return fields.any_authors(given, semicolons=";" in given)


def _abstract(front: str) -> str | None:
    start = _ABSTRACT.search(front)
    if start is None:
        return None
    rest = front[start.end():]
    end = _ABSTRACT_END.search(rest)
    text = rest[:end.start()] if end else rest[:MAX_ABSTRACT]
    text = " ".join(re.sub(r"(\w)-\n(\w)", r"\1\2", text).split())[:MAX_ABSTRACT]
    return text if len(text.split()) >= 20 else None


def _year(metadata: dict[str, str], front: str) -> int | None:
    """The year of arXiv's stamp, else of a copyright line on the front pages (the file's own
    dates are when it was made, which may be years later)."""
    stamp = _STAMP.search(front)
    if stamp:
        return fields.year(front[stamp.end():stamp.end() + 20])
    printed = _COPYRIGHT.search(front)
    return int(printed[1]) if printed else None
