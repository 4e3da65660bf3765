"""What discovery reads and writes besides the papers' texts (store/sqlite/store.py streams
those): the stored topics of a list, and which papers a recommendation may not suggest.
Plain SQL both backends run."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from catalog.store.rows import chunks


class DiscoveryQueries:
    """Mixed into a backend's transaction, which provides `self.conn`."""

    # --- stored topics (the `topic` table, migration 0007) ----------------------------------

    def save_topics(self, scope: str, records: Iterable) -> None:
        """Replace the topics of `scope` with `records` (TopicRecord: one per paper)."""
        self.conn.execute("DELETE FROM topic WHERE scope = ?", (scope,))
        self.conn.executemany(
            "INSERT INTO topic(scope, paper_id, number, label, rank) VALUES (?, ?, ?, ?, ?)",
            [(scope, r.paper_id, r.number, r.label, r.rank) for r in records])

    def topic_counts(self, scope: str) -> list[tuple[int, str, int]]:
        """(number, label, papers) of the topics stored for `scope`, largest first (numbers
        follow a topic from one grouping to the next, so they need not follow the sizes)."""
        return [(r["number"], r["label"], r["papers"]) for r in self.conn.execute(
            "SELECT number, min(label) AS label, count(*) AS papers FROM topic WHERE scope = ?"
            " GROUP BY number ORDER BY papers DESC, number", (scope,))]

    def topic_numbers(self, scope: str) -> dict[int, int]:
        """Paper id -> the number of its stored topic in `scope` (what a new grouping of the
        list renumbers its topics by)."""
        return {r["paper_id"]: r["number"] for r in self.conn.execute(
            "SELECT paper_id, number FROM topic WHERE scope = ?", (scope,))}

    def topic_paper_ids(self, scope: str, number: int) -> list[int]:
        """The papers of one stored topic, closest to its centre first."""
        return self.conn.execute(
            "SELECT paper_id FROM topic WHERE scope = ? AND number = ? ORDER BY rank",
            (scope, number)).scalars()

    # --- which papers ------------------------------------------------------------------------

    def ids_with_status(self, statuses: Sequence[str]) -> set[int]:
        marks = ",".join("?" * len(statuses))
        return set(self.conn.execute(f"SELECT id FROM paper WHERE status IN ({marks})",
                                     tuple(statuses)).scalars())

    def keys_of(self, ids: Sequence[int]) -> dict[int, str]:
        """Paper id -> key, for the ids that still exist."""
        found: dict[int, str] = {}
        for part, marks in chunks(ids):
            for row in self.conn.execute(f"SELECT id, key FROM paper WHERE id IN ({marks})", part):
                found[row["id"]] = row["key"]
        return found
