"""The storage seam: what a backend gives the rest of the program, declared by role.

A `Store` is one catalog (a SQLite file, or a PostgreSQL database). It hands out transactions:
`read()` (one consistent snapshot) and `write()` (holds the write lock from its first
statement). A `Transaction` is a set of role objects, each with one job:

    tx.papers     reading papers: keys, summaries, details, export records, overviews
    tx.edits      what users write: tags, marks, titles, notes, saved searches, annotations
    tx.imports    sources, new papers, deduplication's lookups, merges, acronyms, derived text
    tx.search     the query language's answers: pages, counts, facets, the index's words
    tx.discovery  texts for the discovery model, stored topics, the papers it learns from
    tx.upkeep     doctor's checks and repairs
    tx.lists      the ranked lists of frequent words (catalog/store/lists/)

Each role is an abstract class below; the shared modules (papers.py, edits.py, imports.py,
discovery.py, ranked.py) implement them in SQL both backends run, and a backend composes its
transaction from those and its own (sqlite/, postgres/). Role objects return the dataclasses
of catalog/results.py or the named results of rows.py, read by column name. Nothing outside this
package sees a connection, a cursor or SQL.

Modelled on harlequin's adapters (HarlequinAdapter / Connection / Cursor): a small abstract
seam with one implementation per backend, and tests parametrized over backends.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path

from catalog.store.rows import DanglingRow, ListProblems, MergeRecord, SchemaObject


# --- the roles of a transaction -------------------------------------------------------------

class Role(ABC):
    """One role of a transaction: its connection, and `user`, whose reading status and rating
    it reads and writes."""

    def __init__(self, conn, user: str):
        self.conn = conn
        self.user = user


class Papers(Role):
    """Reading papers: by key, as summaries, details and export records, and overviews."""

    @abstractmethod
    def paper_id(self, key: str) -> int | None: ...

    @abstractmethod
    def keys_starting(self, prefix: str, limit: int) -> list[tuple[int, str]]:
        """(id, key) of the papers whose key starts with `prefix`, in key order."""

    @abstractmethod
    def ids_with_doi(self, doi: str) -> list[int]: ...

    @abstractmethod
    def ids_with_arxiv_id(self, arxiv_id: str) -> list[int]: ...

    @abstractmethod
    def all_keys(self) -> list[str]: ...

    @abstractmethod
    def key_of(self, paper_id: int) -> str: ...

    @abstractmethod
    def keys_of(self, ids: Sequence[int]) -> dict[int, str]:
        """Paper id -> key, for the ids that still exist."""

    @abstractmethod
    def summaries(self, ids: Sequence[int]) -> list:
        """PaperSummary of each of these papers, in the order of `ids`."""

    @abstractmethod
    def detail(self, paper_id: int): ...

    @abstractmethod
    def notes_of(self, paper_id: int) -> tuple: ...

    @abstractmethod
    def attachments_of(self, paper_id: int) -> tuple:
        """The paper's AttachmentViews, numbered in the order attached."""

    @abstractmethod
    def with_files(self, ids: Sequence[int]) -> set[int]:
        """Those of these papers that have attached files."""

    @abstractmethod
    def papers_with_file(self, sha256: str) -> list[int]:
        """Ids of the papers a file with these bytes is attached to."""

    @abstractmethod
    def every_attachment(self) -> list[tuple[str, object]]:
        """(paper key, AttachmentView) of every attachment (doctor's check of the files)."""

    @abstractmethod
    def paper_state(self, paper_id: int): ...

    @abstractmethod
    def export_papers(self, ids: Sequence[int]) -> list: ...

    @abstractmethod
    def author_counts(self, ids: Sequence[int] | None, limit: int) -> list:
        """AuthorCount of the people with most papers, among these papers (all for None)."""

    @abstractmethod
    def ids_with_citekey(self, key: str) -> list[int]:
        """Papers cited by this key (without case): their own, or a key a record of theirs had."""

    @abstractmethod
    def kept_records(self, ids: Sequence[int]) -> dict[int, list]:
        """RecordFields of each of these papers' imported records, oldest first, by paper id."""

    @abstractmethod
    def paper_count(self) -> int: ...

    @abstractmethod
    def tag_counts(self) -> list: ...

    @abstractmethod
    def tags_with_children(self, within: tuple[str, list] | None = None) -> tuple: ...

    @abstractmethod
    def venue_counts(self) -> tuple[tuple[str, int | None, int], ...]: ...

    @abstractmethod
    def status_counts(self, total: int) -> tuple[tuple[str, int], ...]: ...

    @abstractmethod
    def rating_counts(self) -> tuple[tuple[int, int], ...]: ...

    @abstractmethod
    def row_counts(self) -> dict[str, int]: ...


