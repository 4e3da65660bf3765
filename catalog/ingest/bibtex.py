"""BibTeX files as Zotero, Google Scholar, arXiv and people write them, read with bibtexparser.

A broken entry (unbalanced braces, a missing comma, no title or abstract) is skipped with a
warning naming its line; the others still import. A file with no usable entry at all fails
as a whole.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from catalog.ingest import fields
from catalog.ingest.records import IngestError, RecordFile
from catalog.ingest.textfile import read_text

# bibtexparser logs every broken block; the reader reports them itself, once, with the file.
logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)

_KEY_IN_RAW = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s{}()]+)")
_VENUE_FIELDS = ("booktitle", "journal", "journaltitle", "eventtitle", "series")
_ARXIV_FIELDS = ("journal", "note", "url", "doi", "howpublished", "volume", "publisher")


def read_bibtex(path: Path, *, venue: str | None = None, year: int | None = None) -> RecordFile:
    import bibtexparser
    from bibtexparser import model

    name = str(path)
    source = read_text(path, "a BibTeX file")
    library = bibtexparser.parse_string(source)
    strings = {s.key.lower(): _unbrace(str(s.value)) for s in library.strings}
    out = RecordFile(format="bibtex", records=[])
    failures: list[str] = []
    position = 0
    for block in library.blocks:
        line = (block.start_line or 0) + 1
        if isinstance(block, model.DuplicateFieldKeyBlock) and isinstance(block.ignore_error_block, model.Entry):
            entry = block.ignore_error_block
            out.warnings.append(f"{name}:{line}: entry '{entry.key}' repeats a field; the first value is used")
        elif isinstance(block, model.DuplicateBlockKeyBlock):
            out.warnings.append(f"{name}:{line}: entry '{block.key}' repeats a key used above (skipped)")
            continue
        elif isinstance(block, model.ParsingFailedBlock):
            found = _KEY_IN_RAW.match(block.raw or "")
            what = f"entry '{found[1]}'" if found else "entry"
            reason = _reason(block.error)
            failures.append(f"{name}:{line}: {what} cannot be read ({reason}); skipped")
            continue
        elif isinstance(block, model.Entry):
            entry = block
        else:
            continue  # @string, @preamble, @comment and text between entries
        position += 1
        try:
            out.records.append(fields.record(
                _values(entry, strings), label=f"entry '{entry.key}'", position=position, line=line,
                venue_default=venue, year_default=year, tex=True))
        except fields.EntryError as exc:
            out.warnings.append(f"{name}:{line}: {exc}")
    out.warnings[:0] = failures
    out.warnings.sort(key=_line_of)
    if not out.records:
        if failures:
            raise IngestError(name, failures[0].removeprefix(f"{name}:").split(": ", 1)[1].removesuffix("; skipped")
                              + " (no entry could be read)", line=_line_of(failures[0]))
        if out.warnings:
            raise IngestError(name, f"no usable entries ({len(out.warnings)} skipped: "
                                    f"{out.warnings[0].removeprefix(name + ':')})")
        raise IngestError(name, "no BibTeX entries found (expected entries like @article{key, title={...}})")
    return out


def _reason(error: Exception) -> str:
    message = str(getattr(error, "abort_reason", "") or getattr(error, "message", "") or error).strip()
    message = " ".join(message.split())
    return re.sub(r"^Parsing of .*? due to syntactical error in bibtex: ", "", message) or "syntax error"


def _line_of(warning: str) -> int:
    m = re.search(r":(\d+): ", warning)
    return int(m[1]) if m else 0


def _unbrace(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == "{" and value[-1] == "}" or value[:1] == value[-1:] == '"':
        return value[1:-1]
    return value


def _split_concatenation(value: str) -> list[str]:
    """`jan # { 2020}` -> ['jan', '{ 2020}'], splitting on # outside braces and quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(value):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == "#" and depth == 0 and not quoted:
            parts.append(value[start:i])
            start = i + 1
    parts.append(value[start:])
    return [p.strip() for p in parts]


def _value(field, strings: dict[str, str]) -> str:
    value = str(field.value)
    if field.enclosing == "no-enclosing":  # a macro, a number, or a # concatenation
        pieces = _split_concatenation(value) if "#" in value else [value]
        return "".join(strings.get(p.lower(), _unbrace(p)) for p in pieces)
    return value


def _values(entry, strings: dict[str, str]) -> dict[str, object]:
    raw: dict[str, str] = {}
    for f in entry.fields:
        raw.setdefault(f.key.lower(), _value(f, strings))
    get = lambda k: raw.get(k, "").strip()  # noqa: E731
    abstract = get("abstract")
    arxiv = None
    prefix = (get("archiveprefix") or get("eprinttype")).lower()
    if get("eprint") and prefix in ("arxiv", ""):
        arxiv = fields.arxiv_id(get("eprint"), bare=True)
    for key in _ARXIV_FIELDS:
        if arxiv:
            break
        arxiv = fields.arxiv_id(get(key))
    venue_raw = next((get(k) for k in _VENUE_FIELDS if get(k)), "")
    venue = fields.venue(venue_raw) if venue_raw else ("arXiv" if arxiv else None)
    return {
        "title": get("title") or None,
        "abstract": fields.tidy_abstract(fields.unescape_text(abstract)) if abstract else "",
        "raw_abstract": abstract,
        "authors": fields.bibtex_authors(get("author")) if get("author") else None,
        "year": fields.year(get("year") or get("date")),
        "venue": venue,
        "doi": fields.doi(get("doi")),
        "arxiv_id": arxiv,
        "url": fields.url(get("url")),
    }
