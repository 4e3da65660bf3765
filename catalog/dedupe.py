"""Which paper a record is, and what it adds to a paper already in the catalog.

Evidence that a record is a paper already seen (in the same file or in the catalog), strongest
first: the same DOI, the same arXiv id, the same abstract, the same title. Evidence counts only
when nothing contradicts it:

- different DOIs or different arXiv ids always mean different papers (an arXiv DOI,
  10.48550/arXiv.ID, is the arXiv id, not a publisher's DOI);
- an abstract is evidence only when it identifies a paper: at least MIN_WORDS words, and not
  shared by records of one file that name different papers ("Not Available", "Keywords",
  a publisher's boilerplate); a same-abstract match is void when the real titles differ;
- a same-title match is void when the years are more than a year apart, the authors share no
  family name, the URLs differ, or both have identifying abstracts that differ.

A match fills the paper's empty fields and nothing else: user data (tags, notes, status,
rating, user_title), filled fields and the key never change. Each merge is kept with its
evidence (the `paper_merge` table), so the import can report it and `catalog split` undo it.

The fingerprint (the paper's unique content hash, which its key comes from) is the hash of
an identifying abstract, else of its title, identifier and abstract; two papers that the rules
keep apart but that hash alike get distinct fingerprints when stored (importer.unique_fingerprints).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from catalog.sqlite import Connection

from catalog import headlines, search, text
from catalog.cjk import cjk_search_text
from catalog.ingest.fields import fold_tex, name_parts, split_people, title_key
from catalog.ingest.records import PaperRecord

# Fields a record may fill on a paper that has them empty.
FILLABLE = ("title", "authors", "venue", "year", "doi", "arxiv_id", "url")
_CHUNK = 500
# An abstract shorter than this (in words; two CJK characters count as one) cannot tell one
# paper from another: "Not Available", "Keywords", "Details of the publication".
MIN_WORDS = 10

DOI, ARXIV, ABSTRACT, TITLE = "doi", "arxiv", "abstract", "title"


def identifies(abstract: str) -> bool:
    """Whether an abstract is long enough to be evidence of which paper it belongs to."""
    if not abstract:
        return False
    if abstract.count(" ") >= 2 * MIN_WORDS:  # nearly every real abstract: no split needed
        return True
    words = len(abstract.split())
    if words < MIN_WORDS and text.has_cjk(abstract):
        words += sum(1 for ch in abstract if text.has_cjk(ch)) // 2
    return words >= MIN_WORDS


def fingerprint(record: PaperRecord, identifying: bool | None = None) -> str:
    """Hash of the normalised abstract when it identifies the paper; else of the title, the DOI
    or arXiv id and the abstract (so two versions of a paper that share a title but not an
    identifier, or two papers with one placeholder abstract, hash apart)."""
    if identifying is None:
        identifying = identifies(record.abstract)
    if identifying:
        return fingerprint_of(record.abstract)
    ident = record.doi or (f"arxiv:{record.arxiv_id}" if record.arxiv_id else "")
    return fingerprint_of(" ".join(filter(None, (record.title, ident, record.abstract))))


@lru_cache(maxsize=8192)  # repeated abstracts in a batch, merges
def fingerprint_of(basis: str) -> str:
    """Escape-insensitive (fields.fold_tex): `12\\%` and `12%` are one paper, and a BibTeX round
    trip keeps every fingerprint and so every key."""
    return hashlib.sha256(text.normalize(fold_tex(basis)).encode()).hexdigest()[:32]


# --- evidence and contradictions --------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Facts:
    """What the rules compare of a record or a catalog paper."""

    doi: str | None  # a publisher's DOI (arXiv DOIs are arXiv ids)
    arxiv: str | None
    title: str  # title_key
    year: int | None
    families: frozenset[str]
    url: str
    abstracts: frozenset[str]  # fingerprints of an identifying abstract


def facts(*, doi, arxiv, title, year, authors, url, abstracts) -> Facts:
    return Facts(
        doi=None if not doi or doi.startswith("10.48550/arxiv.") else doi,
        arxiv=arxiv or None, title=title_key(title) if title else "", year=year,
        families=_families(authors), url=_url_key(url), abstracts=frozenset(abstracts))


def _families(authors: str | None) -> frozenset[str]:
    out = set()
    for name in split_people(authors):
        if name != "et al.":
            family = name_parts(name)[1].split()
            if family:
                out.add(text.normalize(family[-1]))
    return frozenset(out)


def _url_key(url: str | None) -> str:
    if not url:
        return ""
    return re.sub(r"^https?://(www\.)?", "", url.strip().lower()).rstrip("/")


def contradiction(a: Facts, b: Facts, evidence: str) -> str | None:
    """Why two papers that share `evidence` are still two papers, or None."""
    if a.doi and b.doi and a.doi != b.doi:
        return "different DOIs"
    if a.arxiv and b.arxiv and a.arxiv != b.arxiv:
        return "different arXiv ids"
    if evidence in (DOI, ARXIV):
        return None
    if a.title and b.title and a.title != b.title:
        return "different titles"
    if evidence == ABSTRACT:
        return None
    if a.year and b.year and abs(a.year - b.year) > 1:
        return "different years"
    if a.families and b.families and not a.families & b.families:
        return "different authors"
    if a.url and b.url and a.url != b.url:
        return "different URLs"
    if a.abstracts and b.abstracts and not a.abstracts & b.abstracts:
        return "different abstracts"
    return None


def describe(evidence: str, record: PaperRecord) -> str:
    if evidence == DOI:
        return f"same DOI {record.doi}"
    if evidence == ARXIV:
        return f"same arXiv id {record.arxiv_id}"
    return f"same {evidence}"


# --- a batch of records ------------------------------------------------------------------------

@dataclass(slots=True)
class Merge:
    """A record folded into a paper: what it said, why, and which fields only it gave."""

    record: PaperRecord  # as the file gave it
    evidence: str  # "same DOI 10.1/x", "same abstract", ...
    filled: tuple[str, ...]  # fields of the paper that came from this record
    into_line: int = 0  # line of the record it joined (in-file merges)


@dataclass
class Paper:
    """One distinct paper of a batch: its records folded into one, and their positions."""

    record: PaperRecord
    positions: list[int] = field(default_factory=list)
    fp: str = ""
    identifying: bool = True  # whether its abstract identifies it
    merges: list[Merge] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.fp = self.fp or fingerprint(self.record, self.identifying)

    def __reduce__(self):  # fast pickling to and from the import worker
        return Paper, (self.record, self.positions, self.fp, self.identifying, self.merges)

    @property
    def fingerprints(self) -> list[str]:
        """The fingerprint of its abstract when the abstract identifies it; else none. (Escaped
        and unescaped spellings of one abstract share it: fingerprint_of.)"""
        return abstract_fingerprints(self.record, self.fp, self.identifying)

    def facts(self) -> Facts:
        r = self.record
        return facts(doi=r.doi, arxiv=r.arxiv_id, title=r.title, year=r.year, authors=r.authors,
                     url=r.url, abstracts=self.fingerprints)

    def absorb(self, other: PaperRecord, evidence: str, shared: frozenset[str] = frozenset()) -> None:
        """Fill from another record of the same paper (the fingerprint follows a new abstract)."""
        basis = (self.record.abstract, self.record.title, self.record.doi, self.record.arxiv_id)
        filled = fill(self.record, other)
        self.merges.append(Merge(other, evidence, tuple(filled), self.record.line))
        self.positions.append(other.position)
        if basis != (self.record.abstract, self.record.title, self.record.doi, self.record.arxiv_id):
            abstract = self.record.abstract
            self.identifying = identifies(abstract) and fingerprint_of(abstract) not in shared
            self.fp = fingerprint(self.record, self.identifying)

    def own_record(self) -> PaperRecord:
        """The first record as its file gave it: the paper's record without what merges filled."""
        taken = {name for m in self.merges for name in m.filled}
        if not taken:
            return self.record
        r = self.record
        own = PaperRecord(r.abstract, r.position, r.line, r.venue, r.year, r.title, r.authors, r.doi,
                          r.arxiv_id, r.url, dict(r.extra))
        for name in taken:
            setattr(own, name, "" if name == "abstract" else None)
        return own