class Edits(Role):
    """What users write: tags, status, rating and their own title, notes, saved searches; and
    the annotations file's view of them."""

    @abstractmethod
    def tags_of(self, paper_id: int) -> list[str]: ...

    @abstractmethod
    def add_tag(self, paper_id: int, name: str) -> bool:
        """Tag the paper; whether it was not tagged so before."""

    @abstractmethod
    def remove_tag(self, paper_id: int, name: str) -> None: ...

    @abstractmethod
    def drop_unused_tags(self) -> None: ...

    @abstractmethod
    def user_field(self, paper_id: int, field: str): ...

    @abstractmethod
    def set_user_field(self, paper_id: int, field: str, value) -> None: ...

    @abstractmethod
    def touch(self, paper_id: int) -> None: ...

    @abstractmethod
    def add_note(self, paper_id: int, body: str, created: datetime,
                 updated: datetime | None = None, *, author: str | None = None) -> int: ...

    @abstractmethod
    def note_body(self, note_id: int) -> str | None: ...

    @abstractmethod
    def set_note(self, note_id: int, body: str) -> None: ...

    @abstractmethod
    def delete_note(self, note_id: int) -> None: ...

    @abstractmethod
    def note_bodies(self, paper_id: int) -> list[str]: ...

    @abstractmethod
    def add_attachment(self, paper_id: int, *, stored: str, path: str, name: str, sha256: str, size: int,
                       added_at: datetime) -> int | None:
        """Attach a file; None when the paper has these bytes (`sha256`) attached already."""

    @abstractmethod
    def attachment_with(self, paper_id: int, sha256: str) -> int | None:
        """The id of the paper's attachment with these bytes, if any."""

    @abstractmethod
    def remove_attachment(self, attachment_id: int) -> None:
        """Detach (CatalogError for another member's on a server: row-level security)."""

    @abstractmethod
    def move_attachment(self, attachment_id: int, path: str) -> None:
        """The file is now at `path` (renamed in the folder of files, or found elsewhere)."""

    @abstractmethod
    def saved_searches(self) -> tuple: ...

    @abstractmethod
    def saved_query(self, name: str) -> str | None: ...

    @abstractmethod
    def save_query(self, name: str, query: str | None) -> None: ...

    @abstractmethod
    def added_acronyms(self) -> list:
        """The AddedAcronyms users added, by short form."""

    @abstractmethod
    def add_acronym(self, short: str, long_key: str, long: str) -> bool:
        """Whether it is new (adding it again changes nothing)."""

    @abstractmethod
    def remove_acronyms(self, short: str, long_key: str | None = None) -> int:
        """Remove a short form's added long forms (all, or the one of `long_key`); how many."""

    @abstractmethod
    def annotated_papers(self) -> list[dict]: ...

    @abstractmethod
    def paper_with(self, column: str, value) -> int | None: ...

    @abstractmethod
    def fingerprint_of(self, paper_id: int) -> str: ...


