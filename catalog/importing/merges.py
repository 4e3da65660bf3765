"""The record of merges, and undoing them (`catalog split`).

Each record that joined a paper already seen (in its file or in the catalog) is kept with its
evidence and the fields it filled (the `paper_merge` table), so `catalog import --verbose` can
list the merges and `catalog split KEY` can make such records papers of their own again.
"""

from __future__ import annotations

import json
from datetime import datetime

from catalog.importing.dedupe import (
    ABSTRACT, abstract_columns, describe, fingerprint, group, save,
)
from catalog.errors import CatalogError
from catalog.ingest.records import PaperRecord

_RECORD_FIELDS = ("title", "authors", "venue", "year", "doi", "arxiv_id", "url", "kind", "abstract")


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


def store_merges(tx, rows: list[tuple[int, int, int, str, tuple[str, ...], PaperRecord]],
                 now: datetime) -> None:
    """Keep each merge: (paper id, source id, position, evidence, fields filled, record)."""
    if rows:
        tx.merges.add_merges(
            [(pid, source, position, evidence, " ".join(filled),
              record_json(record, same_abstract=bool(record.abstract) and evidence == describe(ABSTRACT, record)),
              now)
             for pid, source, position, evidence, filled, record in rows])


# --- splitting a paper: undoing merges -----------------------------------------------------------------

_PAPER = ("title", "authors", "venue", "year", "doi", "arxiv_id", "url", "kind", "abstract", "abstract_text",
          "headline", "user_title", "fingerprint")


def split(tx, pid: int, key: str, numbers: list[int], now: datetime) -> list[int]:
    """Make records that joined paper `pid` papers of their own: those of the sources numbered
    (1-based, as `catalog show` lists them), or all that joined it. The paper keeps its key,
    your annotations and what its own record said; it loses what only they gave, and takes it
    from the records that stay where they have it. Records that leave together and are one
    paper by the rules above stay one paper. Returns the new papers' ids."""
    sources = tx.merges.places_of(pid)
    merged = tx.merges.merges_into(pid)
    if not merged:
        if len(sources) > 1:
            raise CatalogError(f"paper {key}'s records were merged before this version of catalog kept "
                               f"merges, so they cannot be split (import the files into a new catalog)")
        raise CatalogError(f"paper {key} came from one record; there is nothing to split")
    by_place = {(m.source_id, m.position): m for m in merged}
    if numbers:
        leaving = []
        for n in numbers:
            if not 1 <= n <= len(sources):
                raise CatalogError(f"paper {key} has no source {n} (it has {len(sources)}; see catalog show {key})")
            merge = by_place.get(tuple(sources[n - 1]))
            if merge is None:
                raise CatalogError(f"source {n} is the paper's own record (the one it was first imported from); "
                                   f"split the others off it")
            leaving.append(merge)
    else:
        leaving = list(merged)
    current = tx.imports.paper_columns(pid, _PAPER)
    records = {m.id: record_from_json(m.record, m.position, abstract=current["abstract"]) for m in merged}
    gone = {m.id for m in leaving}
    if any("abstract" in m.filled.split() for m in leaving):
        # Records that joined by this abstract keep it written out: the paper's changes now.
        for m in merged:
            if m.id not in gone and '"same_abstract"' in m.record:
                tx.merges.set_merge(m.id, record=record_json(records[m.id], same_abstract=False))
    _revert(tx, pid, current, [(m.id, m.filled) for m in leaving],
            [(m.id, set(m.filled.split()), records[m.id]) for m in merged if m.id not in gone], now)
    tx.merges.delete_merges(gone)
    return _papers_of(tx, pid, [(m.source_id, m.position, records[m.id]) for m in leaving], now)


def _revert(tx, pid: int, current: dict, leaving: list[tuple[int, str]],
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
            tx.merges.set_merge(merge_id, filled=" ".join(sorted(filled | set(gave))))
    changes: dict[str, object] = {n: v for n, v in values.items() if n != "abstract"}
    current.update(changes)
    if "abstract" in cleared or ("title" in cleared and not current["abstract"]):
        changes.update(abstract_columns(tx, values.get("abstract", current["abstract"]), current))
        changes.pop("fingerprint", None)
    own = PaperRecord(current["abstract"], 0, 0, title=current["title"], doi=current["doi"],
                      arxiv_id=current["arxiv_id"])
    fp = fingerprint(own)
    if fp != current["fingerprint"]:
        # A leaving record's abstract must no longer find this paper.
        from catalog.importing.identity import unique_fingerprints

        taken = {fp} if tx.imports.fingerprint_taken(fp, other_than=pid) else set()
        changes["fingerprint"] = unique_fingerprints(tx, [fp], taken, keep=current["fingerprint"])[0]
    save(tx, pid, changes, current, now)
    if "authors" in changes:
        tx.imports.set_authors([(pid, changes["authors"])])


def _papers_of(tx, pid: int, leaving: list[tuple[int, int, PaperRecord]], now: datetime) -> list[int]:
    """New papers from the leaving records (grouped by the import rules), with their provenance
    and the merges among them."""
    from catalog.importing import prepare
    from catalog.importing.identity import insert_papers

    places = [(source, position) for source, position, _ in leaving]
    for n, (_, _, record) in enumerate(leaving):
        record.position = n  # where each record came from, through group()
    papers = group([record for _, _, record in leaving])
    taken = {o.value for o in tx.imports.papers_with_values("fingerprint", [p.fp for p in papers])}
    ids = insert_papers(tx, papers, [prepare.paper_fields(p.record, p.fp) for p in papers], taken, now)
    rows = []
    for new, paper in zip(ids, papers):
        for n in paper.positions:
            tx.merges.move_record(*places[n], from_paper=pid, to_paper=new)
        rows.extend((new, *places[m.record.position], m.evidence, m.filled, m.record) for m in paper.merges)
    store_merges(tx, rows, now)
    tx.imports.set_authors([(new, paper.record.authors) for new, paper in zip(ids, papers) if paper.record.authors])
    _give_citekeys(tx, ids, papers)
    return ids


def _give_citekeys(tx, ids: list[int], papers: list) -> None:
    """A split-off paper's cite key: the key its records' files gave it, else one made as an
    import makes it (catalog/ingest/citekeys.py), unique across papers."""
    from catalog.ingest import citekeys

    pattern = tx.imports.setting(citekeys.SETTING) or citekeys.PATTERN
    kept = tx.papers.kept_records(ids)
    keys = citekeys.NextFree(tx.imports.citekeys_taken)
    for new, paper in zip(ids, papers):
        own = citekeys.own_key([citekeys.FileKey(r.format, r.cite_key) for r in kept.get(new, [])])
        r = paper.record
        base = own or citekeys.made_key(authors=r.authors, year=r.year, title=r.title or "", venue=r.venue,
                                        fallback="paper", pattern=pattern)
        key = keys.give(base, own is None)
        tx.imports.set_citekey(new, key, own is None)
        keys.moved(None, key)
