"""Which paper a record is, and what it adds to a paper already in the catalog.

A record is the same paper as another when they share a DOI or an arXiv id, else the same
abstract (the fingerprint: hash of the normalised abstract, or of the title when there is
none), else the same normalised title (unless their DOIs or arXiv ids differ: a workshop
and a conference version). A match fills the paper's empty fields and nothing else: user
data (tags, notes, status, rating, user_title), filled fields and the key never change.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from catalog.sqlite import Connection

from catalog import headlines, search, text
from catalog.cjk import cjk_search_text
from catalog.ingest.fields import escape_variants, title_key
from catalog.ingest.records import PaperRecord

# Fields a record may fill on a paper that has them empty.
FILLABLE = ("title", "authors", "venue", "year", "doi", "arxiv_id", "url")
_CHUNK = 500


def fingerprint(record: PaperRecord) -> str:
    """Hash of the normalised abstract; without one, of the title (and the DOI or arXiv id, so
    two versions of a paper that share a title but not an identifier stay two papers)."""
    if record.abstract:
        return fingerprint_of(record.abstract)
    ident = record.doi or (f"arxiv:{record.arxiv_id}" if record.arxiv_id else "")
    return fingerprint_of(f"{record.title or ''} {ident}".strip())


@lru_cache(maxsize=8192)  # repeated abstracts in a batch, escape variants, merges
def fingerprint_of(basis: str) -> str:
    return hashlib.sha256(text.normalize(basis).encode()).hexdigest()[:32]


@dataclass
class Paper:
    """One distinct paper of a batch: its records folded into one, and their positions."""

    record: PaperRecord
    positions: list[int] = field(default_factory=list)
    fp: str = ""

    def __post_init__(self) -> None:
        self.fp = self.fp or fingerprint(self.record)

    def __reduce__(self):  # fast pickling to and from the import worker
        return Paper, (self.record, self.positions, self.fp)

    @property
    def fingerprints(self) -> list[str]:
        """Its fingerprint, and those of the abstract as the file wrote it (escapes and all)."""
        raw = self.record.extra.get("raw_abstract")
        if not raw:
            return [self.fp]
        return list(dict.fromkeys([self.fp, *(fingerprint_of(v) for v in escape_variants(raw))]))

    def absorb(self, other: PaperRecord) -> None:
        """Fill from another record of the same paper (the fingerprint follows a new abstract)."""
        basis = (self.record.abstract, self.record.title, self.record.doi, self.record.arxiv_id)
        fill(self.record, other)
        if basis != (self.record.abstract, self.record.title, self.record.doi, self.record.arxiv_id):
            self.fp = fingerprint(self.record)


def fill(target: PaperRecord, source: PaperRecord) -> None:
    """Copy the fields `target` lacks from `source`."""
    for name in FILLABLE:
        if getattr(target, name) in (None, "") and getattr(source, name) not in (None, ""):
            setattr(target, name, getattr(source, name))
    if not target.abstract and source.abstract:
        target.abstract = source.abstract
        if "raw_abstract" in source.extra:
            target.extra["raw_abstract"] = source.extra["raw_abstract"]
    for k, v in source.extra.items():
        target.extra.setdefault(k, v)


def _conflict(a_doi, a_arxiv, b_doi, b_arxiv) -> bool:
    return bool(a_doi and b_doi and a_doi != b_doi) or bool(a_arxiv and b_arxiv and a_arxiv != b_arxiv)


def group(records: list[PaperRecord]) -> list[Paper]:
    """Fold the records of one batch that are the same paper. The records are consumed: the
    first record of each paper becomes that paper's, and is filled from the others."""
    papers: list[Paper] = []
    index: dict[tuple[str, str], int] = {}
    for record in records:
        fp = fingerprint(record)
        found = None
        for ident in _identities(record, fp):
            i = index.get(ident)
            if i is None:
                continue
            other = papers[i].record
            if ident[0] == "title" and _conflict(other.doi, other.arxiv_id, record.doi, record.arxiv_id):
                continue
            found = i
            break
        if found is None:
            papers.append(Paper(record, [record.position], fp))
            found = len(papers) - 1
        else:
            papers[found].absorb(record)
            papers[found].positions.append(record.position)
        paper = papers[found]
        for ident in _identities(paper.record, paper.fp):
            index.setdefault(ident, found)
    return _fold_equal_fingerprints(papers)


def _identities(record: PaperRecord, fp: str) -> list[tuple[str, str]]:
    out = [("fp", fp)]
    if record.doi:
        out.insert(0, ("doi", record.doi))
    if record.arxiv_id:
        out.insert(len(out) - 1, ("arxiv", record.arxiv_id))
    if record.title and (key := title_key(record.title)):
        out.append(("title", key))
    return out


def _fold_equal_fingerprints(papers: list[Paper]) -> list[Paper]:
    """Filling can give two papers of a batch the same abstract: they are one paper."""
    by_fp: dict[str, Paper] = {}
    for paper in papers:
        first = by_fp.setdefault(paper.fp, paper)
        if first is not paper:
            first.absorb(paper.record)
            first.positions.extend(paper.positions)
    if len(by_fp) == len(papers):
        return papers
    return list(by_fp.values())


