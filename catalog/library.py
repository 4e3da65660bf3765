"""Operations on a catalog. The CLI and the TUI both call these and get dataclasses back.

Catalog coordinates: it checks what users typed (catalog/rules.py), opens one transaction of
the store per operation, and calls the modules that know each job (importer, changes, merges,
annotations, export, doctor). It holds no SQL and no connection. Parts with a job of their
own are composed in, each made in __init__ with the store and reached as an attribute:
`files` (attached files, catalog/files.py), `exchange` (exports and the annotations
file, catalog/exchange.py), `discovery` (similar papers, recommendations, topics,
catalog/discovery.py), `admin` (backups, copies, SQL, members, catalog/admin.py) and `web` (papers from the web, catalog/web.py: given the Catalog,
whose search and get it uses).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from time import monotonic

from catalog import attaching, changes, rules
from catalog.searching import highlight, pages
from catalog.errors import CatalogError, Interrupted
from catalog.admin import Admin
from catalog.discovery import Discovering
from catalog.exchange import Exchange
from catalog.files import Files
from catalog.searching.lookup import as_one_query, resolve_key, understood
from catalog.searching.query import RELEVANCE, Clause, Filter, Query, QueryError, Sort, parse
from catalog.searching.request import SearchRequest, request
from catalog.resources import seeds_dir
from catalog.results import (
    AddedAcronym, AuthorCount, Edit, Facets, FirstPage, ImportReport,
    MissingWords, NoteView, PaperDetail, PaperState, PaperSummary,
    SavedQuery, SavedSearchChanged, SearchHit,
    SplitResult, Stats, Suggestion, TagCount, TriageCount, TriageOrder,
)
from catalog.store import Store, first_use, open_store
from catalog.web import Web

Notify = Callable[[str], None]
Stop = Callable[[], bool]
# After an import that leaves ranked lists of frequent words searches cannot read, without
# the background refresher: ranked again here for at most this share of the import's time,
# and at least RANKED_LISTS_FLOOR seconds.
RANKED_LISTS_SHARE = 0.12
RANKED_LISTS_FLOOR = 5.0


class Catalog:
    """One catalog. Holds no connection or session; every method is one unit of work with its
    own transaction. Attached files, the web, exports, discovery and upkeep are parts of
    their own: `catalog.files`, `catalog.web`, `catalog.exchange`, `catalog.discovery`, `catalog.admin`."""

    def __init__(self, store: Store):
        self.store = store
        self.files = Files(store)
        self.exchange = Exchange(store)
        self.admin = Admin(store)
        self.discovery = Discovering(store)
        self.web = Web(self)
        self._words = None  # the index's words for suggestions (catalog/searching/suggest.py), once read

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
        from catalog.importing import importer
        from catalog.ingest.mapping import FieldMap, MappingError

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
            self._keep_bib_files_current()
        elif background:  # the same files again after an import cut short: its lists are finished
            self._refresh_ranked_lists(background, monotonic() - start, ranking)
        return report

    def _refresh_ranked_lists(self, background: bool, took: float,
                              ranking: Callable[[int, int], None] | None) -> None:
        """The ranked lists of frequent words after an import. A few hundred new papers need
        nothing: searches follow them (catalog/store/lists/). Past that (or when words are to
        be chosen again), `background`: all of them here, most papers first (minutes at 1M
        papers; each stays ranked as it is done). Cut short (Ctrl-C), the detached refresher
        goes on from there (catalog/discover/refresher.py) and searches say how many are left.
        Otherwise (a caller that cannot wait: tests, the TUI), within a share of the import's
        own time; lists left stale are never read."""
        if not self.store.lists.behind():
            return
        if not background:
            self.store.lists.refresh(budget=max(RANKED_LISTS_FLOOR, RANKED_LISTS_SHARE * took))
            return
        try:
            self.store.lists.refresh(budget=None, rescored=True, progress=ranking)
        except KeyboardInterrupt:
            self.rank_lists_elsewhere()
            raise

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
        asked = _asked(query, sort)
        pages.check_within(within)
        with self.store.read() as tx, tx.stoppable(cancelled):
            parsed, named = understood(tx, asked)
            hits, found = _hits_and_pages(tx, parsed, named, limit, offset, asked.sort, snippets, within)
            also = tx.search.acronyms_for(parsed) if snippets and (found or any(hit.text for hit in hits)) else {}
            ranked = tx.lists.to_keep()
        self.store.lists.keep(ranked)  # the lists this search ranked of its own, for the next one
        if not snippets:
            return [hit.summary for hit in hits]
        return _with_page_snippets(_with_snippets(hits, parsed, also), hits, found, parsed, also)

    def first_page(self, query: SearchRequest | str, *, limit: int, counted: bool = False,
                   cancelled: Stop | None = None) -> FirstPage:
        """A search's first `limit` papers without snippets (the TUI's first rows) and, with
        `counted`, how many it finds (as `count`), in one read transaction. The total is also
        known, and given, when fewer than `limit` come."""
        asked = _asked(query)
        with self.store.read() as tx, tx.stoppable(cancelled):
            parsed, named = understood(tx, asked)
            hits, found = _hits_and_pages(tx, parsed, named, limit, 0, asked.sort, False)
            rows = [hit.summary for hit in hits]
            total = (len(rows) if len(rows) < limit
                     else len(named) + tx.search.count(parsed, partial=asked.partial)
                     + _only_on_pages(tx, parsed, asked, found=found) if counted else None)
            ranked = tx.lists.to_keep()
        self.store.lists.keep(ranked)
        return FirstPage(rows, total)

    def highlight_terms(self, query: SearchRequest | str) -> highlight.Terms:
        """What to mark in a paper's text for a search: its words in any form, and the forms
        its acronyms stand for ("SAE": "sparse autoencoders"). No words (or text that cannot
        be searched): nothing."""
        try:
            asked = _asked(query)
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
        asked = _asked(query)
        with self.store.read() as tx, tx.stoppable(cancelled):
            parsed, named = understood(tx, asked)
            partial = asked.partial if partial is None else partial
            return len(named) + tx.search.count(parsed, partial=partial) + _only_on_pages(tx, parsed, asked, partial)

    def missing_words(self, query: SearchRequest | str) -> MissingWords | None:
        """The words of a search (as typed) that no paper holds in any form, and those some
        paper holds: the search lists what those find, marked partial. None when every word
        is found or none is, for one word, and for text that cannot run."""
        try:
            asked = _asked(query)
        except QueryError:
            return None
        if not asked.query.has_text:
            return None
        with self.store.read() as tx:
            words = tx.search.word_papers(asked.query)
        missing = tuple(dict.fromkeys(w for w, n in words if not n))
        held = tuple(dict.fromkeys(w for w, n in words if n))
        return MissingWords(missing, held) if missing and held else None

    def suggest(self, query: SearchRequest | str) -> list[Suggestion]:
        """For each word of a search that (almost) no paper holds, the index's closest words
        that many more papers hold ("did you mean interpretability?"); [] when every word is
        found, and for a key, DOI or arXiv id."""
        return self._suggestions(query)[0]

    def correction(self, query: SearchRequest | str) -> str | None:
        """The search's text with its one word no paper holds replaced by the closest word
        papers do hold (`watermarkng` -> `watermarking`, `atention sink` -> `attention
        sink`), when every other word is in some paper; None otherwise."""
        suggestions, unknown = self._suggestions(query)
        typo = [s for s in suggestions if s.word in unknown]
        if len(unknown) != 1 or len(typo) != 1:
            return None
        from catalog.searching.suggest import corrected

        return corrected(_asked(query).text, typo)

    def _suggestions(self, query: SearchRequest | str) -> tuple[list[Suggestion], list[str]]:
        """(suggest's answer, the words as typed that no paper holds, when the search's other
        words are all found; else [])."""
        from catalog.searching import suggest

        try:
            asked = _asked(query)
        except QueryError:
            return [], []
        words = suggest.words_of(asked.query, asked.completing)
        if not words:
            return [], []
        with self.store.read() as tx:
            if understood(tx, asked)[1]:  # a key, DOI or arXiv id names a paper
                return [], []
            # A word an acronym stands in for ("mech" of "mech interp") is no typo.
            known = {w.lower() for text in tx.search.acronyms_for(asked.query) for w in text.split()}
            words = [(typed, folded) for typed, folded in words if typed.lower() not in known]
            papers = {folded: tx.search.papers_with_word(folded, suggest.RARE + 1) for _, folded in words}
            rare = [(typed, folded) for typed, folded in words if papers[folded] <= suggest.RARE]
            if not rare:
                return [], []
            held = tx.search.word_papers(asked.query)  # [] for one word
            others_found = sum(1 for _, n in held if not n) <= 1
            word_list = self._word_list(tx)
        found = ((typed, suggest.closest(folded, papers[folded], word_list)) for typed, folded in rare)
        suggestions = [Suggestion(typed, alternatives) for typed, alternatives in found if alternatives]
        unknown = [typed for typed, folded in rare if not papers[folded]] if others_found else []
        return suggestions, unknown

    def _word_list(self, tx):
        """The index's words: kept in memory while the index is unchanged, and in the cache
        folder for the next process (reading them from a large index takes long)."""
        from catalog.searching import suggest

        stamp = tx.search.vocabulary_stamp()
        if self._words is not None and self._words.stamp == stamp:
            return self._words
        folder = self.store.cache_dir() / "vocabulary"
        words = suggest.WordList.load(folder, stamp)
        if words is None:
            words = suggest.WordList.build(stamp, tx.search.vocabulary())
            words.save(folder)
        self._words = words
        return words

    # --- acronyms users add (catalog/searching/glossary.py) --------------------------------

    def acronyms(self) -> list[AddedAcronym]:
        """The acronyms users added, by short form."""
        with self.store.read() as tx:
            return tx.edits.added_acronyms()

    def add_acronym(self, short: str, long: str) -> bool:
        """Searches for `short` also find `long` and the other way round, over what the
        abstracts define and the bundled glossary; whether it was not there yet."""
        short, long, key = _acronym(short, long)
        with self.store.write() as tx:
            return tx.edits.add_acronym(short, key, long)

    def remove_acronym(self, short: str, long: str | None = None) -> int:
        """Remove an added acronym's long forms (all, or `long`); how many. CatalogError when
        none was added."""
        short = rules.user_line(short)
        key = None if long is None else _acronym(short, long)[2]
        with self.store.write() as tx:
            removed = tx.edits.remove_acronyms(short, key)
        if not removed:
            what = short if long is None else f"{short} = {rules.user_line(long)}"
            raise CatalogError(f"no acronym {what} was added (`catalog acronyms` lists them)")
        return removed

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
            before = len(tx.imports.places_of(pid))
            ids = merges.split(tx, pid, tx.papers.key_of(pid), list(dict.fromkeys(numbers)), rules.now())
            return SplitResult(tx.papers.detail(pid).summary, tuple(tx.papers.summaries(ids)),
                               before - len(tx.imports.places_of(pid)))

    # --- user data: each change returns an Edit, which `undo` takes back -----------------

    def tag(self, keys: Sequence[str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> Edit:
        add = [rules.tag_name(t) for t in add]
        remove = [rules.tag_name(t) for t in remove]
        with self.store.write() as tx:
            ids = [resolve_key(tx, k) for k in keys]
            done = [changes.change_tags(tx, pid, add, remove) for pid in ids]
            tx.edits.drop_unused_tags()
            edited = _edit(tx, ids, done)
        self._keep_bib_files_current()  # a tag is what a project's .bib selects, most often
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
        with self.store.write() as tx:
            ids = [resolve_key(tx, k) for k in keys]
            done = [c for pid in ids if (c := changes.set_field(tx, pid, field, value)) is not None]
            return _edit(tx, ids, done)

    def add_note(self, key: str, body: str) -> Edit:
        body = rules.note_body(body)
        with self.store.write() as tx:
            pid = resolve_key(tx, key)
            change = changes.add_note(tx, pid, body)
            return _edit(tx, [pid], [change], note=tx.papers.notes_of(pid)[-1])

    def edit_note(self, key: str, number: int, body: str) -> Edit:
        body = rules.note_body(body)
        with self.store.write() as tx:
            pid = resolve_key(tx, key)
            change = changes.edit_note(tx, pid, _note(tx, pid, key, number), body)
            return _edit(tx, [pid], [change], note=tx.papers.notes_of(pid)[number - 1])

    def delete_note(self, key: str, number: int) -> Edit:
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
        with self.store.write() as tx:
            done, conflicts, ids = [], [], []
            for change in reversed(edit.changes):
                pid = None
                if not isinstance(change, SavedSearchChanged):
                    pid = tx.papers.paper_id(change.key)
                    if pid is None:
                        conflicts.append(f"paper {change.key} is no longer in the catalog")
                        continue
                    ids.append(pid)
                inverse, conflict = changes.revert(tx, pid, change)
                if inverse is not None:
                    done.append(inverse)
                if conflict:
                    conflicts.append(conflict)
            tx.edits.drop_unused_tags()
            return _edit(tx, ids, done, conflicts=conflicts)

    def snapshot(self, keys: Sequence[str]) -> list[PaperState]:
        """The user-changeable state of these papers."""
        with self.store.read() as tx:
            return [tx.papers.paper_state(resolve_key(tx, key)) for key in keys]

    # --- triage: one paper at a time (the TUI's triage mode) -------------------------------

    def triage_count(self, query: str) -> TriageCount:
        """How many papers `query` finds, and how many of them are triaged (status no longer
        unread, or rated)."""
        parsed = parse(query)
        with self.store.read() as tx:
            total = tx.search.count(parsed)
            left = tx.search.count(_untriaged(parsed)) if total else 0
        return TriageCount(total, total - left)

    def untriaged(self, query: str, *, limit: int = 500) -> list[PaperSummary]:
        """The first `limit` papers of `query` not triaged yet, in the search's own order."""
        with self.store.read() as tx:
            return [hit.summary for hit in tx.search.page(_untriaged(parse(query)), limit=limit)]

    def triage_order(self, query: str, *, limit: int = 500) -> TriageOrder | None:
        """The untriaged papers of `query`, most promising first: ranked by the discovery
        engine's recommender against the papers the user rated 4-5, queued, is reading, read
        or tagged. None when there are none of those to learn from. Loads scikit-learn and
        may build the discovery cache: call it from a worker."""
        from catalog.discover import related

        parsed = parse(query)
        return related.triage_order(self.store, _untriaged(parsed), limit, whole_catalog=parsed.is_empty)

    # --- overviews ----------------------------------------------------------------------

    # --- project .bib files kept current (catalog/bibfiles.py) ---------------------------------

    def bib_add(self, path: Path, query: str, *, aux: Path | None = None) -> Synced:
        """Keep `path` a BibTeX file of the papers `query` selects (only those `aux` cites, with
        one), written now and again by bib_sync whenever its content would change."""
        from catalog import bibfiles

        parse(query)  # a query that cannot mean anything is refused before anything is kept
        target = Path(path).expanduser().resolve()
        found = bibfiles.BibFile(str(target), query, str(Path(aux).expanduser().resolve()) if aux else None)
        synced = self._bib_write(found)
        with self.store.write() as tx:
            tx.imports.set_setting(*found.as_setting())
        return synced

    def bib_remove(self, path: Path) -> bool:
        from catalog import bibfiles

        name = bibfiles.PREFIX + str(Path(path).expanduser().resolve())
        with self.store.write() as tx:
            known = tx.imports.setting(name) is not None
            tx.imports.set_setting(name, None)
        return known

    def bib_files(self) -> list:
        from catalog import bibfiles

        with self.store.read() as tx:
            return [bibfiles.BibFile.from_setting(n, v) for n, v in tx.imports.settings_starting(bibfiles.PREFIX)]

    def bib_sync(self) -> list[Synced]:
        """Rewrite each kept .bib file whose content changed; what each holds now."""
        return [self._bib_write(found) for found in self.bib_files()]

    def _keep_bib_files_current(self) -> None:
        """After a change, the kept .bib files that it changed are rewritten; one that cannot be
        (its folder gone) waits for `catalog bib sync`, which says why."""
        for found in self.bib_files():
            try:
                self._bib_write(found)
            except (CatalogError, OSError):
                pass

    def _bib_write(self, found) -> Synced:
        from catalog import bibfiles
        from catalog.export import filewriter as files

        text, count = bibfiles.render(self.exchange.export_papers(found.query), bibfiles.cited(found.aux))
        target = Path(found.path)
        try:
            same = target.is_file() and target.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            files.write_file(target, lambda out: out.write(text), force=True,
                             protected=files.database_files(self.path))
        return bibfiles.Synced(found.path, count, not same)

    def citekey_pattern(self, pattern: str | None = None) -> str:
        """The pattern new papers' cite keys are made by (docs/formats.md, "Cite keys"); with
        `pattern`, set it first (checked: CatalogError for one that is not a pattern)."""
        from catalog import citekeys

        if pattern is not None:
            citekeys.pattern_parts(pattern)
            with self.store.write() as tx:
                tx.imports.set_setting(citekeys.SETTING, pattern.replace(" ", ""))
        with self.store.read() as tx:
            return tx.imports.setting(citekeys.SETTING) or citekeys.PATTERN

    def regen_citekeys(self, query: str = "") -> list[tuple[str, str | None, str]]:
        """Make the cite keys of the papers `query` selects (all for "") again by the current
        pattern; a key a paper's file gave it stays. (paper key, old cite key, new) of each
        change, in search order."""
        from catalog import citekeys

        changes = []
        with self.store.write() as tx:
            pattern = tx.imports.setting(citekeys.SETTING) or citekeys.PATTERN
            ids = [hit.paper_id for hit in tx.search.page(parse(query), limit=-1, partial=False)]
            for pid, paper in zip(ids, tx.papers.export_papers(ids)):
                own = citekeys.own_key([(r.format, r.cite_key) for r in paper.records])
                base = own or citekeys.made_key(authors=paper.authors, year=paper.year,
                                                title=paper.title or paper.headline, venue=paper.venue,
                                                fallback="paper", pattern=pattern)
                new, n = base, 0
                while new.lower() != (paper.cite_key or "").lower() and tx.imports.citekeys_taken([new]):
                    n += 1
                    new = citekeys.suffixed(base, n, generated=own is None)
                if new != paper.cite_key:
                    tx.imports.set_citekey(pid, new, own is None)
                    changes.append((paper.key, paper.cite_key, new))
        return changes

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
            unrated = total - sum(n for _, n in ratings)
            counts = tx.papers.row_counts()
            return Stats(
                papers=total, sources=counts["sources"], notes=counts["notes"], tags=counts["tags"],
                by_venue=tx.papers.venue_counts(),
                by_status=tuple(sorted(tx.papers.status_counts(total), key=lambda row: -row[1])),
                by_rating=ratings + (((None, unrated),) if unrated else ()),
            )

    def facets(self, query: SearchRequest | str = "", *, cancelled: Stop | None = None,
               partial: bool | None = None) -> Facets:
        """Counts of the papers a search finds by venue and year, status, rating and tag (a
        tag counting its children's papers too); the whole catalog for "". The papers are
        those `count` counts (`partial=False`: only those holding every word, as a search
        sorted otherwise than by relevance lists; by default as the request's order lists)."""
        asked = _asked(query)
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

    # --- saved searches -----------------------------------------------------------------

    def save_search(self, name: str, query: str) -> Edit:
        """Save `query` under `name`, replacing the query a search of that name had."""
        name, query = rules.user_line(name), rules.user_line(query)
        if not name:
            raise CatalogError("a saved search needs a name")
        parse(query)  # refuse a query that would only ever give an error
        with self.store.write() as tx:
            return Edit((changes.save_search(tx, name, query),))

    def delete_saved_search(self, name: str) -> Edit:
        with self.store.write() as tx:
            if tx.edits.saved_query(name) is None:
                raise CatalogError(f"no saved search named {name!r}")
            return Edit((changes.save_search(tx, name, None),))

    def saved_searches(self) -> tuple[SavedQuery, ...]:
        with self.store.read() as tx:
            return tx.edits.saved_searches()

    # --- schema and health, of a catalog not opened (backups, SQL, members: catalog.admin) ---

    @staticmethod
    def schema_history() -> list[tuple[str, str | None, str]]:
        """(revision, parent, message) of every migration, oldest first."""
        from catalog.store import schema_history

        return schema_history()

    @staticmethod
    def check(path: Path, *, fix: bool = False, notify: Notify = lambda m: None):
        """`catalog doctor`: check the catalog at `path` (with `fix`, repair it), including a
        file the other commands refuse to open; a DoctorReport."""
        from catalog import doctor

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
    return Edit(tuple(done), tuple(tx.papers.summaries(list(dict.fromkeys(ids)))), note, tuple(conflicts))


