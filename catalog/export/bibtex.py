"""BibTeX, written with bibtexparser. A paper whose kind is known (catalog/ingest/kinds.py) gets its
entry type: @article (journal = {VENUE}), @inproceedings (booktitle = {VENUE YEAR}),
@incollection (booktitle), @book (series), @phdthesis or @mastersthesis (school), @techreport (institution),
@misc with eprint fields for a preprint. A paper whose kind is not known (a paper list's) is
@inproceedings (booktitle "VENUE YEAR") or, for arXiv preprints and papers without a venue,
@misc with eprint fields; without authors it is @misc (howpublished and booktitle "VENUE YEAR"),
as the standard styles require an author of @inproceedings. An entry without authors has a
`key` (its title, else its venue), which BibTeX sorts and labels it by.

Titles, names and venues are escaped for TeX (& % $ # _ { } ~ ^ \\), capitals protected with
braces ({BERT}); abstracts keep their own `$...$` math, `\\url{...}` arguments and TeX
commands, with the special characters outside them escaped. Every value keeps its braces balanced, which both BibTeX
and pybtex require.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TextIO

from catalog.export.citekeys import citation_keys
from catalog.export.kept import keywords_hold_tags, record_in, says
from catalog.ingest.people import is_organisation, split_people
from catalog.results import ExportPaper

_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "{": r"\{", "}": r"\}",
}
_TABLE = str.maketrans(_ESCAPES)
_SAFE_BRACES = str.maketrans({**_ESCAPES, "{": r"\textbraceleft{}", "}": r"\textbraceright{}"})
# Math spans and \url{...} arguments, kept as written: `\$` is an escaped dollar, not a
# delimiter, and a URL is verbatim (`\_` in it would be a backslash in the link).
_MATH = re.compile(r"(?<!\\)\$\$.+?(?<!\\)\$\$|(?<!\\)\$(?=\S)[^$]*?(?<![\s\\])\$"
                   r"|\\url\{[^{}\s]*\}", re.S)
# Outside math: a special character not already escaped.
_UNESCAPED = re.compile(r"(?<!\\)([&%#_])")
_BRACE = re.compile(r"\\?[{}]")
_BRACE_WORDS = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}


def balanced(value: str) -> bool:
    depth = 0
    for ch in value:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return False
    return depth == 0


def escape(value: str) -> str:
    """Plain text as TeX: every special character escaped."""
    return value.translate(_TABLE if balanced(value) else _SAFE_BRACES)


# Pairs TeX reads as one character (`--` an en dash, `''` a closing quote, ?` an inverted
# question mark); an empty group between them keeps them two (`-{}-`).
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=')(?=')|(?<=`)(?=`)|(?<=[?!])(?=`)")


def plain(value: str) -> str:
    """Text (a title, a name, a venue) as TeX that reads back as written: escaped, with no
    ligature TeX would make of it (`Read--Satisfy` stays two hyphens, not an en dash)."""
    return _LIGATURE.sub("{}", escape(value))


# A word's letters and digits, between the punctuation around it: "(LoRA)," -> "(", "LoRA", "),".
_WORD = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)


def title(value: str) -> str:
    """As plain text, with words that hold capitals after their first letter kept from lowercasing.

    Only the word goes in braces, not the punctuation around it: `{BERT}: Pre-training` keeps
    the capital a style gives the first word after a colon, `{BERT:} pre-training` would not."""
    words = []
    for word in value.split(" "):
        lead, core, tail = _WORD.match(word).groups()
        if any(c.isupper() for c in core[1:]):
            words.append(plain(lead) + "{" + plain(core) + "}" + plain(tail))
        else:
            words.append(plain(word))
    out = " ".join(words)
    return out if balanced(out) else plain(value)


def abstract(value: str) -> str:
    """TeX and Markdown as written, with the specials outside math and commands escaped.

    Braces stay when they balance; otherwise those outside math become \\textbraceleft{} and
    \\textbraceright{}, and if the math itself does not balance everything is escaped."""
    for braces in (False, True):
        parts = []
        last = 0
        for m in _MATH.finditer(value):
            parts.append(_text_part(value[last:m.start()], braces))
            parts.append(m.group(0))
            last = m.end()
        parts.append(_text_part(value[last:], braces))
        out = "".join(parts)
        if balanced(out):
            return out
    return escape(value)


def _text_part(text: str, braces: bool) -> str:
    text = _UNESCAPED.sub(r"\\\1", text)
    text = re.sub(r"(?<!\\)\$", r"\\$", text)  # a lone dollar is not math
    if braces:
        text = _BRACE.sub(lambda m: _BRACE_WORDS[m[0][-1]], text)
    return text


def url(value: str) -> str:
    return value.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D").replace(" ", "%20")


def doi(value: str) -> str:
    """A DOI as it is (biblatex reads the field verbatim; a backslash stays a backslash), only
    braces that would unbalance the field encoded."""
    return value if balanced(value) else value.replace("{", "%7B").replace("}", "%7D")


def person(name: str) -> str:
    """A name for `author`: an organisation in braces, so it stays one name
    ({Centers for Disease Control and Prevention}), "others" for et al."""
    if name == "et al.":
        return "others"
    return "{" + plain(name) + "}" if is_organisation(name) else plain(name)


# kind -> (entry type, the field that names its venue)
TYPES = {
    "article": ("article", "journal"), "conference": ("inproceedings", "booktitle"),
    "chapter": ("incollection", "booktitle"), "book": ("book", "series"),
    "thesis": ("phdthesis", "school"), "masters": ("mastersthesis", "school"), "report": ("techreport", "institution"),
    "preprint": ("misc", "howpublished"),
}


# A CSL-JSON variable or RIS tag -> the BibTeX field it is, for a paper from one of those files
# (their standard mappings, as Zotero's and JabRef's BibTeX exports use them).
CSL_FIELDS = {"volume": "volume", "issue": "number", "page": "pages", "publisher": "publisher",
              "publisher-place": "address", "edition": "edition", "ISBN": "isbn", "ISSN": "issn",
              "collection-title": "series"}
RIS_FIELDS = {"VL": "volume", "IS": "number", "PB": "publisher", "CY": "address", "ET": "edition",
              "SN": "isbn"}
_CONTAINER = {"json": ("container-title",), "ris": ("T2", "JO", "JF", "BT", "J2")}


def _written(p: ExportPaper) -> tuple[str | None, list[tuple[str, str]]]:
    """A CSL-JSON or RIS record's venue as written (`Proceedings of NAACL-HLT`, never the
    catalog's short form) and its other fields BibTeX has a place for, escaped."""
    record = record_in(p, ("json", "ris"))
    if record is None:
        return None, []
    first = lambda name: next((str(v[0] if isinstance(v, list) and v else v) for v in record.values(name)  # noqa: E731
                               if str(v).strip() and v != []), "")
    venue = next((v for name in _CONTAINER[record.format] if (v := first(name))), None)
    mapping = dict(CSL_FIELDS if record.format == "json" else RIS_FIELDS)
    if record.format == "ris" and p.kind == "article":
        mapping["SN"] = "issn"  # RIS SN is a journal's ISSN, a book's ISBN
    out = [(field, escape(_range(value)) if field == "pages" else plain(value))
           for name, field in mapping.items() if (value := first(name))]
    if record.format == "ris" and (start := first("SP")):
        end = first("EP")
        out.append(("pages", escape(_range(f"{start}-{end}" if end and end != start else start))))
    return venue, out