def abstract_fingerprints(record: PaperRecord, fp: str, identifying: bool) -> list[str]:
    return [fp] if identifying else []


def fill(target: PaperRecord, source: PaperRecord) -> list[str]:
    """Copy the fields `target` lacks from `source`; the names of those filled."""
    filled = []
    for name in FILLABLE:
        if getattr(target, name) in (None, "") and getattr(source, name) not in (None, ""):
            setattr(target, name, getattr(source, name))
            filled.append(name)
    if not target.abstract and source.abstract:
        target.abstract = source.abstract
        filled.append("abstract")
    for k, v in source.extra.items():
        target.extra.setdefault(k, v)
    return filled


def _record_facts(record: PaperRecord, abstracts: list[str]) -> Facts:
    return facts(doi=record.doi, arxiv=record.arxiv_id, title=record.title, year=record.year,
                 authors=record.authors, url=record.url, abstracts=abstracts)


def shared_abstracts(records: list[PaperRecord], fps: list[str | None], titles: list[str]) -> frozenset[str]:
    """Abstracts that records of one file give to papers with different titles or identifiers:
    placeholders ("Not Available"), which identify nothing."""
    seen: dict[str, list] = {}
    shared: set[str] = set()
    for record, fp, title in zip(records, fps, titles):
        if fp is None or fp in shared:
            continue
        marks = (record.doi if record.doi and not record.doi.startswith("10.48550/arxiv.") else None,
                 record.arxiv_id, title or None)
        first = seen.get(fp)
        if first is None:
            seen[fp] = list(marks)
            continue
        for i, mark in enumerate(marks):
            if mark is None:
                continue
            if first[i] is None:
                first[i] = mark
            elif first[i] != mark:
                shared.add(fp)
                break
    return frozenset(shared)


