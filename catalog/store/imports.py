"""Importing: the files imported (sources), new papers and their keys, where each paper was
seen (provenance), looking papers up for deduplication, filling their fields, the acronyms
abstracts define, and the text derived from abstracts (merges: merges.py; deleting a paper:
edits.py). Plain SQL both backends run; a bulk load is the backend's own (bulk_load,
index_papers_from)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from catalog.errors import StoreError
from catalog.results import AttachmentView
from catalog.store.base import Imports
from catalog.store.rows import (
    ATTACHMENT_COLUMNS, DerivedRow, KeptRow, KnownSource, PaperFacts, Setting, ValueOwner, attachment, chunks,
    paper_facts,
)

# The columns of a new paper, in the order of prepare.PaperRow, then its key and times.
PAPER_COLUMNS = ("fingerprint", "abstract", "abstract_text", "search_extra", "headline", "title",
                 "authors", "venue", "year", "doi", "arxiv_id", "url", "kind")
# What deduplication compares of a catalog paper (dedupe.Facts).
FACT_COLUMNS = "id, key, title, year, authors, url, doi, arxiv_id, abstract"
# The paper columns an import or a split may write (never the user's).
WRITABLE = frozenset({*PAPER_COLUMNS, "updated_at"})
# Papers whose `abstract` was edited by hand, waiting for their derived text (migration 0006).
REDERIVE_TABLE = "paper_rederive"
# What derived text is checked against (prepare.derived_text and dedupe.fingerprint).
DERIVED_COLUMNS = DerivedRow._fields


class ImportQueries(Imports):
    """The Imports role in SQL both backends run, but for bulk loads (the backend's own)."""

    # --- sources ----------------------------------------------------------------------------

    def source_with(self, sha256: str) -> KnownSource | None:
        """The imported file with these bytes, or None."""
        row = self.conn.execute("SELECT id, warnings FROM source WHERE sha256 = ?", (sha256,)).first()
        return None if row is None else KnownSource(row["id"], row["warnings"])

    def papers_from(self, source_id: int) -> int:
        return self.conn.execute(
            "SELECT count(DISTINCT paper_id) FROM provenance WHERE source_id = ?", (source_id,)).scalar()

    def add_links(self, links: Iterable[tuple[int, str, str, int]]) -> None:
        self.conn.executemany("INSERT INTO paper_link(paper_id, rel, url, source_id) VALUES (?, ?, ?, ?)"
                              " ON CONFLICT DO NOTHING", list(links))

    def add_notices(self, notices: Iterable[tuple[int, str, str, str, str | None, int]]) -> None:
        self.conn.executemany(
            "INSERT INTO paper_notice(paper_id, kind, doi, label, updated, source_id) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING", list(notices))

    def paper_ids_from(self, source_id: int) -> list[int]:
        return list(self.conn.execute(
            "SELECT paper_id FROM provenance WHERE source_id = ? GROUP BY paper_id ORDER BY min(position)",
            (source_id,)).scalars())

    def add_source(self, *, path: str, sha256: str, venue: str | None, year: int | None,
                   format: str, imported_at: datetime, warnings: str) -> int:
        return self.conn.execute(
            "INSERT INTO source(path, sha256, venue, year, format, imported_at, warnings)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (path, sha256, venue, year, format, imported_at, warnings)).scalar()

    def set_source_warnings(self, source_id: int, warnings: str) -> None:
        self.conn.execute("UPDATE source SET warnings = ? WHERE id = ?", (warnings, source_id))

    # --- new papers ---------------------------------------------------------------------------

    def max_paper_id(self) -> int:
        return self.conn.execute("SELECT coalesce(max(id), 0) FROM paper").scalar()

    def insert_papers(self, papers: Sequence[tuple], keys: Sequence[str], stamp) -> list[int]:
        """Insert new papers (prepare.PaperRow each, named by PAPER_COLUMNS) with their keys;
        their ids, in order. The caller holds the write lock, so ids are max+1 onwards."""
        first = self.max_paper_id() + 1
        columns = ", ".join(PAPER_COLUMNS)
        self.conn.executemany(
            f"INSERT INTO paper(key, {columns}, tags_text, notes_text, added_at, updated_at)"
            f" VALUES (?, {', '.join('?' * len(PAPER_COLUMNS))}, '', '', ?, ?)",
            [(key, *paper, stamp, stamp) for key, paper in zip(keys, papers)])
        return list(range(first, first + len(papers)))

    def existing_keys(self, keys: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for part, marks in chunks(list(keys)):
            found.update(self.conn.execute(f"SELECT key FROM paper WHERE key IN ({marks})", part).scalars())
        return found

    def fingerprint_taken(self, fingerprint: str, *, other_than: int | None = None) -> bool:
        return self.conn.execute(
            "SELECT 1 FROM paper WHERE fingerprint = ? AND id != ?", (fingerprint, other_than or 0)
        ).first() is not None

    def add_provenance(self, places: Iterable[tuple[int, int, int]]) -> None:
        """(paper id, source id, position) of each record."""
        self.conn.executemany(
            "INSERT INTO provenance(paper_id, source_id, position) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            places)

    def citekeys_taken(self, keys: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for part, marks in chunks(list(keys)):
            found.update(k.lower() for k in self.conn.execute(
                f"SELECT key FROM citekey WHERE key IN ({marks})", part).scalars())
        return found

    def add_citekeys(self, rows: Iterable[tuple[int, str, bool]]) -> None:
        self.conn.executemany("INSERT INTO citekey(paper_id, key, generated) VALUES (?, ?, ?)"
                              " ON CONFLICT DO NOTHING", rows)

    def set_citekey(self, paper_id: int, key: str, generated: bool) -> None:
        self.conn.execute("DELETE FROM citekey WHERE paper_id = ?", (paper_id,))
        self.conn.execute("INSERT INTO citekey(paper_id, key, generated) VALUES (?, ?, ?)",
                          (paper_id, key, generated))

    def citekey_of(self, paper_id: int) -> str | None:
        return self.conn.execute("SELECT key FROM citekey WHERE paper_id = ?", (paper_id,)).scalar()

    def setting(self, name: str) -> str | None:
        return self.conn.execute("SELECT value FROM catalog_setting WHERE name = ?", (name,)).scalar()

    def set_setting(self, name: str, value: str | None) -> None:
        if value is None:
            self.conn.execute("DELETE FROM catalog_setting WHERE name = ?", (name,))
            return
        self.conn.execute("INSERT INTO catalog_setting(name, value) VALUES (?, ?)"
                          " ON CONFLICT(name) DO UPDATE SET value = excluded.value", (name, value))

    def settings_starting(self, prefix: str) -> list[Setting]:
        return [Setting(r["name"], r["value"]) for r in self.conn.execute(
            "SELECT name, value FROM catalog_setting WHERE substr(name, 1, ?) = ? ORDER BY name",
            (len(prefix), prefix))]

    def set_authors(self, authors: Iterable[tuple[int, str | None]]) -> None:
        from catalog.ingest.people import people

        authors = list(authors)
        for part, marks in chunks([paper_id for paper_id, _ in authors]):
            self.conn.execute(f"DELETE FROM paper_author WHERE paper_id IN ({marks})", part)
        self.conn.executemany(
            "INSERT INTO paper_author(paper_id, position, name, family, folded, folded_family, folded_short)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(paper_id, *person) for paper_id, names in authors for person in people(names)])

    def add_kept_records(self, rows: Iterable[tuple]) -> None:
        self.conn.executemany(
            "INSERT INTO kept_record(source_id, position, paper_id, entry_type, cite_key, fields)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", rows)

    def kept_rows(self, paper_id: int) -> list[KeptRow]:
        """The paper's kept records, in the order of their files."""
        return [KeptRow(r["source_id"], r["position"], r["format"], r["fields"]) for r in self.conn.execute(
            "SELECT r.source_id, r.position, s.format, r.fields FROM kept_record r"
            " JOIN source s ON s.id = r.source_id WHERE r.paper_id = ? ORDER BY r.source_id, r.position",
            (paper_id,))]

    def set_kept_fields(self, source_id: int, position: int, fields: str) -> None:
        self.conn.execute("UPDATE kept_record SET fields = ? WHERE source_id = ? AND position = ?",
                          (fields, source_id, position))

    # --- deduplication --------------------------------------------------------------------------

    def papers_with_values(self, column: str, values: Iterable[str]) -> list[ValueOwner]:
        """The papers whose DOI, arXiv id or fingerprint is one of `values`."""
        assert column in ("doi", "arxiv_id", "fingerprint")
        out: list[ValueOwner] = []
        for part, marks in chunks(list(values)):
            out.extend(ValueOwner(r[column], r["id"]) for r in self.conn.execute(
                f"SELECT {column}, id FROM paper WHERE {column} IN ({marks})", part))
        return out

    def paper_facts(self, ids: Iterable[int]) -> dict[int, PaperFacts]:
        """The facts of these papers by paper id."""
        out = {}
        for part, marks in chunks(list(ids)):
            for row in self.conn.execute(f"SELECT {FACT_COLUMNS} FROM paper WHERE id IN ({marks})", part):
                out[row["id"]] = paper_facts(row)
        return out

    def paper_columns(self, paper_id: int, columns: Sequence[str]) -> dict[str, object]:
        assert set(columns) <= WRITABLE | {"user_title", "id"}
        row = self.conn.execute(f"SELECT {', '.join(columns)} FROM paper WHERE id = ?", (paper_id,)).one()
        return {name: row[name] for name in columns}

    def missing_fields(self, ids: Iterable[int], fields: Sequence[str]) -> list[dict[str, object]]:
        """For each paper: its id, `fields`, and whether it lacks an abstract (a cheap first
        look at what records could fill)."""
        assert set(fields) <= WRITABLE
        out = []
        for part, marks in chunks(list(ids)):
            for row in self.conn.execute(
                    f"SELECT id, {', '.join(fields)}, abstract = '' AS lacks_abstract FROM paper"
                    f" WHERE id IN ({marks})", part):
                out.append({name: row[name] for name in ("id", *fields, "lacks_abstract")})
        return out

    def update_paper(self, paper_id: int, changes: dict[str, object]) -> None:
        """Set imported columns of a paper (the FTS trigger reindexes it)."""
        assert changes.keys() <= WRITABLE
        sets = ", ".join(f"{name} = ?" for name in changes)
        self.conn.execute(f"UPDATE paper SET {sets} WHERE id = ?", (*changes.values(), paper_id))

    # --- acronyms the abstracts define -------------------------------------------------------

    def add_acronyms(self, pairs: Sequence[tuple[str, str, str, int]]) -> None:
        """(short form, long form as compared, long form as written, papers defining it) each;
        counts add up over imports."""
        self.conn.executemany(
            "INSERT INTO acronym(short, long_key, long, papers, ordinary) VALUES (?, ?, ?, ?, FALSE)"
            " ON CONFLICT(short, long_key) DO UPDATE SET papers = acronym.papers + excluded.papers",
            pairs)

    def mark_ordinary_words(self, words: Sequence[str]) -> None:
        """Short forms that abstracts also use as ordinary lowercase words: never expanded."""
        for part, marks in chunks(list(words)):
            self.conn.execute(f"UPDATE acronym SET ordinary = TRUE WHERE short IN ({marks})", part)

    # --- text derived from abstracts (importing/derived.py) -------------------------------------

    def paper_of_attachment(self, attachment_id: int) -> int | None:
        return self.conn.execute("SELECT paper_id FROM attachment WHERE id = ?", (attachment_id,)).scalar()

    def unread_attachments(self) -> list[AttachmentView]:
        return [attachment(r, 0) for r in self.conn.execute(
            f"SELECT {ATTACHMENT_COLUMNS} FROM attachment a WHERE a.text_state IS NULL"
            " AND lower(a.path) LIKE '%.pdf' ORDER BY a.id")]

    def set_attachment_text(self, attachment_id: int, state: str, pages: Sequence[str]) -> None:
        self.conn.execute("DELETE FROM attachment_page WHERE attachment_id = ?", (attachment_id,))
        self.conn.executemany("INSERT INTO attachment_page(attachment_id, page, text) VALUES (?, ?, ?)",
                              [(attachment_id, number, text) for number, text in enumerate(pages, 1) if text])
        self.conn.execute("UPDATE attachment SET text_state = ?, pages = ? WHERE id = ?",
                          (state, len(pages) or None, attachment_id))

    def papers_to_rederive(self) -> list[int]:
        """Ids of papers whose abstract was edited by hand since their text was derived (a
        trigger notes them)."""
        try:
            return self.conn.execute(f"SELECT paper_id FROM {REDERIVE_TABLE}").scalars()
        except StoreError as exc:  # a file not migrated yet
            if "no such table" in str(exc):
                return []
            raise

    def rederived(self, ids: Iterable[int]) -> None:
        self.conn.executemany(f"DELETE FROM {REDERIVE_TABLE} WHERE paper_id = ?", [(i,) for i in ids])

    def derived_rows(self, ids: Iterable[int] | None = None) -> list[DerivedRow]:
        """What these papers' (or all papers') derived text is checked against."""
        select = f"SELECT {', '.join(DERIVED_COLUMNS)} FROM paper"
        if ids is None:
            found = self.conn.execute(select).all()
        else:
            found = [r for part, marks in chunks(list(ids))
                     for r in self.conn.execute(f"{select} WHERE id IN ({marks})", part).all()]
        return [DerivedRow(*(r[name] for name in DERIVED_COLUMNS)) for r in found]

    def set_derived(self, paper_id: int, *, abstract_text: str, headline: str, search_extra: str,
                    fingerprint: str) -> None:
        self.conn.execute(
            "UPDATE paper SET abstract_text = ?, headline = ?, search_extra = ?, fingerprint = ?"
            " WHERE id = ?", (abstract_text, headline, search_extra, fingerprint, paper_id))
