"""Operations on a catalog. The CLI and the TUI both call these and get dataclasses back.

Catalog coordinates: it checks what users typed (catalog/rules.py), opens one transaction of
the store per operation, and calls the modules that know each job (importer, changes, merges,
annotations, export, doctor). It holds no SQL and no connection. Exports and annotations
files are catalog/exchange.py's, mixed into Catalog.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from time import monotonic

from catalog import attaching, changes, rules
from catalog.searching import highlight, pages
from catalog.errors import CatalogError, Interrupted
from catalog.exchange import Exchange
from catalog.searching.lookup import as_one_query, resolve_key, understood
from catalog.searching.query import RELEVANCE, Clause, Filter, Query, QueryError, Sort, parse
from catalog.searching.request import SearchRequest, request
from catalog.resources import seeds_dir
from catalog.results import (
    Added, AddedAcronym, AttachmentView, AuthorCount, Edit, Enriched, Facets, FirstPage, ImportReport,
    Linked, LinkedPaper, Members, MissingWords, NoteView, PaperDetail, PaperState, PaperSummary, PdfFetched,
    RelatedPaper, SavedQuery, SavedSearchChanged, SearchHit,
    SplitResult, Stats, Suggestion, TagCount, TopicCount, TopicGroup, TriageCount, TriageOrder,
)
from catalog.store import Store, first_use, open_store

Notify = Callable[[str], None]
Stop = Callable[[], bool]
# After an import that leaves ranked lists of frequent words searches cannot read, without
# the background refresher: ranked again here for at most this share of the import's time,
# and at least RANKED_LISTS_FLOOR seconds.
RANKED_LISTS_SHARE = 0.12
RANKED_LISTS_FLOOR = 5.0


class Catalog(Exchange):
    """One catalog. Holds no connection or session; every method is one unit of work with its
    own transaction."""

    def __init__(self, store: Store):
        self.store = store
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
            report.files += self.import_pdfs(pdfs, link=link, progress=(lambda _: progress(1)) if progress else None)
        if report.new or report.merged:
            from catalog.discover import related

            self._refresh_ranked_lists(background, monotonic() - start, ranking)
            related.refresh_after_import(self.store, background=background)  # derived data
        return report

    @staticmethod
    def fetch_ahead(texts: Sequence[str]) -> list[str]:
        """Fetch what these identifiers name into the cache, touching no catalog: a command
        that would make a new catalog fails (offline: CatalogError) before making it. The
        errors of those that failed, one line each."""
        from catalog.importing import web

        return web.fetch_ahead(texts)

    def add_identifiers(self, texts: Sequence[str], *,
                        on_each: Callable[[Added], None] = lambda added: None) -> list[Added]:
        """Fetch the papers these DOIs, arXiv ids and links name (catalog/fetching/) and add
        them, or fill the empty fields of the papers already here; `on_each` hears of each as
        it is done (arXiv asks for three seconds between requests)."""
        from catalog.importing import web

        texts = [t for t in texts if t.strip()]
        if not texts:
            raise CatalogError("nothing to add: give a DOI, an arXiv id or a link")
        added = web.add(self.store, texts, on_each)
        if any(a.outcome in ("new", "updated") for a in added):
            from catalog.discover import related

            related.refresh_after_import(self.store, background=True)
        return added

    def enrich(self, query: str = "", *, dry_run: bool = False, updates: bool = False,
               on_each: Callable[[Enriched], None] = lambda e: None) -> list[Enriched]:
        """Look up the papers `query` selects that lack a title, authors or identifiers, and
        fill in what the web knows of them (catalog/importing/enrich.py says when a candidate
        is taken); `dry_run`: say what would change, change nothing. `updates`: look up the
        preprints instead (an arXiv id, no DOI) for the DOI of their published version."""
        from catalog.importing import enrich

        # the papers `catalog list QUERY` lists (a key, DOI or arXiv id alone names its paper)
        keys = [p.key for p in self.search(query, limit=10**9, snippets=False)] if query.strip() else None
        wanted = enrich.unpublished if updates else enrich.lacking
        wanting = [p for p in self.export_papers(keys=keys) if wanted(p)]
        done = enrich.enrich(self.store, wanting, dry_run=dry_run, updates=updates, on_each=on_each)
        if any(e.outcome == "filled" for e in done):
            from catalog.discover import related

            related.refresh_after_import(self.store, background=True)
        return done

    def fetch_pdfs(self, query: str = "", *,
                   on_each: Callable[[PdfFetched], None] = lambda p: None) -> list[PdfFetched]:
        """Download the PDF of each paper `query` selects that has none attached, from the link
        a service gave (paper_link) or arXiv's for its arXiv id, and attach it (a copy in the
        folder of files). Open-access links only: a publisher's page that is not a PDF fails."""
        import tempfile

        from catalog.fetching import settings
        from catalog.fetching.http import Client, Offline

        keys = [p.key for p in self.search(query, limit=10**9, snippets=False)] if query.strip() else None
        client, done = None, []
        for paper in self.export_papers(keys=keys):
            detail = self.get(paper.key)
            if any(a.name.lower().endswith(".pdf") for a in detail.attachments):
                done.append(PdfFetched(paper.key, "had one"))
            elif not (url := detail.pdf_url or (f"https://arxiv.org/pdf/{detail.arxiv_id}" if detail.arxiv_id else None)):
                done.append(PdfFetched(paper.key, "no link"))
            else:
                client = client or Client(settings.from_environment())
                try:
                    answer = client.download(url)
                    if answer.status != 200 or not answer.body.startswith(b"%PDF"):
                        raise CatalogError(f"{url} gave no PDF ({answer.status}, {answer.content_type or 'no type'})")
                    with tempfile.TemporaryDirectory() as folder:
                        path = Path(folder) / f"{paper.key}.pdf"
                        path.write_bytes(answer.body)
                        attachment, _ = self.attach_file(paper.key, path, link=False)
                    done.append(PdfFetched(paper.key, "attached", url, attachment.location))
                except Offline:
                    if not any(d.outcome == "attached" for d in done):
                        raise
                    done.append(PdfFetched(paper.key, "failed", url, error="offline; the rest were not tried"))
                    on_each(done[-1])
                    break
                except CatalogError as exc:
                    done.append(PdfFetched(paper.key, "failed", url, error=str(exc)))
            on_each(done[-1])
        return done

    def linked(self, key: str, *, citing: bool = False) -> Linked:
        """The papers paper `key` cites (or, `citing`, those citing it), from Semantic Scholar
        (references: else Crossref's deposited list), each with the key of the catalog's
        paper when it holds it."""
        from catalog.fetching import citations, settings
        from catalog.fetching.http import Client

        detail = self.get(key)
        key = detail.summary.key
        if not (detail.doi or detail.arxiv_id):
            raise CatalogError(f"paper {key} has no DOI or arXiv id to look it up by "
                               f"(catalog enrich {key} may find one)")
        client = Client(settings.from_environment())
        ask = citations.citations if citing else citations.references
        found, service = ask(client, detail.doi, detail.arxiv_id)
        with self.store.read() as tx:
            papers = tuple(LinkedPaper(_key_for(tx, p.doi, p.arxiv_id), p.title, p.authors, p.year, p.venue,
                                       p.doi, p.arxiv_id, p.abstract) for p in found)
        return Linked(key, citing, service, papers)

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
        return dataclasses.replace(detail, attachments=tuple(self._located(a) for a in detail.attachments))

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

    # --- attached files (catalog/attaching.py: the folder, names, copies) ---------------------

    def attach_file(self, key: str, path: Path, *, link: bool | None = None) -> tuple[AttachmentView, bool]:
        """Attach the file at `path` to paper `key`: copied into the catalog's folder of files,
        or with `link` left where it is (None: $CATALOG_ATTACH). (the attachment, whether it
        is new): the same bytes attached to this paper before are that attachment again.
        What web downloads and PDF imports call too."""
        path = attaching.readable(path)
        link = attaching.links_by_default() if link is None else link
        into = None if link else attaching.folder(self.store)
        sha256, size = attaching.fingerprint(path)
        with self.store.read() as tx:
            pid = resolve_key(tx, key)
            detail = tx.papers.detail(pid)
            if (known := tx.edits.attachment_with(pid, sha256)) is not None:
                return self._located(next(a for a in detail.attachments if a.id == known)), False
        stored = str(path) if link else attaching.copy_in(path, into, attaching.file_name(detail, path.suffix),
                                                          sha256=sha256)
        try:
            with self.store.write() as tx:
                pid = resolve_key(tx, key)
                made = tx.edits.add_attachment(pid, stored="linked" if link else "managed", path=stored,
                                               name=path.name, sha256=sha256, size=size, added_at=rules.now())
                tx.edits.touch(pid)
                views = tx.papers.attachments_of(pid)
        except BaseException:
            if not link:
                attaching.remove(into / stored)  # the row never came: neither does the copy
            raise
        if made is None:  # attached meanwhile by another process: its copy stays, ours goes
            if not link:
                attaching.remove(into / stored)
            return self._located(next(a for a in views if a.sha256 == sha256)), False
        return self._located(next(a for a in views if a.id == made)), True

    def read_texts(self, progress: Callable[[AttachmentView, str], None] | None = None) -> list[tuple[AttachmentView, str]]:
        """Read the text of every attached PDF not read yet, page by page, into the search index:
        (attachment, what reading gave: 'text', 'no text', 'encrypted', 'unreadable'). Each file
        is stored in a transaction of its own, so a run cut short keeps what it finished and the
        next run reads the rest. A file not on this machine is left for later. Loads pypdfium2."""
        from catalog import pdftext

        with self.store.read() as tx:
            waiting = tx.imports.unread_attachments()
        done = []
        for attachment in waiting:
            attachment = self._located(attachment)
            if not attachment.present:
                continue
            text = pdftext.read(Path(attachment.location))
            with self.store.write() as tx:
                tx.imports.set_attachment_text(attachment.id, text.state, text.pages if text.state == "text" else [])
            if text.state in ("text", "no text"):
                self._note_marks(attachment)
            done.append((attachment, text.state))
            if progress is not None:
                progress(attachment, text.state)
        return done

    def import_pdfs(self, files: Sequence[Path], *, link: bool | None = None,
                    progress: Callable[[object], None] | None = None) -> list:
        """Bring in PDFs: each matched to a paper already here (by its DOI or arXiv id, else
        its title and abstract) and attached to it, or made a new paper from its own text and
        attached to that (catalog/importing/pdfs.py); a FileReport each. Their text is indexed
        as they are attached."""
        from catalog.importing import pdfs

        def attach(key: str, path: Path, text) -> AttachmentView:
            attachment, _ = self.attach_file(key, path, link=link)
            with self.store.write() as tx:
                tx.imports.set_attachment_text(attachment.id, text.state, text.pages)
            self._note_marks(attachment)
            return attachment

        return pdfs.import_pdfs(self.store, files, attach, progress)

    def read_pdf_notes(self, key: str | None = None) -> int:
        """Add the highlights, underlines and comments made in attached PDFs (of paper `key`, or
        of every paper) to their papers' notes (catalog/pdfannots.py), each once: a mark whose
        note the paper has is not added again, and no note is ever changed or removed. How
        many notes were added. What attaching and importing do for each PDF; run again after
        annotating a PDF in a reader. Loads pypdfium2."""
        with self.store.read() as tx:
            found = ([(key, a) for a in tx.papers.attachments_of(resolve_key(tx, key))] if key is not None
                     else tx.papers.every_attachment())
        return sum(self._note_marks(self._located(a), key=paper) for paper, a in found)

    def _note_marks(self, attachment: AttachmentView, *, key: str | None = None) -> int:
        """One PDF's marks as notes of its paper, those not noted yet; how many were added."""
        from catalog import pdfannots

        attachment = attachment if attachment.location else self._located(attachment)
        if not (attachment.is_pdf and attachment.present):
            return 0
        marks = pdfannots.read(Path(attachment.location))
        if not marks:
            return 0
        with self.store.write() as tx:
            pid = tx.imports.paper_of_attachment(attachment.id)
            if pid is None:  # detached meanwhile
                return 0
            have = set(tx.edits.note_bodies(pid))
            new = [body for body in dict.fromkeys(rules.note_body(m.note()) for m in marks) if body not in have]
            for body in new:
                tx.edits.add_note(pid, body, rules.now())
            if new:
                tx.edits.touch(pid)
        return len(new)

    def pages_for(self, key: str, query: SearchRequest | str, limit: int = pages.PAGES_PER_PAPER
                  ) -> list[tuple[int, str]]:
        """(page, snippet) of the best pages of paper `key`'s files holding a search's words
        (the TUI's reading pane); [] for a search without words."""
        try:
            asked = _asked(query)
        except QueryError:
            return []
        if not asked.query.has_text:
            return []
        with self.store.read() as tx:
            found = tx.search.pages(asked.query, limit, resolve_key(tx, key))
            terms = highlight.terms_of(asked.query, tx.search.acronyms_for(asked.query)) if found else None
        return [(hit.page, highlight.snippet(" ".join(hit.text.split()), terms)) for hit in found]

    def attachments(self, key: str) -> tuple[AttachmentView, ...]:
        """The paper's attachments, each with where it is and whether a file is there."""
        with self.store.read() as tx:
            found = tx.papers.attachments_of(resolve_key(tx, key))
        return tuple(self._located(a) for a in found)

    def detach(self, key: str, number: int, *, delete_file: bool = True) -> AttachmentView:
        """Detach attachment `number` (as `attachments` numbers them) from paper `key`; a copy in
        the folder of files is deleted after (with `delete_file`), a linked file never."""
        with self.store.write() as tx:
            pid = resolve_key(tx, key)
            found = tx.papers.attachments_of(pid)
            if not 1 <= number <= len(found):
                have = f"it has {len(found)}" if found else "it has none"
                raise CatalogError(f"paper {key} has no attached file {number} ({have})")
            gone = self._located(found[number - 1])
            tx.edits.remove_attachment(gone.id)
            tx.edits.touch(pid)
        if delete_file and gone.stored == "managed":
            attaching.remove(Path(gone.location))
        return gone

    def file_to_open(self, key: str) -> AttachmentView | None:
        """The file `catalog open` and `o` open: the first PDF that is there, else the first
        other file that is there; None when the paper has no file on this machine."""
        present = [a for a in self.attachments(key) if a.present]
        return next((a for a in present if a.is_pdf), present[0] if present else None)

    def missing_files(self) -> list[tuple[str, AttachmentView]]:
        """(paper key, attachment) of every attached file that is not where the catalog keeps it."""
        return attaching.missing(self.store)

    def rename_files(self, key: str | None = None) -> list[tuple[str, str]]:
        """Give the copies in the folder of files (of paper `key`, or of every paper) the names
        their papers' details make now (a title or authors that came later, your own title);
        (old name, new name) of each renamed. A copy missing or a name taken is left alone."""
        with self.store.read() as tx:
            found = ([(key, a) for a in tx.papers.attachments_of(resolve_key(tx, key))] if key is not None
                     else tx.papers.every_attachment())
            found = [(paper, a) for paper, a in found if a.stored == "managed"]
            details = {paper: tx.papers.detail(resolve_key(tx, paper)) for paper in {p for p, _ in found}}
        if not found:
            return []
        into = attaching.folder(self.store)
        renamed = []
        for paper, a in found:
            wanted = attaching.file_name(details[paper], Path(a.path).suffix)
            if Path(a.path).stem.removesuffix(")").rsplit(" (", 1)[0] == Path(wanted).stem:
                continue  # its name already (maybe with a number a taken name got)
            try:
                fresh = attaching.move_within(into, a.path, wanted)
            except CatalogError:
                continue
            with self.store.write() as tx:
                tx.edits.move_attachment(a.id, fresh)
            renamed.append((a.path, fresh))
        return renamed

    def find_files(self, folder: Path) -> list[tuple[str, AttachmentView, Path]]:
        """Find missing attached files in `folder` (and the folders inside it) by their bytes
        (sha256, files of the right size only): a linked file is linked where it was found, a
        copy that left the folder of files is copied back. (paper key, attachment, where it
        was found) of each found."""
        missing = self.missing_files()
        sizes = {a.size for _, a in missing}
        wanted = {a.sha256: (key, a) for key, a in missing}
        found = []
        for path in sorted(Path(folder).expanduser().rglob("*")):
            if not wanted:
                break
            try:
                if not path.is_file() or path.stat().st_size not in sizes:
                    continue
                sha, _ = attaching.fingerprint(path)
            except (OSError, CatalogError):
                continue
            if sha not in wanted:
                continue
            key, attachment = wanted.pop(sha)
            if attachment.stored == "managed":
                into = attaching.folder(self.store)
                stored = attaching.copy_in(path, into, Path(attachment.path).name)
            else:
                stored = str(path.absolute())
            with self.store.write() as tx:
                tx.edits.move_attachment(attachment.id, stored)
            found.append((key, attachment, path))
        return found

    def _located(self, attachment: AttachmentView) -> AttachmentView:
        return attaching.located(self.store, attachment)

    # --- user data: each change returns an Edit, which `undo` takes back -----------------

    def tag(self, keys: Sequence[str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> Edit:
        add = [rules.tag_name(t) for t in add]
        remove = [rules.tag_name(t) for t in remove]
        with self.store.write() as tx:
            ids = [resolve_key(tx, k) for k in keys]
            done = [changes.change_tags(tx, pid, add, remove) for pid in ids]
            tx.edits.drop_unused_tags()
            return _edit(tx, ids, done)

    def set_status(self, keys: Sequence[str], status: str) -> Edit:
        return self._set_field(keys, "status", rules.status(status))

    def set_rating(self, keys: Sequence[str], rating: int | None) -> Edit:
        return self._set_field(keys, "rating", rules.rating(rating))

    def set_title(self, key: str, title: str | None) -> Edit:
        edit = self._set_field([key], "user_title", rules.user_line(title or "") or None)
        self.rename_files(key)  # its copies' names follow the title shown
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
                found = Facets(venues=tx.papers.venue_counts(), tags=tx.papers.tags_with_children(),
                               statuses=tx.papers.status_counts(total), ratings=tx.papers.rating_counts(),
                               saved=saved, total=total)
            else:
                found = tx.search.facets(parsed, partial=asked.partial if partial is None else partial)
        return dataclasses.replace(found, saved=saved, query=asked.text, catalog_total=total, tag_names=names)

    # --- discovery: papers like one, recommendations, topics (catalog/discover/related.py) -----------

    def similar(self, key: str, limit: int = 10) -> list[RelatedPaper]:
        """The papers most like paper `key`, best first, each with the terms both share."""
        from catalog.discover import related

        with self.store.read() as tx:
            pid = resolve_key(tx, key)
        return related.similar(self.store, pid, limit)

    def recommend(self, tag: str | None = None, query: str = "", limit: int = 20) -> list[RelatedPaper]:
        """Papers `query` selects (all for ""), ranked by likeness to those tagged `tag` (or,
        without a tag, rated 4-5 or read); never one it learns from, nor one read or skipped.
        CatalogError when it cannot: TooFewPositives (catalog.errors) when fewer than 2 papers
        are there to learn from."""
        from catalog.discover import related

        return related.recommend(self.store, rules.tag_name(tag) if tag else None, query, limit)

    def topics(self, query: str = "") -> list[TopicGroup]:
        """The papers `query` selects (all for "") in labelled topics, largest first; stored in
        the `topic` table (docs/schema.md), replacing that list's earlier topics."""
        from catalog.discover import related

        return related.topics(self.store, query)

    def stored_topics(self) -> tuple[tuple[TopicCount, ...], bool]:
        """The whole catalog's stored topics, and whether papers came or went since (or there
        are none): then `topics()` makes them again."""
        from catalog.discover import related

        return related.stored_topics(self.store)

    def topic_papers(self, number: int) -> list[PaperSummary]:
        """The papers of the whole catalog's stored topic `number`, closest to its centre first."""
        from catalog.discover import related

        return related.topic_papers(self.store, number)

    def discovery_status(self):
        """The discovery cache (a CacheStatus: missing, stale or fresh), building nothing."""
        from catalog.discover import related

        return related.status(self.store)

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

    # --- backups and copies (exports and annotations: catalog/exchange.py) --------------------

    def backup(self, target: Path, *, force: bool = False) -> Path:
        """A consistent copy, safe while the TUI has the catalog open (into a folder: under
        the catalog's name). Written as catalog/export/filewriter.py writes any file: never over
        this catalog or anything but a regular file, over an existing file only with `force`."""
        from catalog.errors import StoreError
        from catalog.export import filewriter as files

        target = Path(target)
        if target.is_dir():
            target = target / (self.path.name if self.path else "catalog.db")
        try:
            with files.replacing(target, force=force, protected=self._own_files()) as temporary:
                self.store.backup(temporary)
        except StoreError as exc:
            raise CatalogError(f"cannot back up to {target}: {exc}") from None
        return target

    def copy_to(self, location, *, notify: Notify = lambda m: None) -> dict[str, int]:
        """Copy the whole catalog (papers, tags, notes, everyone's marks, saved searches) into
        a new catalog at `location` (a file or a postgresql:// URL; created, or an empty
        database); rows copied per table. Keys stay the same."""
        from catalog.store.copying import copy_catalog

        target = open_store(location, notify=notify)
        try:
            if target.location == self.store.location:
                raise CatalogError(f"{target.location} is this catalog; copy it somewhere else")
            counts = copy_catalog(self.store, target)
            # What an import leaves behind: the backend's upkeep after a large load, and the
            # discovery cache built in the background (catalog/discover/refresher.py).
            target.imported(counts.get("paper", 0))
            from catalog.discover import related

            related.refresh_after_import(target, background=True)
            return counts
        finally:
            target.close()

    # --- SQL, schema, health ------------------------------------------------------------------

    def run_sql(self, statement: str, *, timeout: float | None = None,
                cancelled: Stop | None = None) -> tuple[list[str], list[tuple]]:
        """Run one read-only statement; writes, ATTACH and extensions are refused. It stops
        after `timeout` seconds (CatalogError), or once `cancelled()` is true (Interrupted). A
        server stops it at `timeout` by itself too (statement_timeout)."""
        deadline = None if not timeout else monotonic() + timeout
        late = lambda: deadline is not None and monotonic() > deadline  # noqa: E731
        try:
            return self.store.run_sql(statement, stop=lambda: late() or bool(cancelled and cancelled()),
                                      timeout=timeout)
        except Interrupted:
            if cancelled and cancelled():
                raise
            raise CatalogError(f"stopped after {timeout:g} s (--timeout SECONDS allows longer)") from None

    def schema_revision(self) -> str | None:
        return self.store.schema_revision()

    # --- sharing: who may use a catalog on a server (docs/sharing.md) ---------------------------

    def members(self) -> Members:
        return self._sharing().members()

    def add_member(self, role: str) -> bool:
        """Let the database role `role` use this catalog (the owner's to do); False when it could."""
        return self._sharing().add(role)

    def remove_member(self, role: str) -> bool:
        """Take `role`'s access away; its marks and notes stay. False when it had none."""
        return self._sharing().remove(role)

    def _sharing(self):
        if self.store.sharing is None:
            raise CatalogError(f"{self.store.location} is a catalog file, one person's: a catalog is shared on a "
                               "PostgreSQL server (docs/sharing.md)")
        return self.store.sharing

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


def _key_for(tx, doi: str | None, arxiv_id: str | None) -> str | None:
    """The key of the catalog's paper with this DOI or arXiv id, if it has one."""
    ids = (tx.papers.ids_with_doi(doi) if doi else []) or (tx.papers.ids_with_arxiv_id(arxiv_id) if arxiv_id else [])
    return tx.papers.key_of(ids[0]) if ids else None
