"""Merges and splits: the record of each merge an import made (what `catalog split` undoes),
where a paper's records came from, and moving a record to another paper. Plain SQL both
backends run."""

from __future__ import annotations

from collections.abc import Iterable

from catalog.store.base import Merges
from catalog.store.rows import MergeRecord, Place, chunks


class MergeQueries(Merges):
    """The Merges role in SQL both backends run."""

    def add_merges(self, merges: Iterable[tuple]) -> None:
        """(paper id, source id, position, evidence, filled, record JSON, merged at) of each."""
        self.conn.executemany(
            "INSERT INTO paper_merge(paper_id, source_id, position, evidence, filled, record, merged_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)", merges)

    def merges_into(self, paper_id: int) -> list[MergeRecord]:
        """The records that joined the paper, oldest first."""
        return [MergeRecord(r["id"], r["source_id"], r["position"], r["evidence"], r["filled"], r["record"])
                for r in self.conn.execute(
                    "SELECT id, source_id, position, evidence, filled, record FROM paper_merge"
                    " WHERE paper_id = ? ORDER BY id", (paper_id,))]

    def set_merge(self, merge_id: int, *, record: str | None = None, filled: str | None = None) -> None:
        if record is not None:
            self.conn.execute("UPDATE paper_merge SET record = ? WHERE id = ?", (record, merge_id))
        if filled is not None:
            self.conn.execute("UPDATE paper_merge SET filled = ? WHERE id = ?", (filled, merge_id))

    def delete_merges(self, ids: Iterable[int]) -> None:
        for part, marks in chunks(list(ids)):
            self.conn.execute(f"DELETE FROM paper_merge WHERE id IN ({marks})", part)

    def places_of(self, paper_id: int) -> list[Place]:
        """Where each record of the paper came from, as `catalog show` numbers them."""
        return [Place(r["source_id"], r["position"]) for r in self.conn.execute(
            "SELECT pr.source_id, pr.position FROM provenance pr JOIN source s ON s.id = pr.source_id"
            " WHERE pr.paper_id = ? ORDER BY s.id, pr.position", (paper_id,))]

    def move_record(self, source_id: int, position: int, *, from_paper: int, to_paper: int) -> None:
        self.conn.execute(
            "UPDATE provenance SET paper_id = ? WHERE paper_id = ? AND source_id = ? AND position = ?",
            (to_paper, from_paper, source_id, position))
        self.conn.execute(
            "UPDATE kept_record SET paper_id = ? WHERE paper_id = ? AND source_id = ? AND position = ?",
            (to_paper, from_paper, source_id, position))