class Imports(Role):
    """Importing: sources, new papers and their keys, provenance, deduplication's lookups,
    merges and splits, the acronyms abstracts define, and the text derived from abstracts."""

    @abstractmethod
    def source_with(self, sha256: str): ...

    @abstractmethod
    def papers_from(self, source_id: int) -> int: ...

    @abstractmethod
    def add_links(self, links: Iterable[tuple[int, str, str, int]]) -> None:
        """(paper id, relation, url, source id) of each link a service gave (paper_link)."""

    @abstractmethod
    def add_notices(self, notices: Iterable[tuple[int, str, str, str, str | None, int]]) -> None:
        """(paper id, kind, notice DOI, label, date, source id) of each notice (paper_notice)."""

    @abstractmethod
    def paper_ids_from(self, source_id: int) -> list[int]:
        """The papers a source gave, in the order they stood in it."""

    @abstractmethod
    def add_source(self, *, path: str, sha256: str, venue: str | None, year: int | None,
                   format: str, imported_at: datetime, warnings: str) -> int: ...

    @abstractmethod
    def max_paper_id(self) -> int: ...

    @abstractmethod
    def insert_papers(self, papers: Sequence[tuple], keys: Sequence[str], stamp) -> list[int]: ...

    @abstractmethod
    def bulk_load(self) -> AbstractContextManager:
        """Within this write transaction, make many inserts into `paper` cheap."""

    @abstractmethod
    def index_papers_from(self, first_id: int) -> None:
        """Index the papers bulk_load inserted, from `first_id` on."""

    def ids_copied(self) -> None:
        """After rows arrived with their ids (copying.py): what the backend needs then."""

    @abstractmethod
    def existing_keys(self, keys: Iterable[str]) -> set[str]: ...

    @abstractmethod
    def fingerprint_taken(self, fingerprint: str, *, other_than: int | None = None) -> bool: ...

    @abstractmethod
    def add_provenance(self, places: Iterable[tuple[int, int, int]]) -> None: ...

    @abstractmethod
    def citekeys_taken(self, keys: Iterable[str]) -> set[str]:
        """Those of these cite keys some paper has, in lower case."""

    @abstractmethod
    def add_citekeys(self, rows: Iterable[tuple[int, str, bool]]) -> None:
        """(paper id, cite key, whether the catalog made it) of papers that have none."""

    @abstractmethod
    def set_citekey(self, paper_id: int, key: str, generated: bool) -> None:
        """Give a paper this cite key (its old one, if any, is replaced)."""

    @abstractmethod
    def citekey_of(self, paper_id: int) -> str | None: ...

    @abstractmethod
    def setting(self, name: str) -> str | None:
        """A catalog_setting's value (`citekey_pattern`), or None."""

    @abstractmethod
    def set_setting(self, name: str, value: str | None) -> None:
        """Set a catalog_setting (None: remove it)."""

    @abstractmethod
    def settings_starting(self, prefix: str) -> list[tuple[str, str]]:
        """(name, value) of the settings whose name starts with `prefix`, by name."""

    @abstractmethod
    def set_authors(self, authors: Iterable[tuple[int, str | None]]) -> None:
        """(paper id, its authors string) of papers whose authors are new: their people rows."""

    @abstractmethod
    def add_kept_records(self, rows: Iterable[tuple]) -> None:
        """(source id, position, paper id, entry type, cite key, fields JSON) of each record."""

    @abstractmethod
    def papers_with_values(self, column: str, values: Iterable[str]) -> list[tuple[str, int]]: ...

    @abstractmethod
    def paper_facts(self, ids: Iterable[int]) -> dict[int, object]: ...

    @abstractmethod
    def paper_columns(self, paper_id: int, columns: Sequence[str]) -> dict[str, object]: ...

    @abstractmethod
    def missing_fields(self, ids: Iterable[int], fields: Sequence[str]) -> list[dict[str, object]]: ...

    @abstractmethod
    def update_paper(self, paper_id: int, changes: dict[str, object]) -> None: ...

    @abstractmethod
    def add_merges(self, merges: Iterable[tuple]) -> None: ...

    @abstractmethod
    def merges_into(self, paper_id: int) -> list[MergeRecord]: ...

    @abstractmethod
    def set_merge(self, merge_id: int, *, record: str | None = None, filled: str | None = None) -> None: ...

    @abstractmethod
    def delete_merges(self, ids: Iterable[int]) -> None: ...

    @abstractmethod
    def places_of(self, paper_id: int) -> list[tuple[int, int]]: ...

    @abstractmethod
    def move_record(self, source_id: int, position: int, *, from_paper: int, to_paper: int) -> None: ...

    @abstractmethod
    def add_acronyms(self, pairs: Sequence[tuple[str, str, str, int]]) -> None: ...

    @abstractmethod
    def mark_ordinary_words(self, words: Sequence[str]) -> None: ...

    @abstractmethod
    def paper_of_attachment(self, attachment_id: int) -> int | None: ...

    @abstractmethod
    def unread_attachments(self) -> list:
        """AttachmentViews of the attached PDFs whose text was not read yet, oldest first."""

    @abstractmethod
    def set_attachment_text(self, attachment_id: int, state: str, pages: Sequence[str]) -> None:
        """An attachment's text, page by page (replacing any it had), and what reading it gave."""

    @abstractmethod
    def papers_to_rederive(self) -> list[int]:
        """Ids of papers whose abstract was edited by hand since their text was derived."""

    @abstractmethod
    def rederived(self, ids: Iterable[int]) -> None: ...

    @abstractmethod
    def derived_rows(self, ids: Iterable[int] | None = None) -> list: ...

    @abstractmethod
    def set_derived(self, paper_id: int, *, abstract_text: str, headline: str, search_extra: str,
                    fingerprint: str) -> None: ...


