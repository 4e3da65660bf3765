"""Which paper a record is, and what it adds to a paper already in the catalog.

Evidence that a record is a paper already seen (in the same file or in the catalog), strongest
first: the same DOI, the same arXiv id, the same abstract, the same title. Evidence counts only
when nothing contradicts it:

- different DOIs or different arXiv ids always mean different papers (an arXiv DOI,
  10.48550/arXiv.ID, is the arXiv id, not a publisher's DOI); the same DOI is void when the
  titles differ and the authors share no family name (a DOI pasted onto another entry);
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
keep apart but that hash alike get distinct fingerprints when stored (identity.unique_fingerprints).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from catalog.text import headlines
from catalog.text import tex
from catalog.text.cjk import has_cjk
from catalog.text.normalize import normalize
from catalog.text.cjk import cjk_search_text
from catalog.ingest.fields import fold_tex, title_key
from catalog.ingest.people import name_parts, split_people
from catalog.ingest.records import PaperRecord

# Fields a record may fill on a paper that has them empty.
FILLABLE = ("title", "authors", "venue", "year", "doi", "arxiv_id", "url", "kind")
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
    if words < MIN_WORDS and has_cjk(abstract):
        words += sum(1 for ch in abstract if has_cjk(ch)) // 2
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
    named = record.title or (record.extra.get("headline") if not record.abstract else None)
    return fingerprint_of(" ".join(filter(None, (named, ident, record.abstract))))


@lru_cache(maxsize=8192)  # repeated abstracts in a batch, merges
def fingerprint_of(basis: str) -> str:
    """Escape-insensitive (fields.fold_tex): `12\\%` and `12%` are one paper, and a BibTeX round
    trip keeps every fingerprint and so every key."""
    return hashlib.sha256(normalize(fold_tex(basis)).encode()).hexdigest()[:32]


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
                out.add(normalize(family[-1]))
    return frozenset(out)


def _url_key(url: str | None) -> str:
    """A link as compared: scheme, `www.` and percent-encoding aside (imports encode what RFC
    3986 does not allow; a catalog made before kept `{`, `|` and the like as written)."""
    if not url:
        return ""
    if "%" in url:
        from urllib.parse import unquote

        url = unquote(url)
    return re.sub(r"^https?://(www\.)?", "", url.strip().lower()).rstrip("/")


def contradiction(a: Facts, b: Facts, evidence: str) -> str | None:
    """Why two papers that share `evidence` are still two papers, or None."""
    if a.doi and b.doi and a.doi != b.doi:
        return "different DOIs"
    if a.arxiv and b.arxiv and a.arxiv != b.arxiv:
        return "different arXiv ids"
    differ = bool(a.title and b.title and a.title != b.title)
    strangers = bool(a.families and b.families and not a.families & b.families)
    if evidence == DOI and differ and strangers:
        return "one DOI on two papers"  # copied onto another entry: other title, no author shared
    if evidence in (DOI, ARXIV):
        return None
    if differ:
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
                          r.arxiv_id, r.url, dict(r.extra), r.kind, r.kept)
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


def _row_facts(paper) -> Facts:
    """The Facts of a catalog paper (the store's PaperFacts)."""
    abstract = paper.abstract
    return facts(doi=paper.doi, arxiv=paper.arxiv_id, title=paper.title, year=paper.year,
                 authors=paper.authors, url=paper.url,
                 abstracts=[fingerprint_of(abstract)] if identifies(abstract) else [])


def match(tx, papers: list[Paper]) -> tuple[dict[int, Found], set[str]]:
    """Index in `papers` -> the catalog paper it is, for those already in the catalog; and the
    fingerprints of `papers` that catalog papers hold already."""
    candidates: dict[int, list[tuple[int, str]]] = {}
    for kind, column, values in (
            (DOI, "doi", {p.record.doi for p in papers if p.record.doi}),
            (ARXIV, "arxiv_id", {p.record.arxiv_id for p in papers if p.record.arxiv_id})):
        if not values:
            continue
        hits: dict[str, list[int]] = {}
        for value, pid in tx.imports.papers_with_values(column, values):
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
    for fp, pid in tx.imports.papers_with_values("fingerprint", by_fp):
        taken.add(fp)
        for i in by_fp[fp]:
            if papers[i].identifying and fp in papers[i].fingerprints:
                candidates.setdefault(i, []).append((pid, ABSTRACT))
    rows = tx.imports.paper_facts({pid for found in candidates.values() for pid, _ in found})
    out: dict[int, Found] = {}
    # The batch's papers a catalog paper took so far: two papers the batch keeps apart (their
    # DOIs or arXiv ids differ) must not become one through the catalog paper they both resemble.
    claimed: dict[int, list[Facts]] = {}
    for i, p in enumerate(papers):
        found = candidates.get(i)
        mine = p.facts() if found or p.record.title else None
        hit = next(((pid, kind) for pid, kind in found or ()
                    if contradiction(_row_facts(rows[pid]), mine, kind) is None
                    and _free(claimed.get(pid, ()), mine)), None)
        if hit is not None:
            out[i] = Found(hit[0], rows[hit[0]].key, describe(hit[1], p.record))
        elif p.record.title:
            titled = _by_title(tx, p.record, mine, claimed)
            if titled is not None:
                out[i] = Found(titled[0], titled[1], describe(TITLE, p.record))
        if i in out:
            claimed.setdefault(out[i].paper_id, []).append(mine)
    return out, taken


def _free(taken: list[Facts], mine: Facts) -> bool:
    """Whether a catalog paper that took these batch papers can take this one too."""
    return all(contradiction(other, mine, DOI) is None for other in taken)


def _by_title(tx, record: PaperRecord, mine: Facts, claimed: dict[int, list[Facts]]) -> tuple[int, str] | None:
    wanted = title_key(record.title)
    if not wanted:
        return None
    for paper in tx.search.titled(record.title or ""):
        if (title_key(paper.title) == wanted and contradiction(_row_facts(paper), mine, TITLE) is None
                and _free(claimed.get(paper.id, ()), mine)):
            return paper.id, paper.key
    return None


# --- merging into catalog papers ----------------------------------------------------------------

_ROW = ("id", "title", "authors", "venue", "year", "doi", "arxiv_id", "url", "kind", "abstract", "abstract_text",
        "headline", "user_title")


def merge(tx, matched: list[tuple[int, PaperRecord]], now: datetime) -> tuple[int, list[tuple[str, ...]]]:
    """Fill empty fields of catalog papers from the records that matched them. Returns how many
    papers gained something, and for each record the fields it filled. UPDATEs, so the FTS
    trigger reindexes exactly those rows."""
    by_pid: dict[int, list[int]] = {}
    for n, (pid, _) in enumerate(matched):
        by_pid.setdefault(pid, []).append(n)
    filled: list[tuple[str, ...]] = [()] * len(matched)
    changed = 0
    # A cheap first look: which papers lack something these records have.
    for have in tx.imports.missing_fields(by_pid, FILLABLE):
        lacks_abstract = bool(have.pop("lacks_abstract"))
        pid = have.pop("id")
        union = PaperRecord("", 0, 0)
        for n in by_pid[pid]:
            record = matched[n][1]
            names = [f for f in FILLABLE if have[f] in (None, "") and getattr(record, f) not in (None, "")]
            for name in names:
                have[name] = getattr(record, name)
            if lacks_abstract and record.abstract:
                names.append("abstract")
                lacks_abstract = False
            filled[n] = tuple(names)
            fill(union, record)
        if any(filled[n] for n in by_pid[pid]):
            done = _update(tx, pid, union, now)
            changed += bool(done)
            for n in by_pid[pid]:
                filled[n] = tuple(f for f in filled[n] if f in done)
    return changed, filled


def _update(tx, pid: int, record: PaperRecord, now: datetime) -> set[str]:
    """Fill the paper's empty fields from `record`; the names of those filled."""
    current = tx.imports.paper_columns(pid, _ROW)
    changes: dict[str, object] = {}
    if record.title and title_key(record.title) in {title_key(current["headline"]), title_key(current["user_title"])}:
        record.title = None  # this catalog's own headline (or your title) coming back from an export
    for name in FILLABLE:
        if current[name] in (None, "") and getattr(record, name) not in (None, ""):
            changes[name] = current[name] = getattr(record, name)
    if not current["abstract"] and record.abstract:
        changes.update(abstract_columns(tx, record.abstract, current))
    if not changes:
        return set()
    save(tx, pid, changes, current, now)
    return set(changes) & {*FILLABLE, "abstract"}


def abstract_columns(tx, abstract: str, current: dict) -> dict[str, object]:
    """The columns that follow a paper's abstract (updated in `current` too)."""
    rendered = tex.render(abstract) if abstract else ""
    changes: dict[str, object] = {
        "abstract": abstract, "abstract_text": rendered,
        "headline": headlines.headline(abstract, rendered=rendered) if abstract else (current["title"] or "")}
    current.update(changes)
    # The fingerprint follows an identifying abstract (unless another paper has it), so a
    # paper list holding this abstract later finds this paper. The key stays.
    if identifies(abstract):
        fp = fingerprint_of(abstract)
        if not tx.imports.fingerprint_taken(fp):
            changes["fingerprint"] = fp
    return changes


def save(tx, pid: int, changes: dict[str, object], current: dict, now: datetime) -> None:
    """Write `changes` to the paper, with the search text that follows its title, authors or
    abstract."""
    if {"title", "authors", "abstract"} & changes.keys():
        changes["search_extra"] = " ".join(filter(None, (
            tex.search_extra(current["abstract"]),
            cjk_search_text(current["title"], current["headline"], current["abstract_text"], current["authors"]))))
    changes["updated_at"] = now
    tx.imports.update_paper(pid, changes)
