"""BibTeX files as Zotero, Google Scholar, arXiv, JabRef, Mendeley, DBLP and people write them,
read with bibtexparser.

Every entry is a paper of its own: cite keys need not be unique (Mendeley writes `@article{,`
for every entry), since the catalog makes its own keys. An entry with one broken field (an
unbalanced brace in `publisher`, say) is read without that field, with a warning naming it;
an entry that cannot be read at all is skipped with a warning naming its line, and the others
still import. A file with no usable entry at all fails as a whole. An entry bibtexparser reads
only in part (a stray `}` in its title ends it there; a missing comma makes two fields one)
gets the fields after the break read on their own, and a warning naming them (or those lost).

`crossref` is resolved as BibTeX does it: a child takes the venue, year and publisher fields
it lacks from its parent (a @proceedings parent's title is the child's booktitle), and
@proceedings entries that serve as parents are volumes, not papers.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from catalog.ingest import kinds
from catalog.ingest import fields
from catalog.ingest.links import FileLinks
from catalog.ingest.records import IngestError, Kept, RecordFile, first_reason, skipped
from catalog.ingest.textfile import read_text

# bibtexparser logs every broken block; the reader reports them itself, once, with the file.
logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)

_KEY_IN_RAW = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s{}()]+)")
_VENUE_FIELDS = ("booktitle", "journal", "journaltitle", "eventtitle", "series")
_ARXIV_FIELDS = ("journal", "note", "url", "doi", "howpublished", "volume", "number", "pages", "publisher")
# What a crossref child takes from its parent: where and when it appeared, never what it is
# (title, authors, abstract, DOI, URL, pages are the child's own).
_INHERITED = ("booktitle", "journal", "journaltitle", "eventtitle", "series", "year", "date",
              "publisher", "organization", "address", "volume", "editor", "month")
_VOLUME_TYPES = {"proceedings", "mvproceedings"}


@dataclass
class _Entry:
    """One entry's raw field values (after @string expansion), before they become a record."""

    kind: str
    key: str
    line: int
    values: dict[str, str]
    notes: list[str] = field(default_factory=list)  # warnings about this entry
    bare: dict[str, str] = field(default_factory=dict)  # values written with a macro BibTeX knows


def read_bibtex(path: Path, *, venue: str | None = None, year: int | None = None) -> RecordFile:
    import bibtexparser
    from bibtexparser import model

    name = str(path)
    source = read_text(path, "a BibTeX file")
    library = bibtexparser.parse_string(source)
    # A macro keeps its spaces: pre # "Conference" with pre = "Proceedings of the ".
    strings = {s.key.lower(): str(s.value) for s in library.strings}
    out = RecordFile(format="bibtex", records=[])
    failures: list[str] = []
    entries: list[_Entry] = []
    blocks = library.blocks
    for i, block in enumerate(blocks):
        line = (block.start_line or 0) + 1
        if isinstance(block, model.DuplicateFieldKeyBlock) and isinstance(block.ignore_error_block, model.Entry):
            entry = block.ignore_error_block
            out.warnings.append(f"{name}:{line}: entry '{entry.key}' repeats a field; the first value is used")
        elif isinstance(block, model.DuplicateBlockKeyBlock):
            # Another paper under a key used above: read it on its own.
            entry = _reparse(block.raw or "")
            if entry is None:
                failures.append(f"{name}:{line}: entry '{block.key}' cannot be read; skipped")
                continue
        elif isinstance(block, model.ParsingFailedBlock):
            found = _recover(block.raw or "", strings)
            if found is None or not (found.values.get("title") or found.values.get("abstract")):
                failures.append(_failure(name, line, block, found))
                continue
            found.line = line
            found.notes = [f"{name}:{line}: entry '{found.key}' {note}" for note in found.notes]
            entries.append(found)
            continue
        elif isinstance(block, model.Entry):
            entry = block
        else:
            continue  # @string, @preamble, @comment and text between entries
        found = _Entry(entry.entry_type.lower(), entry.key, line, _raw_values(entry, strings),
                       bare=_bare_values(entry, strings))
        if note := _read_in_full(entry, found, blocks[i + 1] if i + 1 < len(blocks) else None, strings):
            found.notes.append(f"{name}:{line}: entry '{entry.key}' {note}")
        entries.append(found)
    parents = {e.key.lower(): e for e in entries if e.key}
    volumes = _resolve_crossrefs(entries, parents)
    position = 0
    links = FileLinks(name)
    for entry in entries:
        if id(entry) in volumes:
            continue  # a @proceedings volume its papers point to
        position += 1
        out.warnings.extend(entry.notes)
        values = _normalised(entry.values, entry.kind)
        values["url"] = links.pick(_link_fields(entry.values), entry.line)
        try:
            record = fields.record(
                values, label=f"entry '{entry.key}'", position=position,
                line=entry.line, venue_default=venue, year_default=year, tex=True)
            record.kept = _kept(entry)
            out.records.append(record)
        except fields.EntryError as exc:
            out.warnings.append(skipped(name, entry.line, exc))
    out.warnings[:0] = failures
    out.warnings.extend(links.warnings())
    if undefined := _undefined_macros(entries, volumes):
        out.warnings.append(undefined_warning(name, undefined))
    out.warnings.sort(key=_line_of)
    if not out.records:
        if failures:
            raise IngestError(name, failures[0].removeprefix(f"{name}:").split(": ", 1)[1].removesuffix("; skipped")
                              + " (no entry could be read)", line=_line_of(failures[0]))
        if out.warnings:
            raise IngestError(name, f"no usable entries ({len(out.warnings)} skipped; "
                                    f"{first_reason(name, out.warnings)})")
        raise IngestError(name, "no BibTeX entries found (expected entries like @article{key, title={...}})")
    return out