def _range(pages: str) -> str:
    """A page range as BibTeX writes it: `4171-4186` and `4171–4186` are `4171--4186`."""
    return re.sub(r"(?<=\w)\s*(?:-|–|—)\s*(?=\w)", "--", pages.strip())


def fields(p: ExportPaper) -> tuple[str, list[tuple[str, str]]]:
    """The entry type and its fields for one paper."""
    out: list[tuple[str, str]] = [("title", title(p.exported_title))] if p.exported_title else []
    people = split_people(p.authors)
    if people:
        out.append(("author", " and ".join(person(n) for n in people)))
    written, more = _written(p)
    if p.kind in TYPES:
        entry_type, venue_field = TYPES[p.kind]
        if written and p.kind != "preprint":
            out.append((venue_field, plain(written)))
        elif p.venue and not (p.kind == "preprint" and p.venue.lower() == "arxiv"):
            named = f"{p.venue} {p.year}" if p.year and p.kind == "conference" else p.venue
            out.append((venue_field, plain(named)))
        out.extend(more)
        return entry_type, _rest(p, out)
    conference = p.venue and p.venue.lower() != "arxiv"
    if conference:
        named = plain(f"{p.venue} {p.year}" if p.year else str(p.venue))
        out.append(("booktitle", named))
        if not people:
            # Standard styles require an @inproceedings author and warn without one; @misc says
            # where it appeared with howpublished (booktitle stays for a re-import's venue).
            out.append(("howpublished", named))
            return "misc", _rest(p, out)
    return ("inproceedings" if conference else "misc"), _rest(p, out)


