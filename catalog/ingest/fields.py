"""Field values as other tools write them, made into what a PaperRecord holds.

Shared by the BibTeX, JSON and CSV readers: names to "First Last, First Last", years from
dates, DOIs and arXiv ids from the many places exports put them, TeX in titles to Unicode.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from catalog.ingest import kinds
from catalog.text import tex
from catalog.text.terminal import safe
from catalog.text.normalize import normalize
from catalog.ingest.paperlist import MAX_ABSTRACT_CHARS, YEAR_RANGE
from catalog.ingest.people import PARTICLES, name_parts, split_people
from catalog.ingest.records import PaperRecord

MAX_TITLE_CHARS = 2_000
MAX_FIELD_CHARS = 20_000


class EntryError(Exception):
    """One entry cannot be used; the reader reports it with file and line and goes on."""


# --- text -------------------------------------------------------------------------------

_SPACES = re.compile(r"\s+")
_UNESCAPED_PERCENT = re.compile(r"(?<!\\)%")
_MATH_SPAN = re.compile(r"\$[^$]*\$")


def squash(value: str) -> str:
    """Controls removed, whitespace collapsed (non-breaking spaces included)."""
    return _SPACES.sub(" ", safe(value).replace("\xa0", " ")).strip()


_LOGO_THEN_SPACE = re.compile(r"\\(" + "|".join(sorted(tex.LOGOS, key=len, reverse=True)) + r")(?=\s)")


@lru_cache(maxsize=4096)
def _latex_to_text(value: str) -> str:
    # TeX swallows the space after `\BibTeX`; people writing titles mean it ("BibTeX styles").
    value = _LOGO_THEN_SPACE.sub(r"\\\1{}", value)
    try:
        return tex.latex_converter("field").latex_to_text(_UNESCAPED_PERCENT.sub(r"\\%", value))
    except Exception:  # pylatexenc is tolerant, but imported text is arbitrary
        return re.sub(r"\\[A-Za-z]+|[{}\\]", "", value)


# What BibTeX writers (this catalog's export included) escape, undone without pylatexenc,
# which costs about a millisecond a title. "\x01"/"\x02" hold escaped braces meanwhile.
_SIMPLE_ESCAPES = {
    r"\&": "&", r"\%": "%", r"\_": "_", r"\#": "#", r"\$": "$", r"\{": "\x01", r"\}": "\x02",
    r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^",
    r"\textbraceleft{}": "\x01", r"\textbraceright{}": "\x02",
}
_SIMPLE_RE = re.compile("|".join(re.escape(k) for k in sorted(_SIMPLE_ESCAPES, key=len, reverse=True)))


def _simple_tex(value: str) -> str | None:
    """The text of a value holding only escapes and braces; None when it needs pylatexenc."""
    rest = _SIMPLE_RE.sub("", value)
    if "\\" in rest or "~" in rest or "--" in rest or "`" in rest or "''" in rest:
        return None
    out = _SIMPLE_RE.sub(lambda m: _SIMPLE_ESCAPES[m[0]], value)
    return out.replace("{", "").replace("}", "").replace("\x01", "{").replace("\x02", "}")


def tex_to_text(value: str) -> str:
    """A short BibTeX value (title, name, venue) as display text: `{\\"u}` -> ü, `{BERT}` -> BERT,
    `\\&` -> &, math spans rendered (`$\\ell_1$` -> ℓ₁)."""
    value = squash(value)
    if "\\" in value or "{" in value or "~" in value or "--" in value or "``" in value:
        simple = _simple_tex(value)
        value = squash(simple if simple is not None else _latex_to_text(value))
    return squash(tex.render(value)) if "$" in value else value


# Accents and special letters written as TeX (`{\"u}`, `\'e`, `{\ss}`): text/tex.py's ACCENT.
# The literal first and the lookbehind after it (the brace and the character before it), so the
# regex engine skips to candidates: many times faster than a pattern that starts with the lookbehind.
_PROTECTING_BRACES = re.compile(r"\{(?<![\\\w}\]^_]\{)([^{}\\$]*)\}")


def tidy_abstract(value: str) -> str:
    """A BibTeX abstract keeps its TeX and Markdown (they are rendered for display, as for paper
    lists), but loses what only BibTeX needs: accent macros and braces protecting capitals."""
    value = value.strip()
    if "\\" not in value and "{" not in value:
        return value
    parts = re.split(r"(\$[^$]*\$)", value)  # math spans stay exactly as written
    for i in range(0, len(parts), 2):
        part = tex.ACCENT.sub(lambda m: tex.accented(m[0]), parts[i])
        while True:
            part, n = _PROTECTING_BRACES.subn(r"\1", part)
            if not n:
                break
        parts[i] = part
    return "".join(parts)


# --- people as files write them (the catalog's own string of names: people.py) ----------

_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}


def _person(name: str) -> str:
    """'Last, First', 'Last, Jr., First' or 'First von Last' -> 'First von Last Jr.' (BibTeX's
    name parts, as bibtexparser reads them); a name with no comma is kept as written."""
    name = squash(name)
    if name.lower() in {"others", "et al.", "et al"}:
        return "et al."
    if not 1 <= name.count(",") <= 2:
        return " ".join(p.strip() for p in name.split(",") if p.strip())
    last, *rest = (p.strip() for p in name.split(","))
    if len(rest) == 2 and rest[1].lower() in _SUFFIXES and rest[0].lower() not in _SUFFIXES:
        # 'Fulton, James E., Jr.' (JabRef's example library, DOI lookups): the suffix written
        # last, where BibTeX expects the first name; read as 'Fulton, Jr., James E.'.
        name = f"{last}, {rest[1]}, {rest[0]}"
    from bibtexparser.middlewares.names import InvalidNameError, parse_single_name_into_parts

    try:
        parts = parse_single_name_into_parts(name, strict=False)
    except InvalidNameError:
        return " ".join(p.strip() for p in name.split(",") if p.strip())
    return " ".join(parts.first + parts.von + parts.last + parts.jr)


def bibtex_authors(value: str) -> str | None:
    """'Vaswani, Ashish and Shazeer, Noam and others' -> 'Ashish Vaswani, Noam Shazeer, et al.'"""
    from bibtexparser.middlewares.names import split_multiple_persons_names

    names = [_person(tex_to_text(n) if ("\\" in n or "{" in n or "~" in n) else n)
             for n in split_multiple_persons_names(squash(value))]
    return join_people(names)


def join_people(names: list[str]) -> str | None:
    names = [n for n in (squash(n).replace(",", "") if n != "et al." else n for n in names) if n]
    return ", ".join(names) or None


def _one_last_first(value: str) -> bool:
    """'Burke, Shane' or 'van der Berg, Jan P.': one person written "Last, First" (a family name
    of one word, particles aside, and at most three given names), not two people."""
    last, _, first = value.partition(",")
    family, given = last.split(), first.split()
    return (bool(family) and 1 <= len(given) <= 3
            and all(w.lower() in PARTICLES for w in family[:-1]))


def any_authors(value: object, *, semicolons: bool = False) -> str | None:
    """Authors as JSON and CSV files hold them: a list of names or of CSL name objects, or one
    string ("A and B", "Last, First; Last, First" or already "First Last, First Last").
    `semicolons`: the file separates people with `;` only (Zotero's CSV), so "Centers for
    Disease Control and Prevention" and "Burke, Shane" are one person each."""
    if value is None:
        return None
    if isinstance(value, list):
        names = []
        for item in value:
            if isinstance(item, dict):
                literal = item.get("literal") or item.get("name")
                given = " ".join(str(item.get(k) or "") for k in ("given", "dropping-particle")).strip()
                family = " ".join(str(item.get(k) or "") for k in ("non-dropping-particle", "family")).strip()
                names.append(str(literal) if literal else f"{given} {family}".strip())
            elif item is not None:
                names.append(_person(str(item)))
        return join_people(names)
    value = squash(str(value))
    if not value:
        return None
    if semicolons or ";" in value:
        return join_people([_person(n) for n in value.split(";")])
    if re.search(r"\sand\s", value, re.IGNORECASE):
        return bibtex_authors(value)
    if value.count(",") == 1 and _one_last_first(value):
        return join_people([_person(value)])
    return join_people(value.split(","))


# --- identifiers and numbers ---------------------------------------------------------------

_DOI = re.compile(r"\b(10\.\d{4,9}/\S+)", re.IGNORECASE)
_ARXIV_NEW = r"\d{4}\.\d{4,5}"
_ARXIV_OLD = r"[a-z][a-z.-]+/\d{7}"
_ARXIV_ID = re.compile(rf"(?:arxiv[:./\s]*)?(?:abs/|pdf/)?({_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?", re.IGNORECASE)
_ARXIV_IN = re.compile(rf"arxiv(?:\.org/(?:abs|pdf)/|\s+preprint\s+(?:arxiv:\s*)?|[:\s]\s*|\.)\s*"
                       rf"({_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")


def doi(value: object) -> str | None:
    """A DOI in lower case (they are case-insensitive), from a bare DOI, doi: or a doi.org link."""
    if not value:
        return None
    value = str(value)
    if "%" in value:  # a doi.org link percent-encodes (10.1000%2Fx); so did old exports (%5C)
        from urllib.parse import unquote

        value = unquote(value)
    m = _DOI.search(value)
    return m[1].rstrip(".,;)").lower() if m else None


def doi_link(url: object) -> str | None:
    """The DOI of a doi.org link (`https://doi.org/10.1177/0193...`), else None: where a record's
    DOI field holds a short DOI (Zotero's `10/bqwfc8`), its link still names the paper."""
    return doi(url) if isinstance(url, str) and _DOI_LINK.match(url.strip()) else None


_DOI_LINK = re.compile(r"https?://(dx\.)?doi\.org/10\.", re.IGNORECASE)


def arxiv_id(value: object, *, bare: bool = False) -> str | None:
    """An arXiv id without version from 'arXiv:1706.03762v5', an arxiv.org link, 'arXiv preprint
    arXiv:1706.03762' or an arXiv DOI; `bare` also accepts a plain '1706.03762' (eprint fields)."""
    if not value:
        return None
    value = str(value)
    if "{" in value:  # journal = {Ar{X}iv:1312.4400}
        value = value.replace("{", "").replace("}", "")
    m = _ARXIV_IN.search(value)
    if m is None and bare:
        m = _ARXIV_ID.fullmatch(value.strip())
    return m[1].lower() if m else None


def year(value: object) -> int | None:
    """A year from 2017, "2017", "2017-12-04", "Dec 2017" or CSL {"date-parts": [[2017, 12]]}."""
    if isinstance(value, dict):
        parts = value.get("date-parts")
        if parts and isinstance(parts, list) and parts[0]:
            value = parts[0][0]
        else:
            value = value.get("raw") or value.get("literal")
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        found = int(value)
    else:
        m = _YEAR.search(str(value))
        if m is None:
            return None
        found = int(m[1])
    return found if found in YEAR_RANGE else None


# Long proceedings names exports carry, and the short names the catalog's venue: filter uses.
_VENUES = (
    (r"\bfindings of the association for computational linguistics\b", "Findings of ACL"),
    (r"\bneural information processing systems\b|\bneurips\b|\bnips\b", "NeurIPS"),
    (r"\binternational conference on machine learning\b|\bicml\b", "ICML"),
    (r"\binternational conference on learning representations\b|\biclr\b", "ICLR"),
    (r"\bcomputer vision and pattern recognition\b|\bcvpr\b", "CVPR"),
    (r"\binternational conference on computer vision\b|\biccv\b", "ICCV"),
    (r"\beuropean conference on computer vision\b|\beccv\b", "ECCV"),
    (r"\bempirical methods in natural language processing\b|\bemnlp\b", "EMNLP"),
    (r"\bnorth american chapter of the association for computational linguistics\b|\bnaacl\b", "NAACL"),
    (r"\bannual meeting of the association for computational linguistics\b", "ACL"),
    (r"\baaai conference on artificial intelligence\b", "AAAI"),
    (r"\binternational joint conference on artificial intelligence\b|\bijcai\b", "IJCAI"),
    (r"\bconference on learning theory\b|\bcolt\b", "COLT"),
    (r"\bartificial intelligence and statistics\b|\baistats\b", "AISTATS"),
    (r"\buncertainty in artificial intelligence\b", "UAI"),
    (r"\bknowledge discovery and data mining\b", "KDD"),
    (r"\btransactions on machine learning research\b", "TMLR"),
    (r"\bjournal of machine learning research\b", "JMLR"),
    (r"^arxiv\b|\barxiv preprint\b|^corr\b", "arXiv"),
)
_VENUE_RES = tuple((re.compile(p, re.IGNORECASE), short) for p, short in _VENUES)


def venue(value: object) -> str | None:
    """'Advances in Neural Information Processing Systems' -> 'NeurIPS'; other names kept."""
    if not value:
        return None
    name = tex_to_text(str(value))
    for pattern, short in _VENUE_RES:
        if pattern.search(name):
            return short
    return name[:200] or None


# --- one record ---------------------------------------------------------------------------

CATALOG_KEY = re.compile(r"[0-9a-hjkmnp-tv-z]{7,52}")


def plain_title(value: str) -> str:
    """A title from JSON or CSV: plain text, but `$...$` math rendered like abstracts."""
    value = squash(value)
    return squash(tex.render(value)) if "$" in value else value


def record(values: dict[str, object], *, label: str, position: int, line: int,
           venue_default: str | None = None, year_default: int | None = None,
           tex: bool = False) -> PaperRecord:
    """A PaperRecord from normalised field values; EntryError if the entry cannot be a paper.
    `tex`: the title is BibTeX (accents as macros, braces protecting capitals)."""
    title = (tex_to_text if tex else plain_title)(str(values["title"])) if values.get("title") else None
    abstract = str(values.get("abstract") or "").strip()
    abstract = safe(abstract).replace("\r\n", "\n").strip() if abstract else ""
    described = None
    if not title and not abstract:
        described = headline_from_fields(values)
        if described is None:
            raise EntryError(f"{label} has no title or abstract, nor a venue, authors or identifier to name it by")
    if len(abstract) > MAX_ABSTRACT_CHARS:
        raise EntryError(f"{label}: abstract is {len(abstract):,} characters; "
                         f"an abstract should be under {MAX_ABSTRACT_CHARS:,}")
    if title and len(title) > MAX_TITLE_CHARS:
        raise EntryError(f"{label}: title is {len(title):,} characters; a title should be under "
                         f"{MAX_TITLE_CHARS:,}")
    authors = values.get("authors")
    venue, year = values.get("venue"), values.get("year")
    if isinstance(venue, str) and (m := _VENUE_YEAR.search(venue)) and m.start() > 0:
        # "Neuroscience 2006" (and this catalog's own `booktitle = {ICML 2024}`): the venue is
        # Neuroscience, the year 2006, as a paper list header says it.
        if int(m[1]) in YEAR_RANGE and (not year or year == int(m[1])):
            venue, year = venue[:m.start()], year or int(m[1])
    found = PaperRecord(
        abstract=abstract, position=position, line=line,
        title=title or None,
        authors=squash(str(authors))[:MAX_FIELD_CHARS] if authors else None,
        venue=venue or venue_default,  # type: ignore[arg-type]
        year=year or year_default,  # type: ignore[arg-type]
        doi=values.get("doi"),  # type: ignore[arg-type]
        arxiv_id=values.get("arxiv_id"),  # type: ignore[arg-type]
        url=values.get("url"),  # type: ignore[arg-type]
    )
    if found.arxiv_id is None and found.doi and found.doi.startswith("10.48550/arxiv."):
        found.arxiv_id = found.doi.removeprefix("10.48550/arxiv.")
    if found.venue is None and found.arxiv_id:
        found.venue = "arXiv"
    found.kind = kinds.settle(values.get("kind"), arxiv_id=found.arxiv_id, venue=found.venue)  # type: ignore[arg-type]
    if found.url and implied_link(found.url, found.doi, found.arxiv_id):
        found.url = None  # the catalog derives this link; exports write it
    key = values.get("key")
    if isinstance(key, str) and CATALOG_KEY.fullmatch(key):
        found.extra["key"] = key
    if described:
        # Shown, searched and hashed like a title, never exported as one; with the venue and
        # year as the record ends up with them ("Neuroscience 2006" is Neuroscience, 2006).
        found.extra["headline"] = headline_from_fields({**values, "venue": found.venue, "year": found.year}) \
            or described
    return found


_FIRST_PAGE = re.compile(r"[^\s,;–—-]+")


def headline_from_fields(values: dict[str, object]) -> str | None:
    """A headline for a record with neither title nor abstract (a physics reference, a Zotero
    row of authors and a year), from what it has: `Phys. Rev. B 45, 1234 (1992)`, `Nobody (2020)`,
    `doi:10.1103/physrevb.45.1234`. None when nothing but a year (or nothing) is left to name it by."""
    def text(name: str) -> str:
        value = values.get(name)
        return squash(str(value).replace("{", "").replace("}", "")) if value not in (None, "") else ""

    venue, volume, year = text("venue"), text("volume"), values.get("year")
    page = m[0] if (m := _FIRST_PAGE.search(text("pages"))) else ""
    where = " ".join(filter(None, (venue, volume)))
    if page:
        where = f"{where}, {page}" if where else f"p. {page}"
    if not where:
        people = [name_parts(n)[1] or n for n in split_people(str(values.get("authors") or "")) if n != "et al."]
        where = ", ".join(people[:3]) + (" et al." if len(people) > 3 else "")
    if not where:
        found_doi, arxiv = values.get("doi"), values.get("arxiv_id")
        where = f"doi:{found_doi}" if found_doi else f"arXiv:{arxiv}" if arxiv else ""
    if not where:
        return None
    return f"{where} ({year})" if year else where


_VENUE_YEAR = re.compile(r"[\s,]+(\d{4})$")


def implied_link(link: str, known_doi: str | None, known_arxiv: str | None) -> bool:
    """Whether a URL only restates the DOI (https://doi.org/DOI) or the arXiv id
    (https://arxiv.org/abs/ID): nothing a paper needs to keep, and what exports write as its link."""
    m = _IMPLIED.match(link)
    if not m:
        return False
    if m["doi"]:
        return known_doi is not None and doi(m["doi"]) == known_doi
    return known_arxiv is not None and arxiv_id(link) == known_arxiv


_IMPLIED = re.compile(r"https?://(?:(?:dx\.)?doi\.org/(?P<doi>10\.\S+)"
                      r"|(?:www\.|export\.)?arxiv\.org/abs/(?P<arxiv>\S+?)(?:v\d+)?)/?$", re.IGNORECASE)


def title_key(title: str | None) -> str:
    """What two titles share when they name the same paper: words only, case and accents folded."""
    if not title:
        return ""
    folded = unicodedata.normalize("NFKD", normalize(title))
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return " ".join(re.findall(r"\w+", folded))


def unescape_text(value: str) -> str:
    """Undo BibTeX escapes (`\\%`, `\\&`, `\\_`, `\\textbraceleft{}`...) outside `$...$` math,
    keeping TeX commands and braces: what an exported abstract was before it was escaped."""
    if "\\" not in value:
        return value
    parts = re.split(r"((?<!\\)\$[^$]*(?<!\\)\$)", value)
    for i in range(0, len(parts), 2):
        parts[i] = _SIMPLE_RE.sub(lambda m: _SIMPLE_ESCAPES[m[0]], parts[i]).replace("\x01", "{").replace("\x02", "}")
    return "".join(parts)


def fold_tex(value: str) -> str:
    """The text with what a BibTeX export and import may change folded away: escapes undone
    (`\\%` is `%`), accent macros as letters and braces that only protect capitals dropped
    outside math. A fingerprint hashes this, so `12\\%` in a paper list and `12%` from a BibTeX
    file are one paper with one key. Escapes are undone inside math too: the exporter and the
    importer do not always agree on where math is (`costs 5$ and 12\\% of 5$`), while the `$`
    that tidy_abstract goes by stay where they are. Text without a backslash or a brace (most)
    is returned as it is."""
    # Until nothing changes: each round trip undoes one level (`96\\\\%` comes back as `96\\%`,
    # then as `96%`), and all of them must give one fingerprint.
    for _ in range(8):
        if "\\" not in value and "{" not in value:
            return value
        folded = _SIMPLE_RE.sub(lambda m: _SIMPLE_ESCAPES[m[0]], value).replace("\x01", "{").replace("\x02", "}")
        folded = tidy_abstract(folded)
        if folded == value:
            return value
        value = folded
    return value