def group(records: list[PaperRecord]) -> list[Paper]:
    """Fold the records of one batch that are the same paper. The records are consumed: the
    first record of each paper becomes that paper's, and is filled from the others."""
    fps = [fingerprint_of(r.abstract) if r.abstract else None for r in records]
    titles = [title_key(r.title) if r.title else "" for r in records]
    shared = shared_abstracts(records, fps, titles)
    papers: list[Paper] = []
    index: dict[tuple[str, str], list[int]] = {}
    for record, afp, tkey in zip(records, fps, titles):
        identifying = afp is not None and afp not in shared and identifies(record.abstract)
        fp = afp if identifying else fingerprint(record, False)
        found = None
        wanted = _identities(record.doi, record.arxiv_id, fp if identifying else None, tkey)
        if any(ident in index for ident in wanted):
            mine = _record_facts(record, abstract_fingerprints(record, fp, identifying))
            found = _first_match(wanted, index, papers, mine)
        if found is None:
            papers.append(Paper(record, [record.position], fp, identifying))
            at = len(papers) - 1
        else:
            at, evidence = found
            papers[at].absorb(record, describe(evidence, record), shared)
        paper = papers[at]
        for ident in _identities(paper.record.doi, paper.record.arxiv_id,
                                 paper.fp if paper.identifying else None, title_key(paper.record.title) if found else tkey):
            holders = index.setdefault(ident, [])
            if at not in holders:
                holders.append(at)
    return _fold_equal_fingerprints(papers)


def _first_match(wanted, index, papers: list[Paper], mine: Facts) -> tuple[int, str] | None:
    for ident in wanted:
        for at in index.get(ident, ()):
            if contradiction(papers[at].facts(), mine, ident[0]) is None:
                return at, ident[0]
    return None


def _identities(doi, arxiv, fp, tkey) -> list[tuple[str, str]]:
    out = []
    if doi:
        out.append((DOI, doi))
    if arxiv:
        out.append((ARXIV, arxiv))
    if fp:
        out.append((ABSTRACT, fp))
    if tkey:
        out.append((TITLE, tkey))
    return out


