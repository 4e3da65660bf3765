"""Importing PDFs (`catalog import ~/Papers/`, `catalog add FILE.pdf`): each file is matched to
a paper already in the catalog and attached to it, or becomes a new paper from what the file
reveals, and is attached to that.

A match needs evidence, and a wrong match is worse than none (the file then becomes a paper of
its own, which `catalog attach` can fix):

- a DOI or arXiv id printed in the file's metadata or on its first pages before any reference
  list (catalog/ingest/pdf.py), naming a paper whose title or abstract is on those pages too
  (a DOI printed in the introduction may be another paper's); else
- the paper's abstract on those pages (most of its runs of three words: line breaks,
  hyphenation and math differ), or
  its title with most of its abstract, or a long title when the catalog has no abstract (or
  one too short to compare). Among papers with equal evidence, one whose title is printed
  wins (a series of near-identical abstracts differs in it).

Two papers with that much evidence and no clear winner: the file is reported and left alone.
Files are done one at a time, each in its own transactions, so a run cut short keeps what it
finished; a file whose bytes are attached already is skipped, and one imported as a new paper
before it was attached is attached to that paper, so a re-run completes the last one and
changes nothing else.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from catalog.attachments import attaching
from catalog.ingest import pdf
from catalog.ingest.records import PaperRecord
from catalog.results import FileReport
from catalog.store import Store

# Agreement of a paper's abstract with the file's front pages: the share of the abstract's
# runs of three words (as compare() makes text) found on those pages. The same paper keeps
# most of them whatever its line breaks, hyphenation or math; another paper that shares
# phrases (a template, a series) loses the runs around every word that differs.
SAME_ABSTRACT = 0.8  # the abstract alone identifies the paper
WITH_TITLE = 0.5  # enough with the title printed too
WITH_IDENTIFIER = 0.4  # enough to trust a DOI or arXiv id printed on the front pages
ABSTRACT_WORDS = 150  # of the paper's abstract, compared
MIN_ABSTRACT = 20  # words: shorter abstracts say too little
RUN = 3
LONG_TITLE = 6  # words: a title this long, printed, identifies a paper without an abstract
MARGIN = 0.05  # by which the best candidate must beat the next
SEARCH_WORDS = 14
_WORD = re.compile(r"[^\W_]{2,}|\d+")
_OPERATORS = {"or", "and", "not"}

Attach = Callable[[str, Path, object], object]  # (paper key, file, its PdfText) -> the attachment
Progress = Callable[[FileReport], None]


@dataclass(frozen=True)
class Candidate:
    paper_id: int
    key: str
    title: str  # as compare() makes text ("" when none)
    abstract: str  # as compare() makes text ("" when none)
    identifier: str | None = None  # "same DOI 10.1/x" when an identifier of the file named it


@dataclass(frozen=True)
class Choice:
    paper_id: int | None  # None: no paper (ambiguous: `why` names the candidates)
    key: str | None
    evidence: str


def import_pdfs(store: Store, files: Iterable[Path], attach: Attach, progress: Progress | None = None
                ) -> list[FileReport]:
    from catalog.attachments import pdftext

    reports = []
    for path in files:
        report = FileReport(str(path))
        reports.append(report)
        try:
            _import_one(store, path, attach, report, pdftext)
        except Exception as exc:  # one file's trouble is its line in the report, never the whole run's
            from catalog.errors import CatalogError
            from catalog.store import StoreError

            if not isinstance(exc, (CatalogError, StoreError, OSError)):
                raise
            report.error = f"{path}: {exc}"
            report.new = report.known = 0
        if progress is not None:
            progress(report)
    return reports


def _import_one(store: Store, path: Path, attach: Attach, report: FileReport, pdftext) -> None:
    from catalog.importing.importer import import_records

    path = attaching.readable(path)
    sha, _ = attaching.fingerprint(path)
    with store.read() as tx:
        if tx.papers.papers_with_file(sha):
            report.known = 1
            return
        source = tx.imports.source_with(sha)
        earlier = tx.imports.paper_ids_from(source.id) if source is not None else []
    text = pdftext.read(path, headings=True)
    if text.state != "text":
        report.error = f"{path}: {UNREAD[text.state]}: not imported"
        return
    facts = pdf.facts(text.pages, text.metadata, text.headings)
    if earlier:  # made a paper by a run that stopped before attaching the file
        with store.read() as tx:
            key = tx.papers.key_of(earlier[0])
        attach(key, path, text)
        report.new = 1
        report.merges.append(f"{path}: attached to {key}, the paper made from it")
        return
    with store.read() as tx:
        choice = choose(facts, candidates(tx, facts))
        taken = {i for i in (*facts.dois, *facts.arxiv_ids) if _named(tx, i)}
    if choice is not None and choice.paper_id is None:
        report.error = f"{path}: {choice.evidence}; attach it yourself (catalog attach KEY FILE)"
        return
    if choice is not None:
        attach(choice.key, path, text)
        report.known = 1
        report.merges.append(f"{path}: attached to {choice.key} ({choice.evidence})")
        return
    record = _record(facts, taken)
    if record is None:
        report.error = f"{path}: no title or abstract found in its text: not imported"
        return
    stored = import_records(store, [record], origin=os.fsencode(path).decode("utf-8", "replace"),
                            format="pdf", sha256=sha)
    report.new, report.known = stored.report.new, stored.report.known
    with store.read() as tx:
        key = tx.papers.key_of(stored.ids[0])
    attach(key, path, text)
    report.merges.append(f"{path}: {'new paper' if report.new else 'joined'} {key} (from the file's own text)")


UNREAD = {"no text": "no text layer (scanned pages?)", "encrypted": "encrypted (a password is needed)",
          "unreadable": "not a PDF that can be read (damaged?)"}


def _named(tx, identifier: str) -> bool:
    return bool(tx.papers.ids_with_doi(identifier) if identifier.startswith("10.") else tx.papers.ids_with_arxiv_id(identifier))


def _record(facts: pdf.PdfFacts, taken: set[str]) -> PaperRecord | None:
    """A new paper from the file: its identifiers that name no paper here (one that does, and
    failed the checks, was another paper's), title, authors, abstract, year."""
    if not facts.abstract and not facts.title:
        return None
    doi = next((d for d in facts.dois if d not in taken), None)
    arxiv = next((a for a in facts.arxiv_ids if a not in taken), None)
    return PaperRecord(abstract=facts.abstract or "", position=1, line=1, title=facts.title, authors=facts.authors,
                       doi=doi, arxiv_id=arxiv, year=facts.year)


def candidates(tx, facts: pdf.PdfFacts) -> list[Candidate]:
    """Papers the file may be: those its identifiers name, and the best few a search for its
    title, its abstract and its first words finds."""
    named: dict[int, str] = {}
    for doi in facts.dois:
        for pid in tx.papers.ids_with_doi(doi):
            named.setdefault(pid, f"same DOI {doi}")
    for arxiv in facts.arxiv_ids:
        for pid in tx.papers.ids_with_arxiv_id(arxiv):
            named.setdefault(pid, f"same arXiv id {arxiv}")
    from catalog.searching.query import QueryError, parse

    found = list(named)
    for text in (facts.title, facts.abstract, facts.front):
        words = [w for w in _WORD.findall((text or "").lower()) if w not in _OPERATORS][:SEARCH_WORDS]
        if len(words) < 3:
            continue
        # All the words (a title, the start of an abstract), and any of them (the page's
        # text may differ: a line break, a symbol).
        for joined in (" ".join(words), " OR ".join(words)):
            try:
                query = parse(joined)
            except QueryError:
                continue
            found += [hit.paper_id for hit in tx.search.page(query, limit=8, partial=False)]
    ids = list(dict.fromkeys(found))
    rows = tx.imports.paper_facts(ids)
    return [Candidate(pid, rows[pid].key, pdf.compare(rows[pid].title or ""), pdf.compare(rows[pid].abstract or ""),
                      named.get(pid)) for pid in ids if pid in rows]


def _runs(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + RUN]) for i in range(len(words) - RUN + 1)}


