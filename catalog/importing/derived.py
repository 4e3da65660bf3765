"""Text a paper derives from its abstract: abstract_text, headline, search_extra and the
fingerprint (prepare.derived_text, dedupe.fingerprint). A hand edit of `abstract` leaves them
describing the old text: the store notes such edits (a trigger) and calls `refresh` at the
next write; `catalog doctor` finds the edits no trigger saw with `stale`."""

from __future__ import annotations

from collections.abc import Sequence

from catalog.importing.dedupe import fingerprint, fingerprint_of, identifies
from catalog.ingest.records import PaperRecord
from catalog.importing.prepare import derived_text
from catalog.store.rows import DerivedRow


def _fingerprint(row: DerivedRow, identifying: bool | None = None) -> str:
    """The fingerprint a paper with this row's text would get (`identifying`: whether its
    abstract counts as identifying it; by default, whether it is long enough to)."""
    return fingerprint(PaperRecord(row.abstract, 0, 0, title=_named(row), doi=row.doi,
                                   arxiv_id=row.arxiv_id), identifying)


def _named(row: DerivedRow) -> str | None:
    """The title, or for a paper with neither title nor abstract the headline its record's
    fields gave it at import (fields.headline_from_fields), which nothing else can derive again."""
    return row.title or (row.headline or None if not row.abstract else None)


def _fresh(row: DerivedRow) -> list[str]:
    return list(derived_text(row.abstract, _named(row), row.authors))


def _current(row: DerivedRow) -> list[str]:
    return [row.abstract_text, row.headline, row.search_extra]


def stale(tx) -> list[int]:
    """Ids of papers whose derived text no longer matches their abstract.

    The fingerprint is a cheap witness, confirmed by deriving the text: a paper may keep an
    older fingerprint on purpose (another paper had its abstract first; a title and ids that
    merges completed later), or one of its title and abstract when the file that brought it
    gave that abstract to other papers too (a publisher's placeholder: dedupe.shared_abstracts)."""
    found = set(tx.imports.papers_to_rederive())
    for row in tx.imports.derived_rows():
        if (row.id in found or row.fingerprint == _fingerprint(row)
                or row.fingerprint == _fingerprint(row, False)):  # hashed only when the first differs
            continue
        # An identifying abstract's fingerprint that no other paper has belongs to this one.
        if identifies(row.abstract) and not tx.imports.fingerprint_taken(fingerprint_of(row.abstract)):
            found.add(row.id)
        elif _fresh(row) != _current(row):
            found.add(row.id)
    return sorted(found)


def refresh(tx, ids: Sequence[int]) -> int:
    """Derive these papers' text again; keys stay (a key is the paper's identity), and so does
    a fingerprint another paper has. Returns how many changed."""
    changed = 0
    for row in tx.imports.derived_rows(ids):
        fresh = _fresh(row)
        wanted = _fingerprint(row)
        if wanted != row.fingerprint and tx.imports.fingerprint_taken(wanted, other_than=row.id):
            wanted = row.fingerprint  # the same text as another paper: a duplicate, left to the user
        if fresh != _current(row) or wanted != row.fingerprint:
            abstract_text, headline, search_extra = fresh
            tx.imports.set_derived(row.id, abstract_text=abstract_text, headline=headline,
                                   search_extra=search_extra, fingerprint=wanted)
            changed += 1
    tx.imports.rederived(ids)
    return changed