class Search(Role):
    """The query language's answers (catalog/searching/query.py's Query in, results out)."""

    @abstractmethod
    def page(self, query, *, limit: int = 50, offset: int = 0, with_text: bool = False,
             partial: bool = True, sort=None) -> list:
        """The SearchHits of the page of papers `query` finds, best first (or in `sort`'s
        order); limit -1: all."""

    @abstractmethod
    def ids(self, query) -> list[int]:
        """The ids of every paper holding all of `query`'s words, in search order."""

    @abstractmethod
    def count(self, query, *, partial: bool = False) -> int: ...

    @abstractmethod
    def facets(self, query, *, partial: bool = False):
        """Facets of the papers `query` finds (its saved searches left to the caller)."""

    @abstractmethod
    def acronyms_for(self, query) -> dict[str, list[str]]: ...

    @abstractmethod
    def word_papers(self, query) -> list[tuple[str, int]]:
        """Each word of a query of several words, as typed, and how many papers hold it in
        any form (counted up to a bound); [] for one word."""

    @abstractmethod
    def titled(self, title: str, limit: int = 20) -> list:
        """Rows (imports.py's FACT_COLUMNS) of papers whose real title holds `title`."""

    @abstractmethod
    def papers_with_word(self, word: str, at_most: int, *, prefix: bool = False) -> int: ...

    @abstractmethod
    def pages(self, query, limit: int, paper_id: int | None = None) -> list:
        """The PageHits (rows.py) of attached files' pages holding `query`'s words (its
        filters are the caller's), best first, of one paper's files with `paper_id`; [] for a
        query without words."""

    @abstractmethod
    def vocabulary(self) -> Iterator[tuple[str, int]]: ...

    @abstractmethod
    def vocabulary_stamp(self) -> str: ...


class Discovery(Role):
    """What the discovery model reads and keeps: texts, stored topics, which papers it learns
    from and which it may not suggest."""

    @abstractmethod
    def text_version(self) -> tuple[int, int, str]: ...

    @abstractmethod
    def paper_texts(self, ids=None, *, after_id: int = 0) -> Iterator[tuple[int, str, str]]: ...

    @abstractmethod
    def save_topics(self, scope: str, records: Iterable) -> None: ...

    @abstractmethod
    def topic_counts(self, scope: str) -> list[tuple[int, str, int]]: ...

    @abstractmethod
    def topic_numbers(self, scope: str) -> dict[int, int]: ...

    @abstractmethod
    def topic_paper_ids(self, scope: str, number: int) -> list[int]: ...

    @abstractmethod
    def ids_with_status(self, statuses: Sequence[str]) -> set[int]: ...

    @abstractmethod
    def tagged_papers(self, tag: str) -> list[int]: ...

    @abstractmethod
    def liked_papers(self) -> list[int]: ...

    @abstractmethod
    def promising_papers(self) -> list[int]: ...