def _acronym(short: str, long: str) -> tuple[str, str, str]:
    """(short form, long form, the long form as compared) as stored, or CatalogError."""
    from catalog.searching.acronyms import long_key

    short, long = rules.user_line(short), rules.user_line(long)
    if not any(c.isalnum() for c in short) or len(short) > 40 or len(short.split()) > 4:
        raise CatalogError(f"{short!r} is no short form: up to 4 words and 40 characters, with a letter or digit")
    key = long_key(long)
    if len(key) < 2 or len(long) > 200:
        raise CatalogError(f"{long!r} is no long form: words with letters, up to 200 characters")
    if key == long_key(short):
        raise CatalogError(f"{short!r} and {long!r} are the same words")
    return short, long, key


def _asked(query: SearchRequest | str, sort: Sort | str | None = None) -> SearchRequest:
    """A request as given, or made from text (parsed here, once)."""
    if isinstance(query, SearchRequest):
        if sort is not None:
            raise TypeError("a SearchRequest carries its own sort")
        return query
    return request(query, RELEVANCE if sort is None else sort)


def _hits(tx, parsed: Query, named: list[int], limit: int, offset: int, sort: Sort,
          with_text: bool) -> list[SearchHit]:
    """A page of a search: the papers it names first (understood), then what its query finds."""
    first = named[offset:offset + limit] if limit >= 0 else named[offset:]
    hits = [SearchHit(pid, summary, None, None) for pid, summary in zip(first, tx.papers.summaries(first))]
    rest = limit - len(hits) if limit >= 0 else -1
    if rest:
        hits += tx.search.page(parsed, limit=rest, offset=max(0, offset - len(named)),
                               with_text=with_text and parsed.has_text, sort=sort)
    return hits