def _kept(entry: _Entry) -> Kept:
    """Every field of the entry as written (macros of the file expanded, crossref resolved), a
    value written with a macro the file does not define (`month = jan`) as written."""
    pairs: list = []
    for name, value in entry.values.items():
        if name in ("crossref", "catalogkey"):
            continue  # resolved: the parent may not travel with the child; the catalog's own key
        pairs.append([name, entry.bare[name], "bare"] if name in entry.bare else [name, value])
    keywords = entry.values.get("keywords", "")
    words = tuple(w.strip() for w in re.split(r"[,;]", keywords) if w.strip()) if keywords else ()
    return Kept(entry.kind, entry.key or None, pairs, words)


def _link_fields(values: dict[str, str]) -> list[str]:
    """Where an entry's link is: `url`, else a `\\url{...}` (or a bare link) in `howpublished`."""
    published = values.get("howpublished", "")
    return [values.get("url", "")] + ([published] if "\\url" in published or "://" in published else [])


def _failure(name: str, line: int, block, found: _Entry | None) -> str:
    m = _KEY_IN_RAW.match(block.raw or "")
    what = f"entry '{m[1]}'" if m else "entry"
    reason = "; ".join(found.notes) if found and found.notes else _reason(block.error)
    return f"{name}:{line}: {what} cannot be read ({reason}); skipped"


def _reparse(raw: str):
    """The one entry in `raw`, read on its own (its key repeats one above)."""
    import bibtexparser
    from bibtexparser import model

    blocks = bibtexparser.parse_string(raw).blocks
    return next((b for b in blocks if isinstance(b, model.Entry)), None)


# --- an entry read only in part ----------------------------------------------------------------

# Fields written after an entry's end: a stray `}` closed it early (bibtexparser reads what
# follows as text between entries).
_LEFT_OVER = re.compile(r"\s*,\s*[A-Za-z][\w:.+-]*\s*=|\s*[A-Za-z][\w:.+-]*\s*=\s*[{\"\w]")
_FIELD_NAMES = re.compile(r"(?:^|[,}\"])\s*([A-Za-z][\w:.+-]*)\s*=")