def _fold_equal_fingerprints(papers: list[Paper]) -> list[Paper]:
    """Filling can give two papers of a batch the same identifying abstract: they are one paper,
    unless something contradicts it."""
    by_fp: dict[str, Paper] = {}
    kept: list[Paper] = []
    for paper in papers:
        first = by_fp.setdefault(paper.fp, paper)
        if first is paper or not (first.identifying and paper.identifying) \
                or contradiction(first.facts(), paper.facts(), ABSTRACT):
            kept.append(paper)
            continue
        own = paper.own_record()
        first.absorb(own, describe(ABSTRACT, own))
        first.positions.pop()  # absorb added the first position; all of them follow
        first.positions.extend(paper.positions)
        first.merges.extend(paper.merges)
    return kept


# --- the catalog --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Found:
    """The catalog paper a batch paper is, and the evidence."""

    paper_id: int
    key: str
    evidence: str


_ROW_FACTS = "id, key, title, year, authors, url, doi, arxiv_id, abstract"


def _row_facts(row) -> Facts:
    _, _, title, year, authors, url, doi, arxiv, abstract = row
    return facts(doi=doi, arxiv=arxiv, title=title, year=year, authors=authors, url=url,
                 abstracts=[fingerprint_of(abstract)] if identifies(abstract) else [])


def match(conn: Connection, papers: list[Paper]) -> tuple[dict[int, Found], set[str]]:
    """Index in `papers` -> the catalog paper it is, for those already in the catalog; and the
    fingerprints of `papers` that catalog papers hold already."""
    candidates: dict[int, list[tuple[int, str]]] = {}
    for kind, column, values in (
            (DOI, "doi", {p.record.doi for p in papers if p.record.doi}),
            (ARXIV, "arxiv_id", {p.record.arxiv_id for p in papers if p.record.arxiv_id})):
        if not values:
            continue
        hits: dict[str, list[int]] = {}
        for value, pid in _lookup(conn, column, list(values)):
            hits.setdefault(value, []).append(pid)
        for i, p in enumerate(papers):
            value = p.record.doi if kind == DOI else p.record.arxiv_id
            for pid in hits.get(value, ()):
                candidates.setdefault(i, []).append((pid, kind))
    by_fp: dict[str, list[int]] = {}
    for i, p in enumerate(papers):
        by_fp.setdefault(p.fp, []).append(i)
        for fp in p.fingerprints:
            if fp != p.fp:
                by_fp.setdefault(fp, []).append(i)
    taken: set[str] = set()
    for fp, pid in _lookup(conn, "fingerprint", list(by_fp)):
        taken.add(fp)
        for i in by_fp[fp]:
            if papers[i].identifying and fp in papers[i].fingerprints:
                candidates.setdefault(i, []).append((pid, ABSTRACT))
    rows = _rows(conn, {pid for found in candidates.values() for pid, _ in found})
    out: dict[int, Found] = {}
    for i, p in enumerate(papers):
        found = candidates.get(i)
        mine = p.facts() if found or p.record.title else None
        for pid, kind in found or ():
            if contradiction(_row_facts(rows[pid]), mine, kind) is None:
                out[i] = Found(pid, rows[pid][1], describe(kind, p.record))
                break
        else:
            if p.record.title:
                hit = _by_title(conn, p.record, mine)
                if hit is not None:
                    out[i] = Found(hit[0], hit[1], describe(TITLE, p.record))
    return out, taken