def _hits_and_pages(tx, parsed: Query, named: list[int], limit: int, offset: int, sort: Sort,
                    with_text: bool, within: str = "all") -> tuple[list[SearchHit], list | None]:
    """A page of a search with the papers attached PDFs' pages found merged in as
    catalog/searching/pages.py ranks them (a search by relevance; `within` "text": only
    those), and the pages found (None: not read, the page being full without them); papers
    with files say so."""
    hits, found = _merged_hits(tx, parsed, named, limit, offset, sort, with_text, within)
    filed = tx.papers.with_files([hit.paper_id for hit in hits]) if hits else set()
    if filed:
        hits = [dataclasses.replace(hit, summary=dataclasses.replace(hit.summary, has_files=True))
                if hit.paper_id in filed else hit for hit in hits]
    return hits, found


def _merged_hits(tx, parsed: Query, named: list[int], limit: int, offset: int, sort: Sort,
                 with_text: bool, within: str) -> tuple[list[SearchHit], list | None]:
    if within == "all" and not with_text and limit >= 0 and sort == RELEVANCE and parsed.has_text:
        # Rows without snippets (the TUI's): when papers whose own text holds every word fill
        # the page, those found only on pages come after it, and a frequent word's pages (it
        # is on most) are not ranked at every key.
        own = _hits(tx, parsed, named, offset + limit, 0, sort, with_text)
        if sum(1 for hit in own if hit.summary.match != "some") >= offset + limit:
            return own[offset:], None  # None: the pages were not read
    found = tx.search.pages(parsed, pages.PAGES) if within != "abstracts" and parsed.has_text else []
    if found and sort == RELEVANCE:
        whole = _hits(tx, parsed, named, -1 if limit < 0 else offset + limit, 0, sort, with_text)
        hits = pages.merged(tx, whole, parsed, pages.best_pages(found), text_only=within == "text")
        return (hits[offset:] if limit < 0 else hits[offset:offset + limit]), found
    if within == "text":
        best = pages.best_pages(found)
        ids = list(best)[offset:] if limit < 0 else list(best)[offset:offset + limit]
        return pages.merged(tx, [], parsed, {pid: best[pid] for pid in ids}, text_only=True), found
    return _hits(tx, parsed, named, limit, offset, sort, with_text), found