def _read_in_full(entry, found: _Entry, following, strings: dict[str, str]) -> str | None:
    """A note when bibtexparser read `entry` only in part, and the fields it missed read into
    `found` where they can be; None when it read the whole entry.

    Two signs, both cheap: a value that does not end where its braces or quotes close (it
    holds an unbalanced brace; what follows its close, `abstract = {...}` after a missing
    comma, was taken as part of it), and fields in the text after the entry's end (a stray
    `}` ended the entry early). The fields after the break are read again on their own."""
    from bibtexparser import model

    broken = next((f for f in entry.fields if f.enclosing == "no-enclosing" and _malformed(f)), None)
    swallowed = ""
    if broken is not None:
        value = str(broken.value)
        end = _value_end(value, 0)
        if end is not None and _FIELD_NAMES.match(value[end:].lstrip()):
            swallowed = value[end:]  # `title = {A} abstract = {B}`: a comma missing
            found.values[broken.key.lower()] = _unbrace(value[:end])
        broken = broken.key.lower()
    left_over = ""
    if type(following) is model.ImplicitComment and _LEFT_OVER.match(following.raw or ""):
        left_over = following.raw
        broken = broken or (entry.fields[-1].key.lower() if entry.fields else None)
    if broken is None:
        return None
    after = (swallowed + "," + left_over).strip().strip(",").strip()
    names = list(dict.fromkeys(n.lower() for n in _FIELD_NAMES.findall(after) if n.lower() != broken))
    if not names:
        return f"field '{broken}' has unbalanced braces or quotes; it is imported as written: check it"
    rest = f"@{found.kind}{{{found.key},\n{after.removesuffix('}') if left_over else after}\n}}\n"
    # Field by field first (each line's `name = value`, so a second missing comma or stray
    # brace loses one field), then as bibtexparser reads them, for those it left out.
    recovered = _recover(rest, strings)
    read = dict(recovered.values) if recovered is not None else {}
    if any(n not in read for n in names) and (again := _reparse(rest)) is not None:
        read = {**_raw_values(again, strings), **read}
    for key, value in read.items():
        found.values.setdefault(key, value)
    kept = [n for n in names if n in read]
    lost = [n for n in names if n not in read]
    said = (f"field '{broken}' runs into the field after it (a comma missing?)" if swallowed and not left_over
            else f"field '{broken}' has unbalanced braces or quotes and cut the entry short")
    if kept:
        read_again = "was read on its own" if len(kept) == 1 else "were read on their own"
        said += f"; {_listed(kept)} after it {read_again}"
    if lost:
        said += f"; {_listed(lost)} after it {'is' if len(lost) == 1 else 'are'} lost"
    return said + "; check the entry"


def _malformed(field) -> bool:
    """A value bibtexparser left without its braces or quotes taken off (`no-enclosing`) that
    starts with one: it does not end where they close (a well-formed `"a" # b` does)."""
    value = str(field.value)
    if value[:1] not in ("{", '"'):
        return False
    end = _value_end(value, 0)
    return end is None or value[end:].strip() != ""


def _listed(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    words = "field " if len(names) == 1 else "fields "
    return words + (quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1])


# --- recovering an entry with a broken field ------------------------------------------------------

_HEADER = re.compile(r"\s*@\s*(\w+)\s*[{(]\s*([^,\s{}()]*)\s*,")
# Exports write one field per line: a field starts where a line starts with `name =`.
_FIELD_START = re.compile(r"^[ \t]*([A-Za-z][\w:.+-]*)[ \t]*=[ \t]*", re.MULTILINE)
_BARE = re.compile(r"[^\s,#{}\"()]+")