class Upkeep(Role):
    """What `catalog doctor` checks and repairs inside the database (catalog/doctor.py
    decides what to run and reports)."""

    @abstractmethod
    def integrity_problems(self) -> list[str]: ...

    @abstractmethod
    def reindex(self) -> None: ...

    @abstractmethod
    def missing_objects(self) -> list[SchemaObject]: ...

    @abstractmethod
    def create_objects(self, objects: Iterable[SchemaObject]) -> None: ...

    @abstractmethod
    def dangling_rows(self) -> list[DanglingRow]: ...

    @abstractmethod
    def delete_dangling(self) -> Counter: ...

    @abstractmethod
    def empty_sources(self) -> int: ...

    @abstractmethod
    def delete_empty_sources(self) -> int: ...

    @abstractmethod
    def stale_copies(self) -> dict[str, int]: ...

    @abstractmethod
    def recompute_copies(self) -> dict[str, int]: ...

    @abstractmethod
    def search_index_problem(self) -> str | None: ...

    @abstractmethod
    def rebuild_search_index(self) -> None: ...


class RankedLists(Role):
    """The ranked lists of frequent words in a transaction (catalog/store/lists/): pages
    served from them, and what doctor and the benchmarks ask of them. A list's key is the
    backend's own text of its words."""

    @abstractmethod
    def page(self, compiled, tier: str, limit: int, offset: int, with_text: bool, sort) -> list | None:
        """A tier's page (rows as the compiler's search_sql's), or None when no list proves
        it: then the search ranks every match."""

    @abstractmethod
    def may_serve(self, compiled, tier: str) -> bool:
        """Whether a list may serve this tier's page (then it is walked alone)."""

    @abstractmethod
    def to_keep(self) -> list:
        """The lists this transaction's searches ranked of their own, for the caller to keep
        after it (store.lists.keep): a read never writes them itself."""

    @abstractmethod
    def keys(self) -> list[str]:
        """Every list kept."""

    @abstractmethod
    def words(self) -> list[tuple[str, int]]:
        """(word, papers holding it) of the words that could have lists."""

    @abstractmethod
    def stale(self, keys: list[str] | None = None, *, rescored: bool = True) -> list[str]:
        """The lists (of `keys`, or all of words) a search would not read."""

    @abstractmethod
    def build(self, key: str) -> int:
        """Rank one list again from the full ranking; how many papers it matches."""

    @abstractmethod
    def several(self) -> tuple[list[str], list[str]]:
        """(the lists of several words kept, those a search would rank again)."""

    @abstractmethod
    def drop(self, keys: list[str]) -> None: ...

    @abstractmethod
    def problems(self) -> ListProblems:
        """What doctor reports."""

    @abstractmethod
    def repair(self) -> tuple[int, int]:
        """What doctor --fix does in its transaction (store.lists.refresh ranks the rest after
        it): (lists whose head differs ranked again, stale lists of several words dropped)."""

    @abstractmethod
    def note(self) -> str | None:
        """What doctor says about the lists kept, beside its checks (None: nothing)."""


class Transaction(ABC):
    """One transaction: its roles, and a way to stop its statements."""

    papers: Papers
    edits: Edits
    imports: Imports
    search: Search
    discovery: Discovery
    upkeep: Upkeep
    lists: RankedLists

    @abstractmethod
    def stoppable(self, stop: Callable[[], bool] | None) -> AbstractContextManager:
        """Statements inside stop (Interrupted) as soon as `stop()` is true."""


# --- the catalog as a whole -----------------------------------------------------------------