def match(conn: Connection, papers: list[Paper]) -> dict[int, int]:
    """Index in `papers` -> id of the catalog paper it is, for those already in the catalog."""
    found: dict[int, int] = {}
    with_doi = {p.record.doi: i for i, p in enumerate(papers) if p.record.doi}
    for doi, pid in _lookup(conn, "doi", list(with_doi)):
        found.setdefault(with_doi[doi], pid)
    with_arxiv = {p.record.arxiv_id: i for i, p in enumerate(papers) if p.record.arxiv_id and i not in found}
    for arxiv, pid in _lookup(conn, "arxiv_id", list(with_arxiv)):
        found.setdefault(with_arxiv[arxiv], pid)
    by_fp: dict[str, int] = {}
    for i, p in enumerate(papers):
        if i not in found:
            for fp in p.fingerprints:
                by_fp.setdefault(fp, i)
    for fp, pid in _lookup(conn, "fingerprint", list(by_fp)):
        found.setdefault(by_fp[fp], pid)
    for i, p in enumerate(papers):
        if i not in found and p.record.title:
            pid = _by_title(conn, p.record)
            if pid is not None:
                found[i] = pid
    return found


def _lookup(conn: Connection, column: str, values: list[str]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for start in range(0, len(values), _CHUNK):
        chunk = values[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        out.extend(conn.execute(
            f"SELECT {column}, id FROM paper WHERE {column} IN ({marks})", tuple(chunk)).all())
    return out


def _by_title(conn: Connection, record: PaperRecord) -> int | None:
    wanted = title_key(record.title)
    if not wanted:
        return None
    for pid, title, doi, arxiv in search.papers_titled(conn, record.title or ""):
        if title_key(title) == wanted and not _conflict(doi, arxiv, record.doi, record.arxiv_id):
            return pid
    return None


# --- merging into catalog papers ----------------------------------------------------------------

_ROW = ("id", "title", "authors", "venue", "year", "doi", "arxiv_id", "url", "abstract", "abstract_text",
        "headline", "user_title")


def merge(conn: Connection, matched: list[tuple[int, PaperRecord]], now: datetime) -> int:
    """Fill empty fields of catalog papers from the records that matched them; returns how many
    papers gained something. UPDATEs, so the FTS trigger reindexes exactly those rows."""
    wanted: dict[int, PaperRecord] = {}
    for pid, record in matched:
        if pid in wanted:
            fill(wanted[pid], record)
        else:
            wanted[pid] = record
    ids = list(wanted)
    changed = 0
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        # A cheap first look: which papers lack something these records have.
        rows = conn.execute(
            f"SELECT id, title, authors, venue, year, doi, arxiv_id, url, abstract = '' FROM paper"
            f" WHERE id IN ({marks})", tuple(chunk)).all()
        for row in rows:
            record = wanted[row[0]]
            gaps = [n for n, have in zip(FILLABLE, row[1:8]) if have in (None, "") and getattr(record, n) not in (None, "")]
            if (gaps or (row[8] and record.abstract)) and _update(conn, row[0], record, now):
                changed += 1
    return changed


def _update(conn: Connection, pid: int, record: PaperRecord, now: datetime) -> bool:
    current = dict(zip(_ROW, conn.execute(
        f"SELECT {', '.join(_ROW)} FROM paper WHERE id = ?", (pid,)).one()))
    changes: dict[str, object] = {}
    if record.title and title_key(record.title) in {title_key(current["headline"]), title_key(current["user_title"])}:
        record.title = None  # this catalog's own headline (or your title) coming back from an export
    for name in FILLABLE:
        if current[name] in (None, "") and getattr(record, name) not in (None, ""):
            changes[name] = current[name] = getattr(record, name)
    if not current["abstract"] and record.abstract:
        rendered = text.render(record.abstract)
        changes.update(abstract=record.abstract, abstract_text=rendered,
                       headline=headlines.headline(record.abstract, rendered=rendered))
        current.update(abstract=record.abstract, abstract_text=rendered, headline=changes["headline"])
        # The fingerprint follows the abstract now known (unless another paper has it), so a
        # paper list holding this abstract later finds this paper. The key stays.
        fp = fingerprint_of(record.abstract)
        if not conn.execute("SELECT 1 FROM paper WHERE fingerprint = ?", (fp,)).first():
            changes["fingerprint"] = fp
    if {"title", "authors", "abstract"} & changes.keys():
        changes["search_extra"] = " ".join(filter(None, (
            text.search_extra(current["abstract"]),
            cjk_search_text(current["title"], current["headline"], current["abstract_text"], current["authors"]))))
    if not changes:
        return False
    changes["updated_at"] = now
    sets = ", ".join(f"{name} = ?" for name in changes)
    conn.execute(f"UPDATE paper SET {sets} WHERE id = ?", (*changes.values(), pid))
    return True