def _recover(raw: str, strings: dict[str, str]) -> _Entry | None:
    """An entry bibtexparser could not read, read field by field: the fields that are well
    formed, and a note for each that is not. None when not even the entry's start is readable."""
    header = _HEADER.match(raw)
    if header is None:
        return None
    body = raw[header.end():]
    starts = list(_FIELD_START.finditer(body))
    if not starts:
        return None
    good: list[str] = []
    broken: list[str] = []
    for i, start in enumerate(starts):
        chunk = body[start.start():starts[i + 1].start() if i + 1 < len(starts) else len(body)]
        end = _value_end(chunk, start.end() - start.start())
        rest = chunk[end:].strip() if end is not None else None
        last = i + 1 == len(starts)
        if rest is not None and (rest in ("", ",") or (last and rest.lstrip(",").lstrip()[:1] in ("}", ")"))):
            good.append(chunk[:end].strip())
        else:
            broken.append(start[1].lower())
    entry = _reparse(f"@{header[1]}{{{header[2]},\n" + ",\n".join(good) + "\n}\n") if good else None
    values = _raw_values(entry, strings) if entry is not None else {}
    if values.get("title") or values.get("abstract"):
        # Shown as "refs.bib:7: entry 'x' field 'publisher' has unbalanced ...; the rest ...".
        notes = [f"field '{b}' has unbalanced braces or quotes and is left out; the rest of the entry is imported"
                 for b in broken]
    else:
        notes = [f"field '{b}' has unbalanced braces or quotes" for b in broken]
    return _Entry(header[1].lower(), header[2], 0, values, notes)


def _value_end(text: str, i: int) -> int | None:
    """Index just past a BibTeX value starting at `i` (`{...}`, `"..."`, a macro or number,
    joined by `#`); None when it never ends."""
    n = len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return None
        ch = text[i]
        if ch in "{\"":
            depth, i = (1, i + 1) if ch == "{" else (0, i + 1)
            while i < n:
                c = text[i]
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                    if depth < 0:
                        return None
                    if depth == 0 and ch == "{":
                        break
                elif c == "\"" and ch == "\"" and depth == 0:
                    break
                i += 1
            if i >= n:
                return None
            i += 1
        else:
            m = _BARE.match(text, i)
            if m is None:
                return None
            i = m.end()
        j = i
        while j < n and text[j].isspace():
            j += 1
        if j < n and text[j] == "#":
            i = j + 1
            continue
        return i


# --- crossref ----------------------------------------------------------------------------------

def _resolve_crossrefs(entries: list[_Entry], parents: dict[str, _Entry]) -> set[int]:
    """Fill children from their crossref parents; the ids of @proceedings parents (volumes)."""
    volumes: set[int] = set()
    for entry in entries:
        target = entry.values.get("crossref", "").strip().lower()
        parent = parents.get(target) if target else None
        if parent is None or parent is entry:
            continue
        for name in _INHERITED:
            if parent.values.get(name) and not entry.values.get(name):
                entry.values[name] = parent.values[name]
        if parent.kind in _VOLUME_TYPES | {"book", "mvbook", "collection", "mvcollection"}:
            if not entry.values.get("booktitle") and parent.values.get("title"):
                entry.values["booktitle"] = parent.values["title"]
        if parent.kind in _VOLUME_TYPES:
            volumes.add(id(parent))
    return volumes


# --- field values --------------------------------------------------------------------------------

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


_MACRO = re.compile(r"[A-Za-z][\w:.+/-]*")


# The macros BibTeX's standard styles define (plain, alpha, abbrv, unsrt, ieeetr, ...): months
# and a few journals. A value naming one is understood; any other undefined macro is reported.
STYLE_MACROS = frozenset(
    "jan feb mar apr may jun jul aug sep oct nov dec acmcs acta cacm ibmjrd ibmsj ieeese ieeetc "
    "ieeetcad ipl jacm jcss scp sicomp tocs tods tog toms toois toplas tcs".split())


def _undefined_macros(entries: list[_Entry], volumes: set[int]) -> dict[str, list[int]]:
    """Each macro a value names that neither the file nor the standard styles define, with
    the lines of the entries naming it (BibTeX itself warns and leaves such a field empty)."""
    found: dict[str, list[int]] = {}
    for entry in entries:
        if id(entry) in volumes:
            continue
        for value in entry.bare.values():
            for piece in _split_concatenation(value) if "#" in value else [value.strip()]:
                if _MACRO.fullmatch(piece) and piece.lower() not in STYLE_MACROS:
                    lines = found.setdefault(piece, [])
                    if entry.line not in lines:
                        lines.append(entry.line)
    return found