def _lookup(conn: Connection, column: str, values: list[str]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for start in range(0, len(values), _CHUNK):
        chunk = values[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        out.extend(conn.execute(
            f"SELECT {column}, id FROM paper WHERE {column} IN ({marks})", tuple(chunk)).all())
    return out


def _rows(conn: Connection, ids: set[int]) -> dict[int, tuple]:
    out: dict[int, tuple] = {}
    wanted = list(ids)
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"SELECT {_ROW_FACTS} FROM paper WHERE id IN ({marks})", tuple(chunk)):
            out[row[0]] = tuple(row)
    return out


def _by_title(conn: Connection, record: PaperRecord, mine: Facts) -> tuple[int, str] | None:
    wanted = title_key(record.title)
    if not wanted:
        return None
    for row in search.papers_titled(conn, record.title or ""):
        if title_key(row[2]) == wanted and contradiction(_row_facts(row), mine, TITLE) is None:
            return row[0], row[1]
    return None


# --- merging into catalog papers ----------------------------------------------------------------

_ROW = ("id", "title", "authors", "venue", "year", "doi", "arxiv_id", "url", "abstract", "abstract_text",
        "headline", "user_title")


def merge(conn: Connection, matched: list[tuple[int, PaperRecord]], now: datetime) -> tuple[int, list[tuple[str, ...]]]:
    """Fill empty fields of catalog papers from the records that matched them. Returns how many
    papers gained something, and for each record the fields it filled. UPDATEs, so the FTS
    trigger reindexes exactly those rows."""
    by_pid: dict[int, list[int]] = {}
    for n, (pid, _) in enumerate(matched):
        by_pid.setdefault(pid, []).append(n)
    filled: list[tuple[str, ...]] = [()] * len(matched)
    ids = list(by_pid)
    changed = 0
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        # A cheap first look: which papers lack something these records have.
        rows = conn.execute(
            f"SELECT id, title, authors, venue, year, doi, arxiv_id, url, abstract = '' FROM paper"
            f" WHERE id IN ({marks})", tuple(chunk)).all()
        for row in rows:
            have = dict(zip(FILLABLE, row[1:8]))
            lacks_abstract = bool(row[8])
            union = PaperRecord("", 0, 0)
            for n in by_pid[row[0]]:
                record = matched[n][1]
                names = [f for f in FILLABLE if have[f] in (None, "") and getattr(record, f) not in (None, "")]
                for name in names:
                    have[name] = getattr(record, name)
                if lacks_abstract and record.abstract:
                    names.append("abstract")
                    lacks_abstract = False
                filled[n] = tuple(names)
                fill(union, record)
            if any(filled[n] for n in by_pid[row[0]]):
                done = _update(conn, row[0], union, now)
                changed += bool(done)
                for n in by_pid[row[0]]:
                    filled[n] = tuple(f for f in filled[n] if f in done)
    return changed, filled


def _update(conn: Connection, pid: int, record: PaperRecord, now: datetime) -> set[str]:
    """Fill the paper's empty fields from `record`; the names of those filled."""
    current = dict(zip(_ROW, conn.execute(
        f"SELECT {', '.join(_ROW)} FROM paper WHERE id = ?", (pid,)).one()))
    changes: dict[str, object] = {}
    if record.title and title_key(record.title) in {title_key(current["headline"]), title_key(current["user_title"])}:
        record.title = None  # this catalog's own headline (or your title) coming back from an export
    for name in FILLABLE:
        if current[name] in (None, "") and getattr(record, name) not in (None, ""):
            changes[name] = current[name] = getattr(record, name)
    if not current["abstract"] and record.abstract:
        changes.update(_abstract_columns(conn, record.abstract, current))
    if not changes:
        return set()
    _save(conn, pid, changes, current, now)
    return set(changes) & {*FILLABLE, "abstract"}


def _abstract_columns(conn: Connection, abstract: str, current: dict) -> dict[str, object]:
    """The columns that follow a paper's abstract (updated in `current` too)."""
    rendered = text.render(abstract) if abstract else ""
    changes: dict[str, object] = {
        "abstract": abstract, "abstract_text": rendered,
        "headline": headlines.headline(abstract, rendered=rendered) if abstract else (current["title"] or "")}
    current.update(changes)
    # The fingerprint follows an identifying abstract (unless another paper has it), so a
    # paper list holding this abstract later finds this paper. The key stays.
    if identifies(abstract):
        fp = fingerprint_of(abstract)
        if not conn.execute("SELECT 1 FROM paper WHERE fingerprint = ?", (fp,)).first():
            changes["fingerprint"] = fp
    return changes


def _save(conn: Connection, pid: int, changes: dict[str, object], current: dict, now: datetime) -> None:
    if {"title", "authors", "abstract"} & changes.keys():
        changes["search_extra"] = " ".join(filter(None, (
            text.search_extra(current["abstract"]),
            cjk_search_text(current["title"], current["headline"], current["abstract_text"], current["authors"]))))
    changes["updated_at"] = now
    sets = ", ".join(f"{name} = ?" for name in changes)
    conn.execute(f"UPDATE paper SET {sets} WHERE id = ?", (*changes.values(), pid))


# --- the record of merges: what `catalog split` undoes -------------------------------------------------

_RECORD_FIELDS = ("title", "authors", "venue", "year", "doi", "arxiv_id", "url", "abstract")


def record_json(record: PaperRecord, *, same_abstract: bool) -> str:
    """A merged record's own fields, as stored in paper_merge.record. An abstract the paper
    holds already (the evidence was the abstract) is not stored twice."""
    data = {name: getattr(record, name) for name in _RECORD_FIELDS if getattr(record, name) not in (None, "")}
    if same_abstract:
        data.pop("abstract", None)
        data["same_abstract"] = True
    return json.dumps(data, ensure_ascii=False)


def record_from_json(value: str, position: int, line: int = 0, abstract: str = "") -> PaperRecord:
    data = json.loads(value)
    if data.pop("same_abstract", False):
        data["abstract"] = abstract
    return PaperRecord(abstract=data.pop("abstract", ""), position=position, line=line,
                       **{k: v for k, v in data.items() if k in _RECORD_FIELDS})


def store_merges(conn: Connection, rows: list[tuple[int, int, int, str, tuple[str, ...], PaperRecord]],
                 now: datetime) -> None:
    """Keep each merge: (paper id, source id, position, evidence, fields filled, record)."""
    if rows:
        conn.execute(
            "INSERT INTO paper_merge(paper_id, source_id, position, evidence, filled, record, merged_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(pid, source, position, evidence, " ".join(filled),
              record_json(record, same_abstract=bool(record.abstract) and evidence == describe(ABSTRACT, record)),
              now)
             for pid, source, position, evidence, filled, record in rows])


