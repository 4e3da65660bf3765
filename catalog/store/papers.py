"""Reading papers: by key, as summaries, details and export records, and overviews (counts
for `catalog stats`, the TUI's facets, `catalog tags`). Plain SQL both backends run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from catalog.results import (
    AuthorCount, PaperDetail, PaperState, PaperSummary, RatingCount, StatusCount, TagCount, VenueCount, gravest,
)
from catalog.store import rows
from catalog.store.base import Papers
from catalog.store.rows import READER_JOIN, SUMMARY_COLUMNS, as_datetime, chunks

if TYPE_CHECKING:  # exports' results: loaded by an export, not by every read
    from catalog.results import ExportPaper


class PaperReads(Papers):
    """The Papers role in SQL both backends run; statuses and ratings are `user`'s."""

    # --- keys -----------------------------------------------------------------------------

    def paper_id(self, key: str) -> int | None:
        return self.conn.execute("SELECT id FROM paper WHERE key = ?", (key,)).scalar()

    def keys_starting(self, prefix: str, limit: int) -> list[rows.PaperKey]:
        return [rows.PaperKey(r["id"], r["key"]) for r in self.conn.execute(
            "SELECT id, key FROM paper WHERE key >= ? AND key < ? ORDER BY key LIMIT ?",
            (prefix, prefix + "\uffff", limit))]

    def ids_with_doi(self, doi: str) -> list[int]:
        """Papers with this DOI (stored in lower case), oldest first."""
        return self.conn.execute("SELECT id FROM paper WHERE doi = ? ORDER BY id", (doi,)).scalars()

    def ids_with_arxiv_id(self, arxiv_id: str) -> list[int]:
        """Papers with this arXiv id (stored in lower case, without version), oldest first."""
        return self.conn.execute("SELECT id FROM paper WHERE arxiv_id = ? ORDER BY id",
                                 (arxiv_id,)).scalars()

    def all_keys(self) -> list[str]:
        return self.conn.execute("SELECT key FROM paper").scalars()

    def key_of(self, paper_id: int) -> str:
        return self.conn.execute("SELECT key FROM paper WHERE id = ?", (paper_id,)).scalar()

    def keys_of(self, ids: Sequence[int]) -> dict[int, str]:
        found: dict[int, str] = {}
        for part, marks in chunks(ids):
            for row in self.conn.execute(f"SELECT id, key FROM paper WHERE id IN ({marks})", part):
                found[row["id"]] = row["key"]
        return found

    # --- papers ---------------------------------------------------------------------------

    def summaries(self, ids: Sequence[int]) -> list[PaperSummary]:
        """The papers with these ids, in that order, flagged with their gravest notice."""
        found: dict[int, PaperSummary] = {}
        for part, marks in chunks(ids):
            for row in self.conn.execute(f"SELECT {SUMMARY_COLUMNS} FROM paper p {READER_JOIN} WHERE p.id IN ({marks})",
                                         (self.user, *part)):
                found[row["id"]] = rows.summary(row)
        for pid, notices in self.notices_of(list(found)).items():
            found[pid] = replace(found[pid], notice=gravest(n.kind for n in notices))
        return [found[i] for i in ids if i in found]

    def notices_of(self, ids: Sequence[int]) -> dict[int, tuple]:
        found: dict[int, list] = {}
        for part, marks in chunks(ids):
            for row in self.conn.execute(
                    "SELECT paper_id, kind, doi, label, updated FROM paper_notice"
                    f" WHERE paper_id IN ({marks}) ORDER BY paper_id, updated, doi", part):
                found.setdefault(row["paper_id"], []).append(rows.notice(row))
        return {pid: tuple(notices) for pid, notices in found.items()}

    def detail(self, paper_id: int) -> PaperDetail:
        row = self.conn.execute(
            f"SELECT {SUMMARY_COLUMNS}, p.abstract, p.abstract_text, p.headline, p.title AS real_title,"
            f" p.user_title, p.authors, p.doi, p.arxiv_id, p.url, p.kind FROM paper p {READER_JOIN} WHERE p.id = ?",
            (self.user, paper_id)).one()
        sources = self.conn.execute(
            "SELECT s.path, s.venue, s.year, s.format, s.imported_at, pr.position, m.evidence FROM provenance pr"
            " JOIN source s ON s.id = pr.source_id"
            " LEFT JOIN paper_merge m ON m.paper_id = pr.paper_id AND m.source_id = pr.source_id"
            " AND m.position = pr.position WHERE pr.paper_id = ? ORDER BY s.id, pr.position",
            (paper_id,))
        pdf = self.conn.execute(
            "SELECT url FROM paper_link WHERE paper_id = ? AND rel = 'pdf' ORDER BY source_id, url LIMIT 1",
            (paper_id,)).scalar()
        notices = self.notices_of([paper_id]).get(paper_id, ())
        return PaperDetail(
            pdf_url=pdf, notices=notices,
            summary=replace(rows.summary(row), notice=gravest(n.kind for n in notices)), abstract=row["abstract"], abstract_text=row["abstract_text"],
            headline=row["headline"], title=row["real_title"], user_title=row["user_title"],
            authors=row["authors"], doi=row["doi"], arxiv_id=row["arxiv_id"], url=row["url"],
            notes=self.notes_of(paper_id), sources=tuple(rows.source(s) for s in sources), kind=row["kind"],
            attachments=self.attachments_of(paper_id),
            records=tuple(self.kept_records([paper_id]).get(paper_id, ())))

    def attachments_of(self, paper_id: int) -> tuple:
        return tuple(rows.attachment(r, n) for n, r in enumerate(self.conn.execute(
            f"SELECT {rows.ATTACHMENT_COLUMNS} FROM attachment a WHERE a.paper_id = ? ORDER BY a.id",
            (paper_id,)), 1))

    def with_files(self, ids: Sequence[int]) -> set[int]:
        found = set()
        for part, marks in chunks(ids):
            found.update(self.conn.execute(
                f"SELECT DISTINCT paper_id FROM attachment WHERE paper_id IN ({marks})", part).scalars())
        return found

    def papers_with_file(self, sha256: str) -> list[int]:
        return self.conn.execute("SELECT DISTINCT paper_id FROM attachment WHERE sha256 = ? ORDER BY paper_id",
                                 (sha256,)).scalars()

    def every_attachment(self) -> list[rows.KeyedAttachment]:
        """(paper key, AttachmentView) of every attachment, by paper."""
        found, numbers = [], {}
        for r in self.conn.execute(
                f"SELECT p.key, {rows.ATTACHMENT_COLUMNS} FROM attachment a JOIN paper p ON p.id = a.paper_id"
                " ORDER BY a.paper_id, a.id"):
            numbers[r["key"]] = numbers.get(r["key"], 0) + 1
            found.append(rows.KeyedAttachment(r["key"], rows.attachment(r, numbers[r["key"]])))
        return found

    def notes_of(self, paper_id: int) -> tuple:
        return tuple(rows.note(r, n) for n, r in enumerate(self.conn.execute(
            "SELECT id, body, author, created_at, updated_at FROM note WHERE paper_id = ?"
            " ORDER BY created_at, id", (paper_id,)), 1))

    def paper_state(self, paper_id: int) -> PaperState:
        detail = self.detail(paper_id)
        return PaperState(detail.summary.key, detail.summary.tags, detail.summary.status,
                          detail.summary.rating, detail.user_title,
                          tuple((n.id, n.body) for n in detail.notes))

    def tags_by_key(self, keys: Sequence[str]) -> dict[str, tuple[str, ...]]:
        # A statement per chunk of keys: the tag editor asked for every paper's whole state
        # one key at a time, 8-19 s for 16k marked papers while the tagging itself waited.
        found: dict[str, tuple[str, ...]] = {}
        for part, marks in chunks(keys):
            for row in self.conn.execute(f"SELECT key, tags_text FROM paper WHERE key IN ({marks})", part):
                found[row["key"]] = tuple(row["tags_text"].split())
        return found

    def export_papers(self, ids: Sequence[int]) -> list[ExportPaper]:
        """Everything exports write about these papers, in the order of `ids`."""
        found, tags, notes = {}, {}, {}
        for part, marks in chunks(ids):
            for row in self.conn.execute(
                    "SELECT p.id, p.key, p.fingerprint, p.title, p.headline, p.user_title, p.authors, p.venue,"
                    " p.year, coalesce(r.status, 'unread') AS status, r.rating, p.doi, p.arxiv_id, p.url, p.kind,"
                    f" p.abstract, p.added_at, ck.key AS cite_key FROM paper p {READER_JOIN}"
                    f" LEFT JOIN citekey ck ON ck.paper_id = p.id WHERE p.id IN ({marks})",
                    (self.user, *part)):
                found[row["id"]] = row
            for row in self.conn.execute(
                    "SELECT pt.paper_id, t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id"
                    f" WHERE pt.paper_id IN ({marks}) ORDER BY t.name", part):
                tags.setdefault(row["paper_id"], []).append(row["name"])
            for row in self.conn.execute(
                    f"SELECT paper_id, body FROM note WHERE paper_id IN ({marks}) ORDER BY created_at, id",
                    part):
                notes.setdefault(row["paper_id"], []).append(row["body"])
        kept = self.kept_records([i for i in ids if i in found])
        notices = self.notices_of(list(found))
        return [replace(rows.export_paper(found[i], tags.get(i, ()), notes.get(i, ()), kept.get(i, ())),
                        notices=notices.get(i, ()))
                for i in ids if i in found]

    def author_counts(self, ids: Sequence[int] | None, limit: int | None) -> list[AuthorCount]:
        counted = "SELECT name, count(DISTINCT paper_id) AS papers FROM paper_author"
        if ids is None:
            ranked = f"{counted} GROUP BY name ORDER BY papers DESC, name"
            rows = self.conn.execute(ranked) if limit is None else self.conn.execute(f"{ranked} LIMIT ?", (limit,))
            return [AuthorCount(r["name"], r["papers"]) for r in rows]
        counts: dict[str, int] = {}
        for part, marks in chunks(list(ids)):
            for r in self.conn.execute(f"{counted} WHERE paper_id IN ({marks}) GROUP BY name", part):
                counts[r["name"]] = counts.get(r["name"], 0) + r["papers"]
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]  # None: all
        return [AuthorCount(name, n) for name, n in ranked]

    def ids_with_citekey(self, key: str) -> list[int]:
        return self.conn.execute(
            "SELECT paper_id FROM citekey WHERE key = ? UNION"
            " SELECT paper_id FROM kept_record WHERE cite_key = ? ORDER BY 1", (key, key)).scalars()

    def kept_records(self, ids: Sequence[int]) -> dict[int, list]:
        out: dict[int, list] = {}
        for part, marks in chunks(list(ids)):
            for row in self.conn.execute(
                    "SELECT r.paper_id, s.format, s.path, r.position, r.entry_type, r.cite_key, r.fields"
                    " FROM kept_record r JOIN source s ON s.id = r.source_id"
                    f" WHERE r.paper_id IN ({marks}) ORDER BY r.source_id, r.position", part):
                out.setdefault(row["paper_id"], []).append(rows.record_fields(row))
        return out

    # --- overviews ------------------------------------------------------------------------

    def file_counts(self) -> rows.FileCounts:
        row = self.conn.execute(
            "SELECT count(DISTINCT CASE WHEN lower(path) LIKE '%.pdf' THEN paper_id END) AS pdf,"
            " count(DISTINCT paper_id) AS files FROM attachment").one()
        return rows.FileCounts(row["pdf"], row["files"])

    def paper_count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM paper").scalar()

    def tag_counts(self) -> list[TagCount]:
        return [TagCount(r["name"], r["papers"]) for r in self.conn.execute(
            "SELECT t.name, count(pt.paper_id) AS papers FROM tag t"
            " LEFT JOIN paper_tag pt ON pt.tag_id = t.id GROUP BY t.id, t.name ORDER BY t.name")]

    def tags_with_children(self, within: tuple[str, list] | None = None) -> tuple[TagCount, ...]:
        """Papers per tag, where a tag counts its children's papers too (as `tag:project`
        finds project/thesis), for every tag and every parent of one, by name. `within`: only
        the papers this subquery (sql, params) selects."""
        sql, params = "SELECT pt.paper_id, t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id", []
        if within is not None:
            sql, params = f"{sql} WHERE pt.paper_id IN ({within[0]})", list(within[1])
        names: dict[int, set[str]] = {}
        for row in self.conn.execute(sql, params):
            parts = row["name"].split("/")
            names.setdefault(row["paper_id"], set()).update(
                "/".join(parts[:i]) for i in range(1, len(parts) + 1))
        counts: dict[str, int] = {}
        for tags in names.values():
            for name in tags:
                counts[name] = counts.get(name, 0) + 1
        return tuple(TagCount(name, counts[name]) for name in sorted(counts))

    def venue_counts(self) -> tuple[VenueCount, ...]:
        """Papers per venue and year, newest year first, venues without regard to case. Reads
        the venue-year index only. (PostgreSQL's is its own: postgres/search.py venue_counts_sql.)"""
        return tuple(VenueCount(r["venue"], r["year"], r["papers"]) for r in self.conn.execute(
            "SELECT coalesce(venue, '?') AS venue, year, count(*) AS papers FROM paper"
            " GROUP BY venue, year ORDER BY year DESC, venue COLLATE NOCASE"))

    def status_counts(self, total: int) -> tuple[StatusCount, ...]:
        """Papers per status of this reader. Only statuses other than unread have rows, so
        unread papers are counted as the rest of `total`."""
        others = tuple(StatusCount(r["status"], r["papers"]) for r in self.conn.execute(
            "SELECT status, count(*) AS papers FROM paper_reader WHERE reader = ? AND status != 'unread'"
            " GROUP BY status ORDER BY status", (self.user,)))
        unread = total - sum(c.papers for c in others)
        return ((StatusCount("unread", unread),) if unread else ()) + others

    def rating_counts(self) -> tuple[RatingCount, ...]:
        """Papers per rating of the papers this reader rated, best first."""
        return tuple(RatingCount(r["rating"], r["papers"]) for r in self.conn.execute(
            "SELECT rating, count(*) AS papers FROM paper_reader WHERE reader = ? AND rating IS NOT NULL"
            " GROUP BY rating ORDER BY rating DESC", (self.user,)))

    def year_counts(self, ids: Sequence[int]) -> dict[int, int]:
        """Papers per year among these (those without a year left out)."""
        counts: dict[int, int] = {}
        for part, marks in chunks(list(ids)):
            for r in self.conn.execute(f"SELECT year, count(*) AS papers FROM paper WHERE id IN ({marks})"
                                       " AND year IS NOT NULL GROUP BY year", part):
                counts[r["year"]] = counts.get(r["year"], 0) + r["papers"]
        return counts

    def read_times(self) -> list[datetime]:
        """When this reader last changed each paper it has read (its status row's updated_at):
        for `catalog stats --plot`'s papers read per week."""
        return [as_datetime(when) for when in self.conn.execute(
            "SELECT updated_at FROM paper_reader WHERE reader = ? AND status = 'read' ORDER BY updated_at",
            (self.user,)).scalars()]

    def row_counts(self) -> dict[str, int]:
        """How many imported files, notes and tags there are."""
        return {name: self.conn.execute(f"SELECT count(*) FROM {table}").scalar()
                for name, table in (("sources", "source"), ("notes", "note"), ("tags", "tag"))}
