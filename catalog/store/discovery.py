"""What discovery reads and writes besides the papers' texts (each backend streams those):
the stored topics of a list, which papers it learns from, and which papers a recommendation
may not suggest. Plain SQL both backends run."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from catalog.store.base import Discovery
from catalog.store.rows import AcronymRow, TextVersion, TopicSize


class DiscoveryQueries(Discovery):
    """The Discovery role in SQL both backends run, but for the papers' texts (the backend's
    own); `user`: whose reading status and rating count."""

    def text_version(self) -> TextVersion:
        """Papers, the newest id, and a stamp that changes when a known paper's text may have: imports
        add a source row, retitling sets user_title (a partial index holds those papers).
        Tags, ratings and statuses change none of these."""
        papers = self.conn.execute("SELECT count(*) AS n, coalesce(max(id), 0) AS newest FROM paper").one()
        sources = self.conn.execute("SELECT count(*) AS n, coalesce(max(id), 0) AS newest FROM source").one()
        titled = self.conn.execute("SELECT count(*) AS n, coalesce(CAST(max(updated_at) AS TEXT), '') AS newest"
                                   " FROM paper WHERE user_title IS NOT NULL").one()
        return TextVersion(papers["n"], papers["newest"],
                           f"sources {sources['n']}/{sources['newest']}; titles {titled['n']}/{titled['newest']}")

    def acronyms(self) -> list[AcronymRow]:
        """Every acronym the abstracts define, as imports learned them (the `acronym` table)."""
        return [AcronymRow(r["short"], r["long_key"], r["long"], r["papers"], bool(r["ordinary"]))
                for r in self.conn.execute("SELECT short, long_key, long, papers, ordinary FROM acronym")]

    # --- stored topics (the `topic` table, migration 0007) ----------------------------------

    def save_topics(self, scope: str, records: Iterable) -> None:
        """Replace the topics of `scope` with `records` (TopicRecord: one per paper)."""
        self.conn.execute("DELETE FROM topic WHERE scope = ?", (scope,))
        self.conn.executemany(
            "INSERT INTO topic(scope, paper_id, number, label, rank) VALUES (?, ?, ?, ?, ?)",
            [(scope, r.paper_id, r.number, r.label, r.rank) for r in records])

    def topic_counts(self, scope: str) -> list[TopicSize]:
        """The topics stored for `scope` (number, label, papers), largest first (numbers
        follow a topic from one grouping to the next, so they need not follow the sizes)."""
        return [TopicSize(r["number"], r["label"], r["papers"]) for r in self.conn.execute(
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
        """The papers this reader gave one of `statuses` (each person's own, paper_reader)."""
        return set(self.conn.execute(self._status_ids(statuses), (self.user, *statuses)).scalars())

    @staticmethod
    def _status_ids(statuses: Sequence[str]) -> str:
        """Ids of the papers whose status is in `statuses` (parameters: the reader, then them);
        a paper without a row of this reader's is unread."""
        marks = ",".join("?" * len(statuses))
        assert "unread" not in statuses  # unread papers have no row
        return f"SELECT paper_id FROM paper_reader WHERE reader = ? AND status IN ({marks})"

    def tagged_papers(self, tag: str) -> list[int]:
        """Ids of the papers carrying `tag` or a tag below it (`project` takes `project/x`)."""
        pattern = tag.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"
        return self.conn.execute(
            "SELECT DISTINCT pt.paper_id FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id"
            " WHERE t.name = ? OR t.name LIKE ? ESCAPE '\\' ORDER BY pt.paper_id", (tag, pattern)).scalars()

    def liked_papers(self) -> list[int]:
        """Ids of the papers this reader rated 4 or 5 or marked read."""
        return self.conn.execute(
            "SELECT paper_id FROM paper_reader WHERE reader = ? AND (rating >= 4 OR status = 'read')"
            " ORDER BY paper_id", (self.user,)).scalars()

    def promising_papers(self) -> list[int]:
        """Ids of the papers this reader has shown interest in: rated 4 or 5, queued, being read
        or read, or tagged (what triage ranks the rest by)."""
        return self.conn.execute(
            "SELECT paper_id FROM paper_reader WHERE reader = ?"
            " AND (rating >= 4 OR status IN ('queued', 'reading', 'read'))"
            " UNION SELECT paper_id FROM paper_tag ORDER BY 1", (self.user,)).scalars()