# --- splitting a paper: undoing merges -----------------------------------------------------------------

_PAPER = ("title", "authors", "venue", "year", "doi", "arxiv_id", "url", "abstract", "abstract_text",
          "headline", "user_title", "fingerprint")


def split(conn: Connection, pid: int, key: str, numbers: list[int], now: datetime) -> list[int]:
    """Make records that joined paper `pid` papers of their own: those of the sources numbered
    (1-based, as `catalog show` lists them), or all that joined it. The paper keeps its key,
    your annotations and what its own record said; it loses what only they gave, and takes it
    from the records that stay where they have it. Records that leave together and are one
    paper by the rules above stay one paper. Returns the new papers' ids."""
    from catalog.db import CatalogError

    sources = conn.execute("SELECT source_id, position FROM provenance pr JOIN source s ON s.id = pr.source_id"
                           " WHERE pr.paper_id = ? ORDER BY s.id, pr.position", (pid,)).all()
    rows = conn.execute("SELECT id, source_id, position, evidence, filled, record FROM paper_merge"
                        " WHERE paper_id = ? ORDER BY id", (pid,)).all()
    if not rows:
        if len(sources) > 1:
            raise CatalogError(f"paper {key}'s records were merged before this version of catalog kept "
                               f"merges, so they cannot be split (import the files into a new catalog)")
        raise CatalogError(f"paper {key} came from one record; there is nothing to split")
    by_place = {(r[1], r[2]): r for r in rows}
    if numbers:
        leaving = []
        for n in numbers:
            if not 1 <= n <= len(sources):
                raise CatalogError(f"paper {key} has no source {n} (it has {len(sources)}; see catalog show {key})")
            row = by_place.get(tuple(sources[n - 1]))
            if row is None:
                raise CatalogError(f"source {n} is the paper's own record (the one it was first imported from); "
                                   f"split the others off it")
            leaving.append(row)
    else:
        leaving = list(rows)
    current = dict(zip(_PAPER, conn.execute(f"SELECT {', '.join(_PAPER)} FROM paper WHERE id = ?", (pid,)).one()))
    records = {r[0]: record_from_json(r[5], r[2], abstract=current["abstract"]) for r in rows}
    gone = {r[0] for r in leaving}
    if any("abstract" in r[4].split() for r in leaving):
        # Records that joined by this abstract keep it written out: the paper's changes now.
        for r in rows:
            if r[0] not in gone and '"same_abstract"' in r[5]:
                conn.execute("UPDATE paper_merge SET record = ? WHERE id = ?",
                             (record_json(records[r[0]], same_abstract=False), r[0]))
    _revert(conn, pid, current, [(r[0], r[4]) for r in leaving],
            [(r[0], set(r[4].split()), records[r[0]]) for r in rows if r[0] not in gone], now)
    conn.execute(f"DELETE FROM paper_merge WHERE id IN ({','.join('?' * len(gone))})", tuple(gone))
    return _papers_of(conn, pid, [(r[1], r[2], records[r[0]]) for r in leaving], now)