# The field that carries the paper's catalog key, so a catalog rebuilt from this file gives
# every paper its key again (BibTeX styles ignore fields they do not know).
KEY_FIELD = "catalogkey"


def _rest(p: ExportPaper, out: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The fields after the venue: year, identifiers, link, tags, abstract, the catalog's key."""
    if p.year:
        out.append(("year", str(p.year)))
    if p.doi:
        out.append(("doi", doi(p.doi)))
    if p.arxiv_id:
        out.extend([("eprint", p.arxiv_id), ("archiveprefix", "arXiv")])
    if p.url:
        out.append(("url", url(p.url)))
    if p.tags:
        out.append(("keywords", plain(", ".join(p.tags))))
    if p.notices:  # a retraction or correction travels with the citation
        out.append(("note", plain(p.notice_note)))
    if p.abstract:
        out.append(("abstract", abstract(p.abstract)))
    if not any(name == "author" for name, _ in out) and (sort_key := p.exported_title or p.venue):
        out.append(("key", plain(sort_key)))  # what BibTeX sorts and labels an authorless entry by
    out.append((KEY_FIELD, p.key))
    return out


def kept_entry(p: ExportPaper) -> tuple[str, list[tuple[str, str]]] | None:
    """A paper imported from BibTeX as its entry was written (entry type, every field, values as
    the file had them; a macro value such as `month = jan` bare), then what the catalog knows
    that the entry lacks (DOI, arXiv id, link, abstract) and the paper's tags as `keywords`.
    Values are in braces: (name, "{value}") pairs, or (name, value) for a bare one."""
    record = record_in(p, ("bibtex",))
    if record is None or not record.entry_type:
        return None
    out: list[tuple[str, str]] = []
    names = set()
    keywords = record.values("keywords")
    if p.tags:
        kept = keywords and keywords_hold_tags(
            [w for k in keywords for w in re.split(r"[,;]", str(k))], p.tags)
        tagged = "{" + (str(keywords[0]) if kept and balanced(str(keywords[0])) else plain(", ".join(p.tags))) + "}"
    for name, value, *bare in record.fields:
        name = str(name).lower()
        if name in names or name == KEY_FIELD or name == "keywords" and not p.tags:
            continue
        names.add(name)
        if name == "keywords":
            out.append((name, tagged))  # where the entry had them: the paper's tags now
            continue
        value = str(value)
        bare = bare or value.isdigit()  # numbers bare, as the catalog's own entries write them
        out.append((name, value if bare else "{" + (value if balanced(value) else escape(value)) + "}"))
    if p.tags and "keywords" not in names:
        out.append(("keywords", tagged))
    # biblatex's `date` is the year already
    known = names | ({"year"} if "date" in names else set())
    extra = [(n, v) for n, v in _rest(p, []) if n not in known and n not in ("keywords", "key")]
    if p.notices and "note" in names:  # the entry's own note, then the notices
        at = next(i for i, (n, _) in enumerate(out) if n == "note")
        own = out[at][1]
        if own.startswith("{") and plain(p.notice_note) not in own:
            out[at] = ("note", own[:-1] + ". " + plain(p.notice_note) + "}")
    if "eprint" in names or says(record, p.arxiv_id):
        extra = [(n, v) for n, v in extra if n not in ("eprint", "archiveprefix")]
    extra = [(n, v) for n, v in extra if not (n == "doi" and says(record, p.doi) or n == "url" and says(record, p.url))]
    out.extend((n, "{" + v + "}") for n, v in extra)
    return record.entry_type, out


def _kept_text(entry_type: str, key: str, values: list[tuple[str, str]]) -> str:
    lines = ",\n".join(f"\t{name} = {value}" for name, value in values)
    return f"@{entry_type}{{{key},\n{lines}\n}}\n"


def write(papers: Sequence[ExportPaper], out: TextIO) -> None:
    import bibtexparser
    from bibtexparser.middlewares import AddEnclosingMiddleware
    from bibtexparser.model import Entry, Field

    unparse = [AddEnclosingMiddleware(reuse_previous_enclosing=False, enclose_integers=False,
                                      default_enclosing="{")]
    for i, (p, key) in enumerate(zip(papers, citation_keys(papers))):
        if (kept := kept_entry(p)) is not None:
            out.write(("\n" if i else "") + _kept_text(kept[0], key, kept[1]))
            continue
        entry_type, values = fields(p)
        entry = Entry(entry_type, key, [Field(k, v) for k, v in values])
        out.write(("\n" if i else "") + bibtexparser.write_string(bibtexparser.Library([entry]),
                                                                   unparse_stack=unparse))
