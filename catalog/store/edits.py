"""What users write: tags, status, rating and their own title, notes, saved searches; the
annotations file's view of them; papers deleted with every row, and brought back. Plain SQL
both backends run."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from catalog.errors import CatalogError
from catalog.results import AddedAcronym, SavedQuery
from catalog.rules import USER_FIELDS, now
from catalog.store.base import Edits
from catalog.store.rows import TableRows, TagOnPaper, chunks, row_value
from catalog.store.schema import TABLES


# The tables holding a paper's own rows (`paper_rows`; store/schema.py's TABLES gives their
# columns and order). Attachments are not among them: a paper with files is not deleted.
OWN_ROWS = ("paper", "provenance", "kept_record", "citekey", "paper_author", "paper_merge", "note",
            "paper_reader", "paper_link", "paper_notice", "topic")

# The fields that are each reader's own (paper_reader); user_title is shared (paper).
READER_FIELDS = ("status", "rating")


class EditQueries(Edits):
    """The Edits role in SQL both backends run; statuses and ratings are `user`'s."""

    # --- tags -----------------------------------------------------------------------------

    def tags_of(self, paper_id: int) -> list[str]:
        return self.conn.execute(
            "SELECT t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.paper_id = ?"
            " ORDER BY t.name", (paper_id,)).scalars()

    def add_tag(self, paper_id: int, name: str) -> bool:
        """Tag the paper; whether it was not tagged so before."""
        self.conn.execute("INSERT INTO tag(name) VALUES (?) ON CONFLICT DO NOTHING", (name,))
        return self.conn.execute(
            "INSERT INTO paper_tag(paper_id, tag_id) SELECT ?, id FROM tag WHERE name = ?"
            " ON CONFLICT DO NOTHING", (paper_id, name)).rowcount > 0

    def remove_tag(self, paper_id: int, name: str) -> None:
        self.conn.execute(
            "DELETE FROM paper_tag WHERE paper_id = ? AND tag_id = (SELECT id FROM tag WHERE name = ?)",
            (paper_id, name))

    def drop_unused_tags(self) -> None:
        """A tag nobody uses any more disappears from `catalog tags` and the sidebar."""
        self.conn.execute("DELETE FROM tag WHERE id NOT IN (SELECT tag_id FROM paper_tag)")

    def tags_on_papers(self, names: Sequence[str]) -> list[TagOnPaper]:
        found: list[TagOnPaper] = []
        for part, marks in chunks(names):  # tag names compare without case (NOCASE, citext)
            found += [TagOnPaper(r["paper_id"], r["key"], r["name"]) for r in self.conn.execute(
                "SELECT pt.paper_id, p.key, t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id"
                f" JOIN paper p ON p.id = pt.paper_id WHERE t.name IN ({marks}) ORDER BY pt.paper_id, t.name",
                part)]
        return found

    def rename_tags(self, renames: Sequence[tuple[str, str | None]]) -> None:
        olds = [old for old, _ in renames]
        for part, marks in chunks(olds):
            self.conn.execute(
                "UPDATE paper SET updated_at = ? WHERE id IN (SELECT pt.paper_id FROM paper_tag pt"
                f" JOIN tag t ON t.id = pt.tag_id WHERE t.name IN ({marks}))", (now(), *part))
        for old, new in renames:
            if new is not None and self.conn.execute("SELECT id FROM tag WHERE name = ?", (new,)).scalar() is None:
                # The tag row itself renamed: its trigger writes each paper's tags text again.
                self.conn.execute("UPDATE tag SET name = ? WHERE name = ?", (new, old))
                continue
            if new is not None:  # into a tag some papers carry: those with the old one get it too
                self.conn.execute(
                    "INSERT INTO paper_tag(paper_id, tag_id) SELECT pt.paper_id, (SELECT id FROM tag WHERE name = ?)"
                    " FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id WHERE t.name = ? ON CONFLICT DO NOTHING",
                    (new, old))
            self.conn.execute("DELETE FROM paper_tag WHERE tag_id = (SELECT id FROM tag WHERE name = ?)", (old,))

    # --- status, rating, the user's title ---------------------------------------------------

    def user_field(self, paper_id: int, field: str) -> str | int | None:
        """The paper's status or rating (this reader's), or its user title (everyone's)."""
        assert field in USER_FIELDS  # a column name, never user text
        if field not in READER_FIELDS:
            return self.conn.execute(f"SELECT {field} FROM paper WHERE id = ?", (paper_id,)).scalar()
        value = self.conn.execute(f"SELECT {field} FROM paper_reader WHERE paper_id = ? AND reader = ?",
                                  (paper_id, self.user)).scalar()
        return "unread" if value is None and field == "status" else value

    def set_user_field(self, paper_id: int, field: str, value) -> None:
        assert field in USER_FIELDS
        stamp = now()
        if field not in READER_FIELDS:
            self.conn.execute(f"UPDATE paper SET {field} = ?, updated_at = ? WHERE id = ?",
                              (value, stamp, paper_id))
            return
        self.conn.execute(
            "INSERT INTO paper_reader(paper_id, reader, status, rating, updated_at)"
            " VALUES (?, ?, 'unread', NULL, ?) ON CONFLICT DO NOTHING", (paper_id, self.user, stamp))
        self.conn.execute(f"UPDATE paper_reader SET {field} = ?, updated_at = ? WHERE paper_id = ? AND reader = ?",
                          (value, stamp, paper_id, self.user))
        # No row reads as unread and unrated: keep only the papers someone marked.
        self.conn.execute("DELETE FROM paper_reader WHERE paper_id = ? AND reader = ? AND status = 'unread'"
                          " AND rating IS NULL", (paper_id, self.user))

    def touch(self, paper_id: int) -> None:
        """The paper changed (a tag, a note): its updated_at says when."""
        self.conn.execute("UPDATE paper SET updated_at = ? WHERE id = ?", (now(), paper_id))

    # --- notes ----------------------------------------------------------------------------

    def add_note(self, paper_id: int, body: str, created: datetime,
                 updated: datetime | None = None, *, author: str | None = None) -> int:
        """A note signed by `author` (None: this reader)."""
        return self.conn.execute(
            "INSERT INTO note(paper_id, body, author, created_at, updated_at) VALUES (?, ?, ?, ?, ?)"
            " RETURNING id", (paper_id, body, author or self.user, created, updated or now())).scalar()

    def note_body(self, note_id: int) -> str | None:
        return self.conn.execute("SELECT body FROM note WHERE id = ?", (note_id,)).scalar()

    def set_note(self, note_id: int, body: str) -> None:
        changed = self.conn.execute("UPDATE note SET body = ?, updated_at = ? WHERE id = ?", (body, now(), note_id))
        self._refuse_unchanged_note(changed.rowcount, note_id)

    def delete_note(self, note_id: int) -> None:
        deleted = self.conn.execute("DELETE FROM note WHERE id = ?", (note_id,))
        self._refuse_unchanged_note(deleted.rowcount, note_id)

    def _refuse_unchanged_note(self, changed: int, note_id: int) -> None:
        """A note the database kept as it was: on a server, someone else's (row-level security
        lets each person edit and delete only the notes they signed)."""
        if not changed:
            author = self.conn.execute("SELECT author FROM note WHERE id = ?", (note_id,)).scalar()
            raise CatalogError(f"that note is {author}'s: on a shared catalog each person edits and deletes "
                               "only their own notes")

    def note_bodies(self, paper_id: int) -> list[str]:
        return self.conn.execute("SELECT body FROM note WHERE paper_id = ?", (paper_id,)).scalars()

    # --- attachments --------------------------------------------------------------------------

    def add_attachment(self, paper_id: int, *, stored: str, path: str, name: str, sha256: str, size: int,
                       added_at: datetime) -> int | None:
        return self.conn.execute(
            "INSERT INTO attachment(paper_id, stored, path, name, sha256, size, added_by, added_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (paper_id, sha256) DO NOTHING RETURNING id",
            (paper_id, stored, path, name, sha256, size, self.user, added_at)).scalar()

    def attachment_with(self, paper_id: int, sha256: str) -> int | None:
        return self.conn.execute("SELECT id FROM attachment WHERE paper_id = ? AND sha256 = ?",
                                 (paper_id, sha256)).scalar()

    def remove_attachment(self, attachment_id: int) -> None:
        if not self.conn.execute("DELETE FROM attachment WHERE id = ?", (attachment_id,)).rowcount:
            who = self.conn.execute("SELECT added_by FROM attachment WHERE id = ?", (attachment_id,)).scalar()
            raise CatalogError(f"that file was attached by {who}: on a shared catalog each person detaches "
                               "only the files they attached")

    def move_attachment(self, attachment_id: int, path: str) -> None:
        self.conn.execute("UPDATE attachment SET path = ? WHERE id = ?", (path, attachment_id))

    # --- saved searches ---------------------------------------------------------------------

    def saved_searches(self) -> tuple[SavedQuery, ...]:
        return tuple(SavedQuery(r["name"], r["query"]) for r in self.conn.execute(
            "SELECT name, query FROM saved_search ORDER BY name"))

    def saved_query(self, name: str) -> str | None:
        return self.conn.execute("SELECT query FROM saved_search WHERE name = ?", (name,)).scalar()

    def save_query(self, name: str, query: str | None) -> None:
        """Store `query` under `name`: created, replaced, or deleted (None)."""
        if query is None:
            self.conn.execute("DELETE FROM saved_search WHERE name = ?", (name,))
        elif self.saved_query(name) is None:
            self.conn.execute("INSERT INTO saved_search(name, query, created_at) VALUES (?, ?, ?)",
                              (name, query, now()))
        else:
            self.conn.execute("UPDATE saved_search SET query = ? WHERE name = ?", (query, name))

    # --- acronyms users add -----------------------------------------------------------------

    def added_acronyms(self) -> list[AddedAcronym]:
        return [AddedAcronym(r["short"], r["long"]) for r in self.conn.execute(
            "SELECT short, long FROM acronym_added ORDER BY lower(short), long")]

    def add_acronym(self, short: str, long_key: str, long: str) -> bool:
        if self.conn.execute("SELECT 1 FROM acronym_added WHERE short = ? AND long_key = ?",
                             (short, long_key)).first() is not None:
            return False
        self.conn.execute("INSERT INTO acronym_added(short, long_key, long, added_at) VALUES (?, ?, ?, ?)",
                          (short, long_key, long, now()))
        return True

    def remove_acronyms(self, short: str, long_key: str | None = None) -> int:
        if long_key is None:
            return self.conn.execute("DELETE FROM acronym_added WHERE short = ?", (short,)).rowcount
        return self.conn.execute("DELETE FROM acronym_added WHERE short = ? AND long_key = ?",
                                 (short, long_key)).rowcount

    # --- the annotations file ---------------------------------------------------------------

    def annotated_papers(self) -> list[dict]:
        """Every paper a user annotated, with its identity, fields, tags and notes."""
        tags: dict[int, list[str]] = {}
        for row in self.conn.execute(
                "SELECT pt.paper_id, t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id ORDER BY t.name"):
            tags.setdefault(row["paper_id"], []).append(row["name"])
        notes: dict[int, list[dict[str, str]]] = {}
        for row in self.conn.execute(
                "SELECT paper_id, body, author, created_at, updated_at FROM note ORDER BY created_at, id"):
            notes.setdefault(row["paper_id"], []).append(
                {"body": row["body"], "author": row["author"], "created_at": str(row["created_at"]),
                 "updated_at": str(row["updated_at"])})
        papers = []
        for row in self.conn.execute(
                "SELECT p.id, p.key, p.fingerprint, p.doi, p.arxiv_id, ck.key AS cite_key, p.title, p.headline,"
                " p.year, p.authors, p.user_title, coalesce(r.status, 'unread') AS status, r.rating FROM paper p"
                " LEFT JOIN paper_reader r ON r.paper_id = p.id AND r.reader = ?"
                " LEFT JOIN citekey ck ON ck.paper_id = p.id"
                " WHERE r.paper_id IS NOT NULL OR p.user_title IS NOT NULL"
                " OR p.id IN (SELECT paper_id FROM paper_tag) OR p.id IN (SELECT paper_id FROM note) ORDER BY p.id",
                (self.user,)):
            papers.append({name: row[name] for name in (
                "key", "fingerprint", "doi", "arxiv_id", "cite_key", "title", "headline", "year", "authors",
                "user_title", "status", "rating")}
                | {"tags": tags.get(row["id"], []), "notes": notes.get(row["id"], [])})
        return papers

    def paper_with(self, column: str, value) -> int | None:
        """The first paper whose key, fingerprint, DOI or arXiv id is `value`."""
        assert column in ("key", "fingerprint", "doi", "arxiv_id")
        return self.conn.execute(f"SELECT id FROM paper WHERE {column} = ? ORDER BY id LIMIT 1",
                                 (value,)).scalar()

    def fingerprint_of(self, paper_id: int) -> str:
        return self.conn.execute("SELECT fingerprint FROM paper WHERE id = ?", (paper_id,)).scalar()

    # --- deleting a paper, and bringing it back --------------------------------------------------

    def paper_rows(self, paper_id: int) -> tuple[TableRows, ...]:
        """Every row of the paper, table by table (parents first): (table, columns, rows), what
        `restore_paper` writes back. Its tags are kept by name (a tag no paper uses goes)."""
        out = []
        for table, columns in TABLES:
            if table in OWN_ROWS:
                where = "id = ?" if table == "paper" else "paper_id = ?"
                names = tuple(c.strip() for c in columns.split(","))
                rows = self.conn.execute(f"SELECT {columns} FROM {table} WHERE {where}", (paper_id,)).all()
                out.append(TableRows(table, names, tuple(tuple(r) for r in rows)))
        tags = self.conn.execute("SELECT t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id"
                                 " WHERE pt.paper_id = ? ORDER BY t.name", (paper_id,)).scalars()
        out.append(TableRows("tag_names", ("name",), tuple((t,) for t in tags)))
        return tuple(out)

    def delete_paper(self, paper_id: int) -> None:
        """The paper and every row of it (the foreign keys cascade), then the tags no paper uses."""
        self.conn.execute("DELETE FROM paper WHERE id = ?", (paper_id,))
        self.conn.execute("DELETE FROM tag WHERE id NOT IN (SELECT tag_id FROM paper_tag)")

    def restore_paper(self, rows) -> None:
        """Write back what `paper_rows` read (the same ids; the triggers index it again)."""
        paper_id = row_value(rows, "paper", "id")
        for table, names, values in rows:
            if table == "tag_names":
                for (name,) in values:
                    self.conn.execute("INSERT INTO tag(name) VALUES (?) ON CONFLICT DO NOTHING", (name,))
                    self.conn.execute("INSERT INTO paper_tag(paper_id, tag_id) SELECT ?, id FROM tag WHERE name = ?"
                                      " ON CONFLICT DO NOTHING", (paper_id, name))
                continue
            if values:
                marks = ", ".join("?" for _ in names)
                self.conn.executemany(f"INSERT INTO {table}({', '.join(names)}) VALUES ({marks})",
                                      [tuple(v) for v in values])