def undefined_warning(name: str, undefined: dict[str, list[int]]) -> str:
    """One line for all of a file's undefined macros: said once, not once per entry."""
    def where(lines: list[int]) -> str:
        shown = ", ".join(map(str, lines[:5])) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
        return f"line{'s' if len(lines) > 1 else ''} {shown}"

    listed = "; ".join(f"{macro} ({where(lines)})" for macro, lines in sorted(undefined.items()))
    return (f"{name}: @string macros the file does not define, kept as their names (define them "
            f"with @string to have their text): {listed}")


def _bare_values(entry, strings: dict[str, str]) -> dict[str, str]:
    """Values that use a macro the file does not define (`jan`, a style's `jacm`), as written,
    with the file's own macros replaced by their text: BibTeX's styles define these."""
    out: dict[str, str] = {}
    for f in entry.fields:
        value = str(f.value)
        if f.enclosing != "no-enclosing" or f.key.lower() in out:
            continue
        pieces = _split_concatenation(value) if "#" in value else [value.strip()]
        if not any(_MACRO.fullmatch(p) and p.lower() not in strings for p in pieces):
            continue
        out[f.key.lower()] = " # ".join(
            "{" + strings[p.lower()] + "}" if _MACRO.fullmatch(p) and p.lower() in strings else p
            for p in pieces)
    return out


def _raw_values(entry, strings: dict[str, str]) -> dict[str, str]:
    raw: dict[str, str] = {}
    for f in entry.fields:
        raw.setdefault(f.key.lower(), _value(f, strings))
    return raw


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")


def unwrap(value: str) -> str:
    """An abstract as TeX reads it: the file's line wraps and their indentation are spaces,
    a blank line is a paragraph break."""
    if "\n" not in value and "  " not in value and "\t" not in value:
        return value
    return "\n\n".join(" ".join(p.split()) for p in _PARAGRAPH_BREAK.split(value.strip()))


def _arxiv(get) -> str | None:
    prefix = (get("archiveprefix") or get("eprinttype")).lower()
    if get("eprint") and prefix in ("arxiv", ""):
        if found := fields.arxiv_id(get("eprint"), bare=True):
            return found
    for key in _ARXIV_FIELDS:
        if found := fields.arxiv_id(get(key)):
            return found
    # Semantic Scholar and DBLP: journal = {ArXiv} or {CoRR}, volume = {abs/2005.14165}; Google
    # Scholar: journal = {arXiv}, volume = {1810.04805} (or number, or pages)
    if re.search(r"arxiv|corr", get("journal"), re.IGNORECASE):
        for key in ("volume", "number", "pages"):
            value = get(key).replace("{", "").replace("}", "")
            if found := fields.arxiv_id(value.removeprefix("abs/"), bare=True):
                return found
    return None


# Where a thesis or a report appeared (this catalog's own exports write its venue so), read
# when the entry has none of _VENUE_FIELDS.
_KIND_VENUE = {"thesis": "school", "masters": "school", "report": "institution"}


def _normalised(raw: dict[str, str], entry_type: str = "") -> dict[str, object]:
    get = lambda k: raw.get(k, "").strip()  # noqa: E731
    abstract = get("abstract")
    arxiv = _arxiv(get)
    kind = kinds.thesis(kinds.named(entry_type), get("type"))  # biblatex: @thesis, type = {mathesis}
    venue_raw = next((get(k) for k in _VENUE_FIELDS if get(k)), "")
    if not venue_raw and kind in _KIND_VENUE:
        venue_raw = get(_KIND_VENUE[kind])
    venue = fields.venue(venue_raw) if venue_raw else ("arXiv" if arxiv else None)
    return {
        "title": get("title") or None,
        "abstract": unwrap(fields.tidy_abstract(fields.unescape_text(abstract))) if abstract else "",
        "authors": fields.bibtex_authors(get("author")) if get("author") else None,
        "year": fields.year(get("year") or get("date")),
        "venue": venue,
        "doi": fields.doi(get("doi")),
        "arxiv_id": arxiv,
        "kind": kind,
        "key": get("catalogkey") or None,  # a catalog export's key for the paper
        # What names an entry without title or abstract (fields.headline_from_fields)
        "volume": fields.tex_to_text(get("volume")) if get("volume") else None,
        "pages": fields.tex_to_text(get("pages")) if get("pages") else None,
    }