def choose(facts: pdf.PdfFacts, found: list[Candidate]) -> Choice | None:
    """The paper the file is, on the module's evidence; None: none; Choice(None, ...): two
    papers with no clear winner."""
    front = facts.front
    printed = _runs(front.split())
    scored = []
    for c in found:
        title = len(c.title.split()) >= 3 and f" {c.title} " in f" {front} "
        words = c.abstract.split()[:ABSTRACT_WORDS]
        runs = _runs(words)
        agree = len(runs & printed) / len(runs) if len(words) >= MIN_ABSTRACT else 0.0
        abstract = words
        if c.identifier and (title or agree >= WITH_IDENTIFIER or not (c.title or c.abstract)):
            scored.append((3, title, agree, c, c.identifier))
        elif agree >= SAME_ABSTRACT:
            scored.append((2, title, agree, c, "same abstract" + (" and title" if title else "")))
        elif title and agree >= WITH_TITLE:
            scored.append((2, title, agree, c, "same title and abstract"))
        elif title and len(abstract) < MIN_ABSTRACT and len(c.title.split()) >= LONG_TITLE:
            scored.append((1, title, 1.0, c, "same title"))  # an abstract too short to compare, or none
    if any(s[1] for s in scored):  # a paper whose title is printed: those whose title is not, are not
        scored = [s for s in scored if s[1] or len(s[3].title.split()) < 3]
    if not scored:
        return None
    # Evidence first, then a title printed on the page (near-identical abstracts of a series
    # differ in it), then how well the abstract agrees.
    scored.sort(key=lambda s: s[:3], reverse=True)
    best = scored[0]
    if len(scored) > 1 and scored[1][:2] == best[:2] and best[2] - scored[1][2] < MARGIN:
        return Choice(None, None, f"it could be {best[3].key} or {scored[1][3].key}")
    return Choice(best[3].paper_id, best[3].key, best[4])