class RankedListUpkeep(ABC):
    """A store's ranked lists across transactions: ranking again those searches cannot read,
    and keeping those searches ranked."""

    @abstractmethod
    def refresh(self, *, budget: float | None, rescored: bool | None = None,
                progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
        """Rank again the lists searches cannot read (`rescored`, the default with a budget;
        else also those following changes) for at most `budget` seconds (None: all, the
        frequent words chosen again first): (built, still stale). Each list is ranked in a
        transaction of its own; one another writer holds up is tried again, and what is done
        stays done. `progress(done, of)` after each list."""

    @abstractmethod
    def behind(self) -> bool:
        """Whether refresh has work (cheap: what an import asks)."""

    @abstractmethod
    def left(self) -> int:
        """How many lists of words and prefixes searches cannot read now (at least 1 while the
        words of a catalog big enough are still to be chosen; 0 for a catalog too small to keep
        any). Cheap: a search asks, to say so."""

    @abstractmethod
    def keep(self, made: list) -> None:
        """Write the lists a read ranked (its tx.lists.to_keep()), in a short write that never
        waits for another writer: skipped when one holds the catalog."""


class Store(ABC):
    """One open catalog. Holds connections, never a transaction between calls."""

    #: How users name this catalog (a path or a URL, password hidden): messages show it.
    location: str
    #: The file, for a file backend; None for a server.
    path: Path | None
    #: Who is reading: whose status and rating transactions read and write, who signs notes
    #: (on a server the database role).
    user: str
    #: Who may use the catalog (a server's members: postgres/sharing.py); None for a file.
    sharing = None
    #: The ranked lists of frequent words, across transactions.
    lists: RankedListUpkeep

    def __init__(self, rederive: Callable[[Transaction, list[int]], object] | None = None):
        # The step that derives the text of abstracts edited by hand (the import pipeline's):
        # given by the caller, run at the start of each write that asks for it.
        self._rederive = rederive

    @abstractmethod
    def read(self) -> AbstractContextManager[Transaction]:
        """A read transaction: `with store.read() as tx: tx.papers.detail(paper_id)`."""

    @abstractmethod
    def write(self, *, catch_up: bool = True) -> AbstractContextManager[Transaction]:
        """A write transaction; all of it commits, or none. `catch_up`: first derive the text
        of papers whose abstract was edited by hand since (when the store was given a
        `rederive` step; doctor does that itself)."""

    def _catch_up_in(self, tx: Transaction) -> None:
        """The start of a write that catches up: the papers edited by hand derived again."""
        if self._rederive is not None and (edited := tx.imports.papers_to_rederive()):
            self._rederive(tx, edited)

    def catch_up(self) -> None:
        """Derive the text of papers whose abstract was edited by hand since; one small read
        when there are none."""
        if self._rederive is None:
            return
        with self.read() as tx:
            if not tx.imports.papers_to_rederive():
                return
        with self.write():
            pass  # write() does it

    @abstractmethod
    def checking(self) -> AbstractContextManager[Transaction]:
        """A write transaction that is always rolled back: doctor's checks change nothing."""

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def is_seeded(self) -> bool:
        """Whether the bundled seed lists were imported completely (the default catalog)."""

    @abstractmethod
    def mark_seeded(self) -> None: ...

    @abstractmethod
    def data_version(self) -> int:
        """A number that changes when another connection commits a change: cheap to poll."""

    @abstractmethod
    def backup(self, target: Path) -> None:
        """A consistent copy at `target` (a SQLite file), safe while others use the catalog."""

    @abstractmethod
    def run_sql(self, statement: str, *, stop: Callable[[], bool] | None = None,
                timeout: float | None = None) -> tuple[list[str], list[tuple]]:
        """One read-only statement: (column names, rows). Raises CatalogError for what cannot
        run, Interrupted once `stop()` is true or after `timeout` seconds."""

    def imported(self, new_papers: int) -> None:
        """After an import added `new_papers`: upkeep a backend wants then (none by default)."""

    def safety_copy(self, label: str) -> Path | None:
        """A copy kept before doctor repairs (a file beside a SQLite catalog); None where the
        repairs' single transaction is the safety (a server)."""
        return None

    @abstractmethod
    def schema_revision(self) -> str | None: ...

    @abstractmethod
    def cache_dir(self) -> Path:
        """A folder of this catalog's own for derived files (discovery's vectors)."""
