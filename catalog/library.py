"""Operations on a catalog. The CLI and the TUI both call these and get dataclasses back.

Catalog coordinates: it checks what users typed (catalog/rules.py), opens one transaction of
the store per operation, and calls the modules that know each job (importer, changes, merges,
annotations, export, doctor). It holds no SQL and no connection. Parts with a job of their
own are composed in (catalog/parts/, a module each), each made with the store when first used
and reached as an attribute: `files` (attached files), `exchange` (exports and the annotations
file), `citing` (kept .bib files and cite keys), `words` (missing words, suggestions, added
acronyms), `saved` (saved searches), `triage`, `discovery` (similar papers, recommendations,
topics), `admin` (backups, copies, SQL, members) and `web` (papers from the web: given the
Catalog, whose search and get it uses).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING

from catalog import rules
from catalog.errors import CatalogError, Interrupted
from catalog.results import (
    AuthorCount, Facets, FirstPage, NoteView, PaperDetail, PaperState, PaperSummary, RatingCount,
    SplitResult, Stats, TagCount,
)
from catalog.searching import highlight, hits, pages
from catalog.searching.lookup import as_one_query, resolve_key, understood
from catalog.searching.query import Query, QueryError, Sort, parse
from catalog.searching.request import SearchRequest, as_request, request
from catalog.store import Store, first_use, open_store

if TYPE_CHECKING:  # the parts, and what edits and imports return, load when first used
    from catalog.parts.admin import Admin
    from catalog.parts.citing import Citing
    from catalog.parts.corrections import Corrections
    from catalog.parts.deleting import Deleting
    from catalog.parts.discovery import Discovering
    from catalog.parts.exchange import Exchange
    from catalog.parts.files import Files
    from catalog.parts.saved import SavedSearches
    from catalog.parts.statistics import Statistics
    from catalog.parts.triaging import Triage
    from catalog.parts.vocabulary import Vocabulary
    from catalog.parts.web import Web
    from catalog.parts.words import Words
    from catalog.results import Edit, ImportReport
    from catalog.store.rows import Revision

Notify = Callable[[str], None]
Stop = Callable[[], bool]
# After an import that leaves ranked lists of frequent words searches cannot read, without
# the background refresher: ranked again here for at most this share of the import's time,
# and at least RANKED_LISTS_FLOOR seconds.
RANKED_LISTS_SHARE = 0.12
RANKED_LISTS_FLOOR = 5.0


class Catalog:
    """One catalog. Holds no connection or session; every method is one unit of work with its
    own transaction. Jobs of their own are parts (the module's docstring lists them):
    `catalog.files`, `.exchange`, `.citing`, `.words`, `.saved`, `.triage`, `.discovery`,
    `.admin`, `.web`, `.vocabulary` (tags across the catalog),
    `.statistics` (the counts charts draw), `.corrections` (a paper's own fields), `.deleting`."""

    def __init__(self, store: Store):
        self.store = store

    # Each part is made when first used, and its module imported then: a search loads none of
    # backups, exports, cited files or the web (their imports were half its start-up).

    @cached_property
    def files(self) -> Files:
        from catalog.parts.files import Files

        return Files(self.store)

    @cached_property
    def exchange(self) -> Exchange:
        from catalog.parts.exchange import Exchange

        return Exchange(self.store)

    @cached_property
    def admin(self) -> Admin:
        from catalog.parts.admin import Admin

        return Admin(self.store)

    @cached_property
    def citing(self) -> Citing:
        from catalog.parts.citing import Citing

        return Citing(self.store, self.exchange)

    @cached_property
    def words(self) -> Words:
        from catalog.parts.words import Words

        return Words(self.store)

    @cached_property
    def saved(self) -> SavedSearches:
        from catalog.parts.saved import SavedSearches

        return SavedSearches(self.store)

    @cached_property
    def triage(self) -> Triage:
        from catalog.parts.triaging import Triage

        return Triage(self.store)

    @cached_property
    def discovery(self) -> Discovering:
        from catalog.parts.discovery import Discovering

        return Discovering(self.store)

    @cached_property
    def web(self) -> Web:
        from catalog.parts.web import Web

        return Web(self)

    @cached_property
    def vocabulary(self) -> Vocabulary:
        from catalog.parts.vocabulary import Vocabulary

        return Vocabulary(self)

    @cached_property
    def statistics(self) -> Statistics:
        from catalog.parts.statistics import Statistics

        return Statistics(self)

    @cached_property
    def corrections(self) -> Corrections:
        from catalog.parts.corrections import Corrections

        return Corrections(self)

    @cached_property
    def deleting(self) -> Deleting:
        from catalog.parts.deleting import Deleting

        return Deleting(self)

    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def location(self) -> str:
        """Where the catalog is: its file, or its server's URL without the password."""
        return self.store.location

    @classmethod
    def open(cls, path: Path, *, seed: bool = False, notify: Notify = lambda m: None,
             create: bool = True) -> "Catalog":
        """Open (creating and migrating as needed). `seed`: load the bundled lists into a new file.
        `create=False` (commands that only read or change papers already there): a file that
        does not exist, or is empty, is NoCatalog and nothing is written. A server URL is
        opened as always (catalog never creates a server database; an empty one becomes a
        catalog as before)."""
        if not create and not seed and isinstance(path, Path) and _no_file(path):
            from catalog.errors import NoCatalog

            raise NoCatalog(path)
        # Several commands started at once on a new catalog: one prepares it, the others wait
        # for it here (however long that takes), then open it ready.
        with first_use(path, seed=seed, notify=notify):
            catalog = cls(open_store(path, notify=notify, rederive=_rederive))
            try:
                # Not "is the file new": a run killed while seeding leaves a file that still
                # needs them. Importing the seeds again is harmless: files already in are skipped.
                if seed and not catalog.store.is_seeded():
                    from catalog.resources import seeds_dir

                    report = catalog.import_paths([seeds_dir()])
                    if not report.errors:
                        catalog.store.mark_seeded()
                    if report.new:
                        notify(f"New catalog at {path}: imported {report.new} papers from the bundled "
                               f"seeds (catalog import PATH adds your own)")
            except BaseException:
                catalog.close()
                raise
        return catalog

    def close(self) -> None:
        self.store.close()

    def version(self) -> int:
        """A number that changes whenever anyone (another process, another person, this
        one) commits a change to the catalog: cheap enough to poll every second. SQLite's
        data_version; a server backend keeps its own (LISTEN/NOTIFY)."""
        return self.store.data_version()

    # --- import -------------------------------------------------------------------------

    def import_paths(self, paths: Iterable[Path], *, venue: str | None = None,
                     year: int | None = None,
                     progress: Callable[[int], None] | None = None,
                     mapping: Sequence[str] = (), background: bool = False,
                     link: bool | None = None,
                     ranking: Callable[[int, int], None] | None = None) -> ImportReport:
        """Import paper lists, BibTeX, RIS, JSON/JSONL and CSV files, and PDFs (folders: all of
        them inside; PDFs as import_pdfs does, copied or with `link` linked). `mapping`:
        "field=column" for JSON and CSV files whose names the defaults miss.
        `background` (what `catalog import` asks): rank every ranked list the import left
        unreadable here, before returning (`ranking(done, of)` after each), so the catalog is
        fast the moment the import ends; then bring the discovery cache up to date (or build
        it) in a detached process (catalog/discover/refresher.py)."""
        from catalog.attachments import attaching
        from catalog.importing import importer
        from catalog.ingest.mapping import FieldMap, MappingError
        from catalog.results import ImportReport

        try:
            field_map = FieldMap.parse(mapping)
        except MappingError as exc:
            raise CatalogError(str(exc)) from None
        start = monotonic()
        paths = list(paths)
        pdfs = list(attaching.pdfs_in(paths))
        others = [p for p in paths if not attaching.is_pdf(p)]
        report = importer.import_paths(self.store, others, venue=venue, year=year,
                                       progress=progress, field_map=field_map) if others else ImportReport()
        if pdfs:
            report.files += self.files.import_pdfs(pdfs, link=link, progress=(lambda _: progress(1)) if progress else None)
        if report.new or report.merged:
            from catalog.discover import related

            self._refresh_ranked_lists(background, monotonic() - start, ranking)
            related.refresh_after_import(self.store, background=background)  # derived data
            self.citing.keep_current()
        elif background:  # the same files again after an import cut short: its lists are finished
            self._refresh_ranked_lists(background, monotonic() - start, ranking)
        return report

    def _refresh_ranked_lists(self, background: bool, took: float,
                              ranking: Callable[[int, int], None] | None) -> None:
        """The ranked lists of frequent words after an import. A few hundred new papers need
        nothing: searches follow them (catalog/store/lists/). Past that (or when words are to
        be chosen again), `background`: those searches as you type read, here, most papers
        first (minutes at 1M papers; each stays ranked as it is done), then the one- and
        two-letter prefixes' (searched only when typed with `*`), unless the catalog is past
        scoring.SHORT_AT_IMPORT papers: then those are left to the detached refresher
        (catalog/discover/refresher.py), started here (until ranked, such a search ranks every
        match), or with CATALOG_DISCOVER_REFRESH=inline ranked here too (with =off, to `catalog
        doctor --fix`). Cut short (Ctrl-C), the refresher goes on from there, and searches say
        how many are left. Otherwise (a caller that cannot wait: tests, the TUI), within a
        share of the import's own time; lists left stale are never read."""
        from catalog.discover import refresher

        if not self.store.lists.behind():
            return
        if not background:
            self.store.lists.refresh(budget=max(RANKED_LISTS_FLOOR, RANKED_LISTS_SHARE * took))
            return
        try:
            self.store.lists.refresh(budget=None, rescored=True, progress=ranking,
                                     typed=refresher.mode() != "inline")
        except KeyboardInterrupt:
            self.rank_lists_elsewhere()
            raise
        self.rank_lists_elsewhere()

    def rank_lists_elsewhere(self) -> bool:
        """Start the detached refresher for the ranked lists searches cannot read (and the
        discovery cache), unless one is at work or nothing is left: whether one is at work."""
        from catalog.discover import refresher

        if refresher.mode() != "background":
            return False
        cache_dir = Path(self.store.cache_dir())  # the discovery engine's folder, without loading it
        if refresher.running(cache_dir):
            return True
        if not self.store.lists.left():
            return False
        location = self.store.path if self.store.path is not None else self.store.url
        return refresher.start(location, cache_dir) is not None

    def lists_left(self) -> int:
        """How many ranked lists of frequent words searches cannot read yet (0: none, or the
        catalog is too small to keep any): while some are left, their words rank every match."""
        return self.store.lists.left()

    # --- finding papers -----------------------------------------------------------------

    def search(self, query: SearchRequest | str, *, limit: int = 50, offset: int = 0,
               snippets: bool = True, sort: Sort | str | None = None,
               cancelled: Stop | None = None, within: str = "all") -> list[PaperSummary]:
        """The page of papers a search finds, best first or in its order; a paper the query
        names by key, DOI or arXiv id comes first. `query`: a SearchRequest
        (catalog/searching/request.py), or text to make one of in `sort`'s order (a Sort, or its
        text: "year", "-year"). `cancelled`: asked while the database works; once it is true
        the search stops and raises Interrupted (the TUI's answer to a newer search).
        `within`: "all", "abstracts" (not the text of attached PDFs) or "text" (only that):
        catalog/searching/pages.py says how the pages rank."""
        asked = as_request(query, sort)
        pages.check_within(within)
        with self.store.read() as tx, tx.stoppable(cancelled):
            parsed, named = understood(tx, asked)
            found_hits, found = hits.page(tx, parsed, named, limit, offset, asked.sort, snippets, within)
            also = tx.search.acronyms_for(parsed) if snippets and (found or any(h.text for h in found_hits)) else {}
            ranked = tx.lists.to_keep()
        self.store.lists.keep(ranked)  # the lists this search ranked of its own, for the next one
        if not snippets:
            return [hit.summary for hit in found_hits]
        return hits.with_page_snippets(hits.with_snippets(found_hits, parsed, also), found_hits, found, parsed, also)

    def first_page(self, query: SearchRequest | str, *, limit: int, counted: bool = False,
                   cancelled: Stop | None = None) -> FirstPage:
        """A search's first `limit` papers without snippets (the TUI's first rows) and, with
        `counted`, how many it finds (as `count`), in one read transaction. The total is also
        known, and given, when fewer than `limit` come."""
        asked = as_request(query)
        with self.store.read() as tx, tx.stoppable(cancelled):
            parsed, named = understood(tx, asked)
            found_hits, found = hits.page(tx, parsed, named, limit, 0, asked.sort, False)
            rows = [hit.summary for hit in found_hits]
            total = (len(rows) if len(rows) < limit
                     else len(named) + tx.search.count(parsed, partial=asked.partial)
                     + hits.count_only_on_pages(tx, parsed, asked, found=found) if counted else None)
            ranked = tx.lists.to_keep()
        self.store.lists.keep(ranked)
        return FirstPage(rows, total)

    def highlight_terms(self, query: SearchRequest | str) -> highlight.Terms:
        """What to mark in a paper's text for a search: its words in any form, and the forms
        its acronyms stand for ("SAE": "sparse autoencoders"). No words (or text that cannot
        be searched): nothing."""
        try:
            asked = as_request(query)
        except QueryError:
            return highlight.terms_of(Query())
        if not asked.query.has_text:
            return highlight.terms_of(asked.query)
        with self.store.read() as tx:
            return highlight.terms_of(asked.query, tx.search.acronyms_for(asked.query))

    def count(self, query: SearchRequest | str, *, cancelled: Stop | None = None,
              partial: bool | None = None) -> int:
        """How many papers `search` lists: those holding every word, and those holding some
        (`partial=False`: only the first; by default as the request's order lists them:
        SearchRequest.partial)."""
        asked = as_request(query)
        with self.store.read() as tx, tx.stoppable(cancelled):
            parsed, named = understood(tx, asked)
            partial = asked.partial if partial is None else partial
            return len(named) + tx.search.count(parsed, partial=partial) + hits.count_only_on_pages(tx, parsed, asked, partial)

    def get(self, key: str) -> PaperDetail:
        with self.store.read() as tx:
            detail = tx.papers.detail(resolve_key(tx, key))
        if not detail.attachments:
            return detail
        return dataclasses.replace(detail, attachments=tuple(self.files._located(a) for a in detail.attachments))

    def split(self, key: str, numbers: Sequence[int] = ()) -> SplitResult:
        """Undo merges: the records that joined paper `key` (all, or those of the sources
        numbered as `get(key).sources` lists them) become papers of their own. The paper keeps
        its key, tags, notes, status, rating and title."""
        from catalog.importing import merges

        with self.store.write() as tx:
            pid = resolve_key(tx, key)
            before = len(tx.merges.places_of(pid))
            ids = merges.split(tx, pid, tx.papers.key_of(pid), list(dict.fromkeys(numbers)), rules.now())
            return SplitResult(tx.papers.detail(pid).summary, tuple(tx.papers.summaries(ids)),
                               before - len(tx.merges.places_of(pid)))

    # --- user data: each change returns an Edit, which `undo` takes back -----------------

    def tag(self, keys: Sequence[str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> Edit:
        from catalog.parts import changes

        add = [rules.tag_name(t) for t in add]
        remove = [rules.tag_name(t) for t in remove]
        with self.store.write() as tx:
            ids = list(dict.fromkeys(resolve_key(tx, k) for k in keys))
            done = changes.change_tags_of(tx, [(pid, tx.papers.key_of(pid), add, remove) for pid in ids])
            tx.edits.drop_unused_tags()
            edited = _edit(tx, ids, done)
        self.citing.keep_current()  # a tag is what a project's .bib selects, most often
        return edited

    def set_status(self, keys: Sequence[str], status: str) -> Edit:
        return self._set_field(keys, "status", rules.status(status))

    def set_rating(self, keys: Sequence[str], rating: int | None) -> Edit:
        return self._set_field(keys, "rating", rules.rating(rating))

    def set_title(self, key: str, title: str | None) -> Edit:
        edit = self._set_field([key], "user_title", rules.user_line(title or "") or None)
        self.files.rename_files(key)  # its copies' names follow the title shown
        return edit

    def _set_field(self, keys: Sequence[str], field: str, value) -> Edit:
        from catalog.parts import changes

        with self.store.write() as tx:
            ids = [resolve_key(tx, k) for k in keys]
            done = [c for pid in ids if (c := changes.set_field(tx, pid, field, value)) is not None]
            edited = _edit(tx, ids, done)
        self.citing.keep_current()  # a title is written in them; a status can select them
        return edited

    def add_note(self, key: str, body: str) -> Edit:
        from catalog.parts import changes

        body = rules.note_body(body)
        with self.store.write() as tx:
            pid = resolve_key(tx, key)
            change = changes.add_note(tx, pid, body)
            return _edit(tx, [pid], [change], note=tx.papers.notes_of(pid)[-1])

    def edit_note(self, key: str, number: int, body: str) -> Edit:
        from catalog.parts import changes

        body = rules.note_body(body)
        with self.store.write() as tx:
            pid = resolve_key(tx, key)
            change = changes.edit_note(tx, pid, _note(tx, pid, key, number), body)
            return _edit(tx, [pid], [change], note=tx.papers.notes_of(pid)[number - 1])

    def delete_note(self, key: str, number: int) -> Edit:
        from catalog.parts import changes

        with self.store.write() as tx:
            pid = resolve_key(tx, key)
            note = _note(tx, pid, key, number)
            return _edit(tx, [pid], [changes.delete_note(tx, pid, note)], note=note)

    def undo(self, edit: Edit) -> Edit:
        """Take back `edit`'s own changes and nothing else.

        A tag it added is removed and one it removed comes back; a status, rating, title, note
        or saved search goes back only where it still holds what `edit` wrote. Whatever was
        changed since (by another command, another person) is left alone and named in
        `conflicts`. The returned Edit holds what this undo did, so undoing it is a redo."""
        from catalog.parts import changes
        from catalog.results import PaperDeleted, SavedSearchChanged, TagsChanged

        with self.store.write() as tx:
            done, conflicts, ids = [], [], []
            # Tag changes on distinct papers in a row are taken back together: each paper is
            # indexed again once (a rename's undo on 5,000 papers re-indexed 12,000 times).
            tags: dict[int, TagsChanged] = {}
            for change in reversed(edit.changes):
                pid = None
                gone = isinstance(change, PaperDeleted) and change.deleted  # it comes back
                if not isinstance(change, SavedSearchChanged) and not gone:
                    pid = tx.papers.paper_id(change.key)
                    if pid is None:
                        conflicts.append(f"paper {change.key} is no longer in the catalog")
                        continue
                    ids.append(pid)
                if isinstance(change, TagsChanged) and pid not in tags:
                    tags[pid] = change  # taken back with the others of the run
                    continue
                done += changes.revert_tags(tx, list(tags.items()))  # the run ends before this change
                tags = {}
                if isinstance(change, TagsChanged):  # a paper the run had already
                    tags[pid] = change
                    continue
                inverse, conflict = changes.revert(tx, pid, change)
                if inverse is not None:
                    done.append(inverse)
                    if gone:
                        ids.append(tx.papers.paper_id(change.key))
                if conflict:
                    conflicts.append(conflict)
            done += changes.revert_tags(tx, list(tags.items()))
            tx.edits.drop_unused_tags()
            return _edit(tx, ids, done, conflicts=conflicts)

    def tags_of(self, keys: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The tags of these papers (exact keys) by key, in a few statements however many
        papers; papers no longer in the catalog are left out."""
        with self.store.read() as tx:
            return tx.papers.tags_by_key(keys)

    def snapshot(self, keys: Sequence[str]) -> list[PaperState]:
        """The user-changeable state of these papers."""
        with self.store.read() as tx:
            return [tx.papers.paper_state(resolve_key(tx, key)) for key in keys]

    # --- overviews ----------------------------------------------------------------------

    def authors(self, query: str = "", *, limit: int = 100) -> list[AuthorCount]:
        """The people with most papers among those `query` selects (all for ""), most first."""
        with self.store.read() as tx:
            ids = None if not query.strip() else [
                hit.paper_id for hit in tx.search.page(parse(query), limit=-1, partial=False)]
            return tx.papers.author_counts(ids, limit)

    def tags(self) -> list[TagCount]:
        with self.store.read() as tx:
            return tx.papers.tag_counts()

    def stats(self) -> Stats:
        with self.store.read() as tx:
            total = tx.papers.paper_count()
            ratings = tx.papers.rating_counts()
            unrated = total - sum(r.papers for r in ratings)
            counts = tx.papers.row_counts()
            return Stats(
                papers=total, sources=counts["sources"], notes=counts["notes"], tags=counts["tags"],
                by_venue=tx.papers.venue_counts(),
                by_status=tuple(sorted(tx.papers.status_counts(total), key=lambda s: -s.papers)),
                by_rating=ratings + ((RatingCount(None, unrated),) if unrated else ()),
            )

    def facets(self, query: SearchRequest | str = "", *, cancelled: Stop | None = None,
               partial: bool | None = None) -> Facets:
        """Counts of the papers a search finds by venue and year, status, rating and tag (a
        tag counting its children's papers too); the whole catalog for "". The papers are
        those `count` counts (`partial=False`: only those holding every word, as a search
        sorted otherwise than by relevance lists; by default as the request's order lists)."""
        asked = as_request(query)
        with self.store.read() as tx, tx.stoppable(cancelled):
            parsed = as_one_query(tx, asked)
            total = tx.papers.paper_count()
            names = tuple(t.name for t in tx.papers.tag_counts() if t.count)
            saved = tx.edits.saved_searches()
            if parsed.is_empty:
                with_pdf, with_files = tx.papers.file_counts()
                found = Facets(venues=tx.papers.venue_counts(), tags=tx.papers.tags_with_children(),
                               statuses=tx.papers.status_counts(total), ratings=tx.papers.rating_counts(),
                               saved=saved, total=total, with_pdf=with_pdf, with_files=with_files,
                               authors=tuple(tx.papers.author_counts(None, None)))
            else:
                found = tx.search.facets(parsed, partial=asked.partial if partial is None else partial)
        return dataclasses.replace(found, saved=saved, query=asked.text, catalog_total=total, tag_names=names)

    # --- schema and health, of a catalog not opened (backups, SQL, members: catalog.admin) ---

    @staticmethod
    def schema_history() -> list[Revision]:
        """Every migration, oldest first."""
        from catalog.store import schema_history

        return schema_history()

    @staticmethod
    def check(path: Path, *, fix: bool = False, notify: Notify = lambda m: None):
        """`catalog doctor`: check the catalog at `path` (with `fix`, repair it), including a
        file the other commands refuse to open; a DoctorReport."""
        from catalog.parts import doctor

        return doctor.check_file(path, fix=fix, notify=notify)


# --- helpers: coordination, no SQL ----------------------------------------------------------

def _rederive(tx, ids: list[int]) -> int:
    """The store's catch-up step: the text of abstracts edited by hand derived again (the
    import pipeline's; imported only when there are such edits)."""
    from catalog.importing import derived

    return derived.refresh(tx, ids)


def _no_file(path: Path) -> bool:
    """No catalog file at `path`: nothing there, or an empty file (which a new catalog would
    fill). A folder, a device or a foreign file is left to the store's own refusal."""
    try:
        return path.stat().st_size == 0 and path.is_file()
    except FileNotFoundError:
        return True
    except OSError:
        return False

def _note(tx, pid: int, key: str, number: int) -> NoteView:
    notes = tx.papers.notes_of(pid)
    if not 1 <= number <= len(notes):
        have = f"it has {len(notes)}" if notes else "it has none"
        raise CatalogError(f"paper {key} has no note {number} ({have})")
    return notes[number - 1]


def _edit(tx, ids: Sequence[int], done: Sequence, *, note: NoteView | None = None,
          conflicts: Sequence[str] = ()) -> Edit:
    from catalog.results import Edit

    return Edit(tuple(done), tuple(tx.papers.summaries(list(dict.fromkeys(ids)))), note, tuple(conflicts))


__all__ = ["Catalog", "CatalogError", "Interrupted", "QueryError", "SearchRequest", "request"]