def _revert(conn: Connection, pid: int, current: dict, leaving: list[tuple[int, str]],
            staying: list[tuple[int, set[str], PaperRecord]], now: datetime) -> None:
    """Take back from the paper what the leaving records gave it, and fill those fields again
    from the records that stay (in the order they joined)."""
    cleared = {name for _, filled in leaving for name in filled.split()}
    if not cleared:
        return
    values = {name: ("" if name == "abstract" else None) for name in cleared}
    for merge_id, filled, record in staying:
        gave = [n for n in cleared if values[n] in (None, "") and getattr(record, n) not in (None, "")]
        for name in gave:
            values[name] = getattr(record, name)
        if gave:
            conn.execute("UPDATE paper_merge SET filled = ? WHERE id = ?", (" ".join(sorted(filled | set(gave))), merge_id))
    changes: dict[str, object] = {n: v for n, v in values.items() if n != "abstract"}
    current.update(changes)
    if "abstract" in cleared or ("title" in cleared and not current["abstract"]):
        changes.update(_abstract_columns(conn, values.get("abstract", current["abstract"]), current))
        changes.pop("fingerprint", None)
    own = PaperRecord(current["abstract"], 0, 0, title=current["title"], doi=current["doi"],
                      arxiv_id=current["arxiv_id"])
    fp = fingerprint(own)
    if fp != current["fingerprint"]:
        # A leaving record's abstract must no longer find this paper.
        from catalog.importer import unique_fingerprints

        taken = {fp} if conn.execute("SELECT 1 FROM paper WHERE fingerprint = ? AND id != ?", (fp, pid)).first() else set()
        changes["fingerprint"] = unique_fingerprints(conn, [fp], taken, keep=current["fingerprint"])[0]
    _save(conn, pid, changes, current, now)


def _papers_of(conn: Connection, pid: int, leaving: list[tuple[int, int, PaperRecord]], now: datetime) -> list[int]:
    """New papers from the leaving records (grouped by the import rules), with their provenance
    and the merges among them."""
    from catalog import prepare
    from catalog.importer import insert_papers

    places = [(source, position) for source, position, _ in leaving]
    for n, (_, _, record) in enumerate(leaving):
        record.position = n  # where each record came from, through group()
    papers = group([record for _, _, record in leaving])
    taken = {fp for fp, _ in _lookup(conn, "fingerprint", [p.fp for p in papers])}
    ids = insert_papers(conn, papers, [prepare.paper_fields(p.record, p.fp) for p in papers], taken, now)
    rows = []
    for new, paper in zip(ids, papers):
        for n in paper.positions:
            conn.execute("UPDATE provenance SET paper_id = ? WHERE paper_id = ? AND source_id = ? AND position = ?",
                         (new, pid, *places[n]))
        rows.extend((new, *places[m.record.position], m.evidence, m.filled, m.record) for m in paper.merges)
    store_merges(conn, rows, now)
    return ids
