"""Operations on a catalog. The CLI and the TUI both call these and get dataclasses back."""

from __future__ import annotations

import difflib
import sqlite3
import sys
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from time import monotonic
from typing import TextIO


from catalog import db, search, sqlite
from catalog.db import Database
from catalog.sqlite import Connection, Interrupted
from catalog.db import CatalogError
from catalog.constants import STATUSES
from catalog.query import QueryError, parse
from catalog.resources import seeds_dir
from catalog.text import strip_control
from catalog.results import (
    AnnotationsReport, Change, Edit, ExportPaper, ExportReport, Facets, FieldChanged, ImportReport,
    NoteChanged, NoteView, PaperDetail, PaperState, PaperSummary, SavedQuery, SavedSearchChanged,
    SourceRef, SplitResult, Stats, TagCount, TagsChanged,
)

Notify = Callable[[str], None]


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def _summary(row: search.Row) -> PaperSummary:
    return PaperSummary(
        key=row.key, title=row.title, venue=row.venue, year=row.year, status=row.status,
        rating=row.rating, tags=tuple(row.tags_text.split()), snippet=row.snippet,
    )


def validate_tag(name: str) -> str:
    """A tag as stored: control characters stripped; no spaces or commas (`papers.tags` joins
    tags with commas), no empty parts, no leading + or -."""
    tag = strip_control(name).strip().strip("/")
    if not tag or any(ch.isspace() or ch == "," for ch in tag) or "//" in tag or tag[0] in "+-":
        raise CatalogError(
            f"invalid tag {strip_control(name)!r}: tags are single words without spaces or commas, "
            "like toread or project/thesis"
        )
    return tag


def user_line(text: str) -> str:
    """One line of user text (a title, a saved search's name or query) as stored: control
    characters stripped, whitespace collapsed."""
    return " ".join(strip_control(text).split())