def _only_on_pages(tx, parsed: Query, asked: SearchRequest, partial: bool | None = None, *,
                   found: list | None = None) -> int:
    """How many papers a search lists only because a page of their PDF holds its words
    (`found`: the pages, when the caller read them already)."""
    if not parsed.has_text or asked.sort != RELEVANCE:
        return 0
    found = tx.search.pages(parsed, pages.PAGES) if found is None else found
    return pages.only_on_pages(tx, parsed, list(pages.best_pages(found)),
                               asked.partial if partial is None else partial) if found else 0


def _with_page_snippets(summaries: list[PaperSummary], hits: list[SearchHit], found, query,
                        also: dict[str, list[str]]) -> list[PaperSummary]:
    """Summaries with the page number and a snippet of the best page holding the words, for
    papers an attached file's page was found in."""
    if not found:
        return summaries
    best = pages.best_pages(found)
    terms = highlight.terms_of(query, also)
    done = []
    for summary, hit in zip(summaries, hits):
        top = best.get(hit.paper_id)
        if top:
            text = " ".join(top[0].text.split())
            summary = dataclasses.replace(summary, page=top[0].page,
                                          page_snippet=highlight.snippet(text, terms) if terms else text[:160])
        done.append(summary)
    return done


def _untriaged(query: Query) -> Query:
    """`query` narrowed to the papers not triaged yet: status unread and no rating."""
    return Query([*query.clauses, Clause((Filter("status", "=", "unread"),)),
                  Clause((Filter("has", "=", "rating"),), negated=True)], query.source)


def _with_snippets(hits: list[SearchHit], query, also: dict[str, list[str]]) -> list[PaperSummary]:
    """Summaries with a snippet of each abstract around the words the query matched (and
    the forms its acronyms stand for, `also`)."""
    terms = highlight.terms_of(query, also)
    return [dataclasses.replace(hit.summary, snippet=highlight.snippet(hit.text, terms))
            if terms and hit.text else hit.summary for hit in hits]


__all__ = ["Catalog", "CatalogError", "Interrupted", "QueryError", "SearchRequest", "request"]
