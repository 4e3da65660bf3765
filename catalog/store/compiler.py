"""The query compiler's interface: a query tree (catalog/searching/query.py) in, SQL and its
parameters out, without touching a database. Each backend has one (sqlite/fts.py: FTS5,
postgres/search.py: tsvector); the search tiers both share are planned in tierplan.py, and
ranked.py runs what a compiler builds. Pinned by exact-string tests (tests/test_compiler.py).

Words match in tiers, each ranked and shown after the one before: the words as typed
("exact"), in other forms ("forms"), also through the acronyms the catalog knows ("wide"),
then papers holding only some of them ("some")."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from catalog.searching.query import RELEVANCE, Query, Sort
from catalog.store.tierplan import acronym_candidates

TIERS = ("exact", "forms", "wide", "some")
# Papers holding some of the words rank by the summed weights of the words they hold, times
# this, minus the engine's score: weights are rounded to tenths, so a tenth more outranks
# any difference of bm25 or ts_rank.
HELD_SCALE = 1000


def some_words(compiled: "CompiledQuery") -> list[str]:
    """The words of the "some" tier that list a paper: a connecting word (`via`) alone does not."""
    return [w for w, light in zip(compiled.words, compiled.connecting or [False] * len(compiled.words)) if not light]


def some_weights(compiled: "CompiledQuery") -> list[float]:
    """One weight per word of the "some" tier: those the store set, or 1 each (how many held)."""
    return list(compiled.weights) if len(compiled.weights) == len(compiled.words) else [1.0] * len(compiled.words)


@dataclass
class CompiledQuery:
    """A query as SQL pieces: full-text expressions that rank, and filters on `paper p`.

    `match` the words as typed (the exact index), `forms` every word in any form (the stemmed
    index; None when no word may take other forms), `wide` also through the acronyms (None
    when there are none): these are the papers matching all words. `words` holds one stemmed
    expression per word, for papers matching only some of them (ranked by the rarity of the
    words each holds: `weights`, one per word, set by the store before ranking that tier);
    `word_texts` the words as typed, one per expression, and `typed` their expressions
    without a compound's parts held apart (to name those no paper holds: "weight-based");
    `connecting` whether each is a connecting word (searching/connecting.py: in no tier's
    must-hold words, weighing little, listing no paper on its own).
    `exclude`: (index, expression) pairs a paper must not match (`-word`, in any form).
    `reader`: whose status and rating the filters, the rating order and the rows read."""

    match: str | None = None
    where: list[str] = field(default_factory=list)
    params: list = field(default_factory=list)
    forms: str | None = None
    wide: str | None = None
    words: list[str] = field(default_factory=list)
    word_texts: list[str] = field(default_factory=list)
    typed: list[str] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    connecting: list[bool] = field(default_factory=list)
    exclude: list[tuple[str, str]] = field(default_factory=list)
    reader: str = ""


class Compiler(ABC):
    """One backend's SQL for the query language. Every method is pure."""

    TIERS = TIERS
    #: Whether tiers_search_sql ranks consecutive tiers in one statement (a server: one round
    #: trip instead of one per tier).
    ranks_tiers_together = False

    @abstractmethod
    def compile_query(self, query: Query, acronyms: Mapping[str, Sequence[str]] | None = None,
                      reader: str = "") -> CompiledQuery:
        """The query's tiers; `acronyms`: what a word or phrase also stands for, by its text."""

    @abstractmethod
    def tier_expression(self, compiled: CompiledQuery, tier: str) -> str | None:
        """The full-text expression of one tier, or None when the query has no such tier."""

    @abstractmethod
    def search_sql(self, compiled: CompiledQuery, *, limit: int, offset: int = 0, with_text: bool = False,
                   tier: str = "exact", sort: Sort = RELEVANCE,
                   tiers: Sequence[str] | None = None) -> tuple[str, list]:
        """A page's rows: the summary columns, then `text` (the rendered abstract or NULL)
        and `score` (lower is better)."""

    def tiers_search_sql(self, compiled: CompiledQuery, tiers: Sequence[str], *, limit: int,
                         with_text: bool = False) -> tuple[str, list]:
        """The first page of several tiers in one statement, each row with its `tier` (its
        place in `tiers`); only where ranks_tiers_together."""
        raise NotImplementedError

    @abstractmethod
    def count_sql(self, compiled: CompiledQuery, tier: str | None = None) -> tuple[str, list]: ...

    @abstractmethod
    def ids_sql(self, compiled: CompiledQuery, tiers: Sequence[str] | None = None) -> tuple[str, list]: ...

    @abstractmethod
    def facet_sql(self, ids: str, *, scan: bool) -> dict[str, str]:
        """Venue-year, status and rating counts of the papers the subquery `ids` selects, and
        people_and_files_sql's."""

    @abstractmethod
    def titled_sql(self, title: str, limit: int) -> tuple[str, list] | None:
        """Deduplication's candidates: papers whose real title holds `title`'s words."""

    @abstractmethod
    def papers_holding_sql(self) -> str:
        """How many papers hold one word (an expression of CompiledQuery.words, the first
        parameter), counted up to the second parameter: a statement returning one number."""

    def acronym_candidates(self, query: Query) -> set[str]:
        """The texts of a query an acronym could widen."""
        return acronym_candidates(query)


def people_and_files_sql(ids: str) -> dict[str, str]:
    """Papers per author (most first), and how many have a PDF or any file attached, of the papers `ids`
    selects (its parameters only: these are not the reader's own). Both backends run these."""
    return {
        # Sorted here, where it costs the UI thread nothing (the TUI shows the first ones).
        "authors": ("SELECT name, count(DISTINCT paper_id) AS papers FROM paper_author"
                    f" WHERE paper_id IN ({ids}) GROUP BY name ORDER BY papers DESC, name"),
        "files": ("SELECT count(DISTINCT CASE WHEN lower(path) LIKE '%.pdf' THEN paper_id END) AS pdf,"
                  f" count(DISTINCT paper_id) AS files FROM attachment WHERE paper_id IN ({ids})"),
    }