class Catalog:
    """One catalog database. Holds no connection or session; every method is one unit of work
    with its own transaction."""

    def __init__(self, database: Database, path: Path):
        self.database = database
        self.path = path

    @classmethod
    def open(cls, path: Path, *, seed: bool = False, notify: Notify = lambda m: None) -> "Catalog":
        """Open (creating and migrating as needed). `seed`: load the bundled lists into a new file."""
        catalog = cls(db.open_database(path, notify=notify), path)
        db.rederive_hand_edits(catalog.database)  # `abstract` edited in the sqlite3 shell since
        # Not "is the file new": a run killed while seeding leaves a file that still needs them.
        # Importing the seeds again is harmless: files already imported are skipped.
        if seed and not db.is_seeded(catalog.database):
            report = catalog.import_paths([seeds_dir()])
            if not report.errors:
                db.mark_seeded(catalog.database)
            if report.new:
                notify(f"New catalog at {path}: imported {report.new} papers from the bundled "
                       f"seeds (catalog import PATH adds your own)")
        return catalog

    def close(self) -> None:
        self.database.close()

    # --- import -------------------------------------------------------------------------

    def import_paths(self, paths: Iterable[Path], *, venue: str | None = None,
                     year: int | None = None,
                     progress: Callable[[int], None] | None = None,
                     mapping: Sequence[str] = ()) -> ImportReport:
        """Import paper lists, BibTeX, JSON/JSONL and CSV files (folders: all of them inside).
        `mapping`: "field=column" for JSON and CSV files whose names the defaults miss."""
        from catalog.ingest.mapping import FieldMap, MappingError

        try:
            field_map = FieldMap.parse(mapping)
        except MappingError as exc:
            raise CatalogError(str(exc)) from None
        from catalog import importer

        return importer.import_paths(self.database, paths, venue=venue, year=year, progress=progress,
                                     field_map=field_map)

    # --- finding papers -----------------------------------------------------------------

    def search(self, query: str, *, limit: int = 50, offset: int = 0, snippets: bool = True,
               cancelled: Callable[[], bool] | None = None) -> list[PaperSummary]:
        """The page of papers `query` finds. `cancelled`: asked while SQLite works; once it is
        true the search stops and raises Interrupted (the TUI's answer to a newer search)."""
        parsed = parse(query)
        with db.read(self.database) as conn, sqlite.stoppable(conn.raw, cancelled):
            rows = search.run(conn, parsed, limit=limit, offset=offset, snippets=snippets)
        return [_summary(r) for r in rows]

    def count(self, query: str, *, cancelled: Callable[[], bool] | None = None) -> int:
        with db.read(self.database) as conn, sqlite.stoppable(conn.raw, cancelled):
            return search.count(conn, parse(query))

    def resolve(self, conn: Connection, key: str) -> int:
        """A paper id from a key or an unambiguous key prefix; else an error with suggestions."""
        typed = key.strip().lower()
        row = conn.execute("SELECT id FROM paper WHERE key = ?", (typed,)).first()
        if row:
            return row[0]
        if typed:
            matches = conn.execute(
                "SELECT id, key FROM paper WHERE key >= ? AND key < ? LIMIT 6", (typed, typed + "\uffff")
            ).all()
            if len(matches) == 1:
                return matches[0][0]
            if matches:
                keys = ", ".join(k for _, k in matches[:5])
                raise CatalogError(f"key {key!r} is ambiguous: {keys}")
        all_keys = conn.execute("SELECT key FROM paper").scalars().all()
        close = difflib.get_close_matches(typed, all_keys, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `catalog search` finds keys"
        raise CatalogError(f"no paper with key {key!r}{hint}")

    def get(self, key: str) -> PaperDetail:
        with db.read(self.database) as conn:
            return self._detail(conn, self.resolve(conn, key))

    def _detail(self, conn: Connection, paper_id: int) -> PaperDetail:
        p = conn.execute(
            f"SELECT {search.SUMMARY_COLUMNS}, NULL, NULL, p.abstract, p.abstract_text, p.headline,"
            " p.title, p.user_title, p.authors, p.doi, p.arxiv_id, p.url FROM paper p WHERE p.id = ?",
            (paper_id,),
        ).one()
        summary = _summary(search.Row(*p[:10]))
        notes = conn.execute(
            "SELECT id, body, created_at, updated_at FROM note WHERE paper_id = ? ORDER BY created_at, id",
            (paper_id,),
        ).all()
        sources = conn.execute(
            "SELECT s.path, s.venue, s.year, pr.position, m.evidence FROM provenance pr"
            " JOIN source s ON s.id = pr.source_id"
            " LEFT JOIN paper_merge m ON m.paper_id = pr.paper_id AND m.source_id = pr.source_id"
            " AND m.position = pr.position WHERE pr.paper_id = ? ORDER BY s.id, pr.position",
            (paper_id,),
        ).all()
        return PaperDetail(
            summary, *p[10:],
            notes=tuple(NoteView(n[0], i, n[1], _dt(n[2]), _dt(n[3])) for i, n in enumerate(notes, 1)),
            sources=tuple(SourceRef(*s) for s in sources),
        )

    def split(self, key: str, numbers: Sequence[int] = ()) -> SplitResult:
        """Undo merges: the records that joined paper `key` (all, or those of the sources
        numbered as `get(key).sources` lists them) become papers of their own. The paper keeps
        its key, tags, notes, status, rating and title."""
        from catalog import dedupe

        with db.write(self.database) as conn:
            pid = self.resolve(conn, key)
            shown = conn.execute("SELECT key FROM paper WHERE id = ?", (pid,)).scalar()
            before = conn.execute("SELECT count(*) FROM provenance WHERE paper_id = ?", (pid,)).scalar()
            ids = dedupe.split(conn, pid, shown, list(dict.fromkeys(numbers)), _now())
            after = conn.execute("SELECT count(*) FROM provenance WHERE paper_id = ?", (pid,)).scalar()
            return SplitResult(self._detail(conn, pid).summary,
                               tuple(self._detail(conn, i).summary for i in ids), before - after)

    # --- user data: each change returns an Edit, which `undo` takes back -----------------

    def _touch(self, conn: Connection, paper_id: int) -> None:
        conn.execute("UPDATE paper SET updated_at = ? WHERE id = ?", (_now(), paper_id))

    def tag(self, keys: Sequence[str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> Edit:
        add = [validate_tag(t) for t in add]
        remove = [validate_tag(t) for t in remove]
        with db.write(self.database) as conn:
            ids = [self.resolve(conn, k) for k in keys]
            changes = [self._change_tags(conn, pid, add, remove) for pid in ids]
            _drop_unused_tags(conn)
            return self._edit(conn, ids, changes)

    def _change_tags(self, conn: Connection, pid: int, add: Sequence[str],
                     remove: Sequence[str]) -> TagsChanged:
        """Add and remove tags on one paper; the change names only what really changed."""
        have = {name.casefold() for name in _tags_of(conn, pid)}
        added = tuple(dict.fromkeys(t for t in add if t.casefold() not in have))
        removed = tuple(dict.fromkeys(t for t in remove if t.casefold() in have
                                      and t.casefold() not in {a.casefold() for a in added}))
        for name in added:
            conn.execute("INSERT OR IGNORE INTO tag(name) VALUES (?)", (name,))
            conn.execute(
                "INSERT OR IGNORE INTO paper_tag(paper_id, tag_id) SELECT ?, id FROM tag WHERE name = ?",
                (pid, name))
        for name in removed:
            conn.execute(
                "DELETE FROM paper_tag WHERE paper_id = ? AND tag_id = (SELECT id FROM tag WHERE name = ?)",
                (pid, name))
        if added or removed:
            self._touch(conn, pid)
        return TagsChanged(_key_of(conn, pid), added, removed)

    def set_status(self, keys: Sequence[str], status: str) -> Edit:
        status = status.strip().lower()
        if status not in STATUSES:
            raise CatalogError(f"unknown status {status!r}: use one of {', '.join(STATUSES)}")
        return self._set_field(keys, "status", status)

    def set_rating(self, keys: Sequence[str], rating: int | None) -> Edit:
        if rating is not None and not 1 <= rating <= 5:
            raise CatalogError(f"rating must be 1 to 5 (or 0 to clear), not {rating}")
        return self._set_field(keys, "rating", rating)

    def set_title(self, key: str, title: str | None) -> Edit:
        title = user_line(title) if title else None
        return self._set_field([key], "user_title", title or None)

    def _set_field(self, keys: Sequence[str], column: str, value) -> Edit:
        with db.write(self.database) as conn:
            ids = [self.resolve(conn, k) for k in keys]
            changes = []
            for pid in ids:
                before = _field_of(conn, pid, column)
                if before != value:
                    _write_field(conn, pid, column, value)
                    changes.append(FieldChanged(_key_of(conn, pid), column, before, value))
            return self._edit(conn, ids, changes)

    def add_note(self, key: str, body: str) -> Edit:
        body = _note_body(body)
        with db.write(self.database) as conn:
            pid = self.resolve(conn, key)
            note_id, created = _insert_note(conn, pid, body)
            note = self._detail(conn, pid).notes[-1]
            return self._edit(conn, [pid], [NoteChanged(_key_of(conn, pid), note_id, None, body, created)],
                              note=note)

    def edit_note(self, key: str, number: int, body: str) -> Edit:
        body = _note_body(body)
        with db.write(self.database) as conn:
            pid = self.resolve(conn, key)
            note = self._note(conn, pid, key, number)
            conn.execute(
                "UPDATE note SET body = ?, updated_at = ? WHERE id = ?", (body, _now(), note.id)
            )
            self._touch(conn, pid)
            change = NoteChanged(_key_of(conn, pid), note.id, note.body, body, note.created_at)
            return self._edit(conn, [pid], [change], note=self._detail(conn, pid).notes[number - 1])

    def delete_note(self, key: str, number: int) -> Edit:
        with db.write(self.database) as conn:
            pid = self.resolve(conn, key)
            note = self._note(conn, pid, key, number)
            conn.execute("DELETE FROM note WHERE id = ?", (note.id,))
            self._touch(conn, pid)
            change = NoteChanged(_key_of(conn, pid), note.id, note.body, None, note.created_at)
            return self._edit(conn, [pid], [change], note=note)

    def _note(self, conn: Connection, pid: int, key: str, number: int) -> NoteView:
        notes = self._detail(conn, pid).notes
        if not 1 <= number <= len(notes):
            have = f"it has {len(notes)}" if notes else "it has none"
            raise CatalogError(f"paper {key} has no note {number} ({have})")
        return notes[number - 1]

    def _edit(self, conn: Connection, ids: Sequence[int], changes: Sequence[Change], *,
              note: NoteView | None = None, conflicts: Sequence[str] = ()) -> Edit:
        papers = tuple(self._detail(conn, pid).summary for pid in dict.fromkeys(ids))
        return Edit(tuple(changes), papers, note, tuple(conflicts))

    # --- overviews ----------------------------------------------------------------------

    def tags(self) -> list[TagCount]:
        with db.read(self.database) as conn:
            rows = conn.execute(
                "SELECT t.name, count(pt.paper_id) FROM tag t LEFT JOIN paper_tag pt ON pt.tag_id = t.id"
                " GROUP BY t.id ORDER BY t.name"
            ).all()
        return [TagCount(name, n) for name, n in rows]

    def stats(self) -> Stats:
        with db.read(self.database) as conn:
            total, venues, statuses, ratings = _counts(conn)
            one = lambda sql: conn.execute(sql).scalar()  # noqa: E731
            unrated = total - sum(n for _, n in ratings)
            return Stats(
                papers=total,
                sources=one("SELECT count(*) FROM source"),
                notes=one("SELECT count(*) FROM note"),
                tags=one("SELECT count(*) FROM tag"),
                by_venue=venues,
                by_status=tuple(sorted(statuses, key=lambda row: -row[1])),
                by_rating=ratings + (((None, unrated),) if unrated else ()),
            )

    def facets(self) -> Facets:
        with db.read(self.database) as conn:
            total, venues, statuses, ratings = _counts(conn)
            return Facets(
                venues=venues,
                tags=tuple(TagCount(n, c) for n, c in conn.execute(
                    "SELECT t.name, count(*) FROM tag t JOIN paper_tag pt ON pt.tag_id = t.id"
                    " GROUP BY t.id ORDER BY t.name").all()),
                statuses=statuses,
                ratings=ratings,
                saved=self._saved(conn),
                total=total,
            )

    # --- saved searches -----------------------------------------------------------------

    def save_search(self, name: str, query: str) -> Edit:
        """Save `query` under `name`, replacing the query a search of that name had."""
        name, query = user_line(name), user_line(query)
        if not name:
            raise CatalogError("a saved search needs a name")
        parse(query)  # refuse a query that would only ever give an error
        with db.write(self.database) as conn:
            before = _saved_query(conn, name)
            if before is None:
                conn.execute("INSERT INTO saved_search(name, query, created_at) VALUES (?, ?, ?)",
                             (name, query, _now()))
            else:
                conn.execute("UPDATE saved_search SET query = ? WHERE name = ?", (query, name))
            return Edit((SavedSearchChanged(name, before, query),))

    def delete_saved_search(self, name: str) -> Edit:
        with db.write(self.database) as conn:
            before = _saved_query(conn, name)
            if before is None:
                raise CatalogError(f"no saved search named {name!r}")
            conn.execute("DELETE FROM saved_search WHERE name = ?", (name,))
            return Edit((SavedSearchChanged(name, before, None),))

    def saved_searches(self) -> tuple[SavedQuery, ...]:
        with db.read(self.database) as conn:
            return self._saved(conn)

    @staticmethod
    def _saved(conn: Connection) -> tuple[SavedQuery, ...]:
        return tuple(SavedQuery(n, q) for n, q in conn.execute(
            "SELECT name, query FROM saved_search ORDER BY name").all())

    # --- undo ---------------------------------------------------------------------------

    def snapshot(self, keys: Sequence[str]) -> list[PaperState]:
        """The user-changeable state of these papers."""
        with db.read(self.database) as conn:
            states = []
            for key in keys:
                pid = self.resolve(conn, key)
                d = self._detail(conn, pid)
                states.append(PaperState(
                    d.summary.key, d.summary.tags, d.summary.status, d.summary.rating,
                    d.user_title, tuple((n.id, n.body) for n in d.notes)))
            return states

    def undo(self, edit: Edit) -> Edit:
        """Take back `edit`'s own changes and nothing else.

        A tag it added is removed and one it removed comes back; a status, rating, title, note
        or saved search goes back only where it still holds what `edit` wrote. Whatever was
        changed since (by another command, another person) is left alone and named in
        `conflicts`. The returned Edit holds what this undo did, so undoing it is a redo."""
        with db.write(self.database) as conn:
            done, conflicts, ids = [], [], []
            for change in reversed(edit.changes):
                try:
                    pid = None if isinstance(change, SavedSearchChanged) else self.resolve(conn, change.key)
                except CatalogError:
                    conflicts.append(f"paper {change.key} is no longer in the catalog")
                    continue
                inverse, conflict = self._revert(conn, pid, change)
                if pid is not None:
                    ids.append(pid)
                if inverse is not None:
                    done.append(inverse)
                if conflict:
                    conflicts.append(conflict)
            _drop_unused_tags(conn)
            return self._edit(conn, ids, done, conflicts=conflicts)

    def _revert(self, conn: Connection, pid: int | None, change: Change) -> tuple[Change | None, str | None]:
        """Undo one change where the catalog still shows it: (what was done, or None; why not)."""
        if isinstance(change, TagsChanged):
            have = {name.casefold() for name in _tags_of(conn, pid)}
            inverse = self._change_tags(
                conn, pid, [t for t in change.removed if t.casefold() not in have],
                [t for t in change.added if t.casefold() in have])
            return (inverse if inverse.added or inverse.removed else None), None
        if isinstance(change, FieldChanged):
            now = _field_of(conn, pid, change.field)
            if now == change.before:
                return None, None
            if now != change.after:
                label = _FIELD_LABELS[change.field]
                return None, f"the {label} of {change.key} was changed since (now {_shown(now)}): left as is"
            _write_field(conn, pid, change.field, change.before)
            return FieldChanged(change.key, change.field, change.after, change.before), None
        if isinstance(change, NoteChanged):
            return self._revert_note(conn, pid, change)
        now = _saved_query(conn, change.name)
        if now == change.before:
            return None, None
        if now != change.after:
            return None, f"saved search {change.name!r} was changed since: left as is"
        if change.before is None:
            conn.execute("DELETE FROM saved_search WHERE name = ?", (change.name,))
        elif now is None:
            conn.execute("INSERT INTO saved_search(name, query, created_at) VALUES (?, ?, ?)",
                         (change.name, change.before, _now()))
        else:
            conn.execute("UPDATE saved_search SET query = ? WHERE name = ?", (change.before, change.name))
        return SavedSearchChanged(change.name, change.after, change.before), None

    def _revert_note(self, conn: Connection, pid: int, change: NoteChanged) -> tuple[Change | None, str | None]:
        if change.after is None:  # deleted: put it back where it was
            note_id, _ = _insert_note(conn, pid, change.before, change.created_at)
            return NoteChanged(change.key, note_id, None, change.before, change.created_at), None
        now = conn.execute("SELECT body FROM note WHERE id = ?", (change.note_id,)).scalar()
        if now is None:
            return None, (None if change.before is None
                          else f"a note on {change.key} was deleted since: not brought back")
        if now != change.after:
            return None, f"a note on {change.key} was edited since: left as is"
        if change.before is None:  # created: delete it
            conn.execute("DELETE FROM note WHERE id = ?", (change.note_id,))
        else:
            conn.execute("UPDATE note SET body = ?, updated_at = ? WHERE id = ?",
                         (change.before, _now(), change.note_id))
        self._touch(conn, pid)
        return NoteChanged(change.key, change.note_id, change.after, change.before, change.created_at), None


    # --- exchange: exports, annotations, backups ------------------------------------------

    def export_papers(self, query: str = "") -> list[ExportPaper]:
        """The papers `query` selects (all for ""), in search order, with everything exports write."""
        parsed = parse(query)
        with db.read(self.database) as conn:
            ids = [r.id for r in search.run(conn, parsed, limit=-1, snippets=False)]
            return _export_rows(conn, ids)

    def export(self, query: str, fmt: str, path: Path | None = None, *,
               stream: TextIO | None = None) -> ExportReport:
        """Write the selected papers as `fmt` to `path` (replaced atomically) or to `stream`."""
        from catalog import export

        if fmt == "vault":
            return self._export_vault(query, path)
        try:
            write = export.writer(fmt)
        except export.ExportError as exc:
            raise CatalogError(str(exc)) from None
        papers = self.export_papers(query)
        if path is None:
            write(papers, stream if stream is not None else sys.stdout)
        else:
            _writable(path)
            try:
                export.write_file(path, lambda out: write(papers, out))
            except OSError as exc:
                raise CatalogError(f"cannot write {path}: {exc.strerror or exc}") from None
        return ExportReport(len(papers), fmt, str(path) if path else None)

    def _export_vault(self, query: str, folder: Path | None) -> ExportReport:
        """One Markdown file per paper in `folder` (docs/formats.md, "Markdown vault")."""
        from catalog.export import vault

        if folder is None:
            raise CatalogError("say which folder: catalog export --format vault DIR")
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise CatalogError(f"cannot write a vault to {folder}: it is not a folder")
        if not folder.parent.is_dir():
            raise CatalogError(f"cannot write a vault to {folder}: folder {folder.parent} does not exist")
        papers = self.export_papers(query)
        try:
            report = vault.write(papers, folder)
        except OSError as exc:
            raise CatalogError(f"cannot write the vault in {folder}: {exc.strerror or exc}") from None
        return ExportReport(len(papers), "vault", str(folder), report.unchanged, tuple(report.skipped))

    def export_annotations(self, path: Path | None = None, *, stream: TextIO | None = None) -> int:
        """Write your annotations (docs/formats.md) to `path` atomically, or to `stream`;
        returns how many papers they cover."""
        import json

        from catalog import annotations, export

        with db.read(self.database) as conn:
            document = annotations.collect(conn)
        dump = lambda out: out.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")  # noqa: E731
        if path is None:
            dump(stream if stream is not None else sys.stdout)
        else:
            _writable(path)
            try:
                export.write_file(path, dump)
            except OSError as exc:
                raise CatalogError(f"cannot write {path}: {exc.strerror or exc}") from None
        return len(document["papers"])

    def import_annotations(self, path: Path, *, theirs: bool = False) -> AnnotationsReport:
        """Merge an annotations file in one write transaction (all of it, or nothing)."""
        import json

        from catalog import annotations

        try:
            document = json.loads(Path(path).read_text(encoding="utf-8-sig"))
        except OSError as exc:
            raise CatalogError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise CatalogError(f"{path} is not UTF-8 text (expected an annotations JSON file)") from None
        except json.JSONDecodeError as exc:
            raise CatalogError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
        document = annotations.check(document, str(path))
        with db.write(self.database) as conn:
            return annotations.merge(conn, document, theirs=theirs, validate_tag=validate_tag,
                                     clean_line=user_line, clean_note=strip_control)

    def backup(self, target: Path, *, force: bool = False) -> Path:
        """A consistent copy through SQLite's backup API, safe while the TUI has the file open.
        Written beside the target and renamed into place; an existing file only with `force`."""
        target = Path(target)
        if target.is_dir():
            target = target / self.path.name
        if target.exists():
            if target.resolve() == self.path.resolve():
                raise CatalogError(f"{target} is this catalog; back it up to another file")
            if not force:
                raise CatalogError(f"{target} exists; choose another name or pass --force to replace it")
        _writable(target)
        try:
            db.copy_database(self.path, target)
        except (OSError, sqlite3.Error) as exc:
            raise CatalogError(f"cannot back up to {target}: {getattr(exc, 'strerror', None) or exc}") from None
        return target

    # --- SQL ----------------------------------------------------------------------------

    def run_sql(self, statement: str, *, timeout: float | None = None,
                cancelled: Callable[[], bool] | None = None) -> tuple[list[str], list[tuple]]:
        """Run one read-only statement; writes, ATTACH and extensions are refused. It stops
        after `timeout` seconds (CatalogError), or once `cancelled()` is true (Interrupted)."""
        deadline = None if not timeout else monotonic() + timeout
        late = lambda: deadline is not None and monotonic() > deadline  # noqa: E731
        stop = lambda: late() or bool(cancelled and cancelled())  # noqa: E731
        conn = sqlite.read_only_connection(self.path)
        try:
            with sqlite.stoppable(conn, stop):
                cursor = conn.execute(statement)
                columns = [d[0] for d in cursor.description or ()]
                return columns, cursor.fetchall()
        except (sqlite3.Error, sqlite3.Warning) as exc:
            if sqlite.is_interrupted(exc):
                if cancelled and cancelled():
                    raise Interrupted(statement) from None
                raise CatalogError(f"stopped after {timeout:g} s (--timeout SECONDS allows longer)") from None
            raise CatalogError(sqlite.explain_sql_error(statement, exc)) from None
        finally:
            conn.close()


def _writable(path: Path) -> None:
    if not path.parent.exists() and str(path.parent):
        raise CatalogError(f"cannot write {path}: folder {path.parent} does not exist")
    if path.is_dir():
        raise CatalogError(f"cannot write {path}: it is a folder")


_EXPORT_COLUMNS = ("id, key, fingerprint, title, headline, user_title, authors, venue, year, status,"
                   " rating, doi, arxiv_id, url, abstract, added_at")


def _export_rows(conn: Connection, ids: list[int]) -> list[ExportPaper]:
    by_id: dict[int, tuple] = {}
    tags: dict[int, list[str]] = {}
    notes: dict[int, list[str]] = {}
    for start in range(0, len(ids), 500):
        chunk = tuple(ids[start:start + 500])
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"SELECT {_EXPORT_COLUMNS} FROM paper WHERE id IN ({marks})", chunk):
            by_id[row[0]] = tuple(row)
        for pid, name in conn.execute(
                f"SELECT pt.paper_id, t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id"
                f" WHERE pt.paper_id IN ({marks}) ORDER BY t.name", chunk):
            tags.setdefault(pid, []).append(name)
        for pid, body in conn.execute(
                f"SELECT paper_id, body FROM note WHERE paper_id IN ({marks}) ORDER BY created_at, id", chunk):
            notes.setdefault(pid, []).append(body)
    out = []
    for pid in ids:
        (_, key, fp, title, headline, user_title, authors, venue, year, status, rating, doi, arxiv,
         url, abstract, added_at) = by_id[pid]
        out.append(ExportPaper(
            key=key, fingerprint=fp, title=title, headline=headline, user_title=user_title,
            authors=authors, venue=venue, year=year, status=status, rating=rating,
            tags=tuple(tags.get(pid, ())), notes=tuple(notes.get(pid, ())), doi=doi, arxiv_id=arxiv,
            url=url, abstract=abstract, added_at=_dt(added_at)))
    return out


def _counts(conn: Connection) -> tuple[int, tuple, tuple, tuple]:
    """Papers in all; per venue and year; per status; per rating (rated papers only).

    Each query reads an index, never the wide paper rows: unread papers are counted as the
    rest, because only the other statuses are indexed."""
    total = conn.execute("SELECT count(*) FROM paper").scalar()
    venues = tuple(map(tuple, conn.execute(
        "SELECT coalesce(venue, '?'), year, count(*) FROM paper GROUP BY venue, year"
        " ORDER BY year DESC, venue").all()))
    others = tuple(map(tuple, conn.execute(
        "SELECT status, count(*) FROM paper WHERE status != 'unread' GROUP BY status").all()))
    unread = total - sum(n for _, n in others)
    statuses = ((("unread", unread),) if unread else ()) + others
    ratings = tuple(map(tuple, conn.execute(
        "SELECT rating, count(*) FROM paper WHERE rating IS NOT NULL GROUP BY rating"
        " ORDER BY rating DESC").all()))
    return total, venues, statuses, ratings


# Columns a user sets on a paper (FieldChanged.field), as messages name them.
_FIELD_LABELS = {"status": "status", "rating": "rating", "user_title": "title"}


def _key_of(conn: Connection, pid: int) -> str:
    return conn.execute("SELECT key FROM paper WHERE id = ?", (pid,)).scalar()


def _tags_of(conn: Connection, pid: int) -> list[str]:
    return conn.execute(
        "SELECT t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.paper_id = ?",
        (pid,)).scalars().all()


def _field_of(conn: Connection, pid: int, column: str):
    assert column in _FIELD_LABELS
    return conn.execute(f"SELECT {column} FROM paper WHERE id = ?", (pid,)).scalar()


def _write_field(conn: Connection, pid: int, column: str, value) -> None:
    assert column in _FIELD_LABELS
    conn.execute(f"UPDATE paper SET {column} = ?, updated_at = ? WHERE id = ?", (value, _now(), pid))


def _insert_note(conn: Connection, pid: int, body: str,
                 created: datetime | None = None) -> tuple[int, datetime]:
    created = created or _now()
    note_id = conn.execute(
        "INSERT INTO note(paper_id, body, created_at, updated_at) VALUES (?, ?, ?, ?)",
        (pid, body, created, _now())).lastrowid
    conn.execute("UPDATE paper SET updated_at = ? WHERE id = ?", (_now(), pid))
    return note_id, created


def _drop_unused_tags(conn: Connection) -> None:
    """A tag nobody uses any more disappears from `catalog tags` and the sidebar."""
    conn.execute("DELETE FROM tag WHERE id NOT IN (SELECT tag_id FROM paper_tag)")


def _saved_query(conn: Connection, name: str) -> str | None:
    return conn.execute("SELECT query FROM saved_search WHERE name = ?", (name,)).scalar()


def _shown(value) -> str:
    return "none" if value is None else repr(value) if isinstance(value, str) else str(value)


def _note_body(body: str) -> str:
    body = strip_control(body).strip()  # newlines and tabs stay: a note is Markdown
    if not body:
        raise CatalogError("a note needs some text")
    return body


def _dt(value) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


__all__ = ["Catalog", "CatalogError", "Interrupted", "QueryError", "user_line", "validate_tag"]
