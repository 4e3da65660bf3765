"""The screen's search: one SearchState, the controller that moves it from one search to the
next, and the worker that runs a search off the UI thread.

Each key that changes what is searched starts a search: the controller makes its request
(the only parse of the text), numbers it, and hands the screen a Search to run in one
exclusive thread worker (`fetch`). The worker posts what it finds (catalog/tui/messages.py);
the screen keeps the answers of the newest number and drops the rest, and the controller
notes what the list now holds (`took`, `count_came`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from threading import Event

from rich.cells import cell_len
from rich.text import Text
from textual.content import Content
from textual.message import Message
from textual.worker import get_current_worker

from catalog.errors import Interrupted
from catalog.library import Catalog
from catalog.results import MissingWords, PaperSummary, Suggestion
from catalog.searching.query import RELEVANCE, QueryError, Sort
from catalog.searching.request import SearchRequest, request
from catalog.searching.suggest import corrected
from catalog.tui.display import first_line, shorten
from catalog.tui.messages import (
    KeptAt, SearchCount, SearchFailed, SearchRest, SearchResults, SearchSuggestions,
)
from catalog.tui.querytext import PREFIX_FROM, tokens, typed_query, unfinished_word
from catalog.tui.waiting import Typing, after, when_quiet
from catalog.tui.widgets.paper_list import PAGE, PaperList

# While a word is typed, a key's count and facets start this long after its page is shown: the
# next key (a steady typist's come 100-200 ms apart) cancels them before they cost anything. At
# a million papers they take longer than the page itself, on the same two cores, and made the
# next keys wait (docs/benchmarks.md). Until its count comes the list says `200+` (`50+` while
# only its first rows are shown: FIRST below).
SETTLE = 0.5
# A search asks first for the rows the screen shows (FIRST, or the list's height when it is
# taller), shows them, then fetches the whole first page (PAGE) in the same worker, before its
# count: a newer search cancels both. At a million papers a ranked list proves a page of 50
# where a page of 200 needed every match ranked (`venue:ICML gra*`). While a word is typed the
# rest waits SETTLE too, unless the list needs a row past the first ones sooner (those show as
# loading until it comes). A search that keeps a paper (a refresh) asks for the whole page at
# once, with its count: the paper may be past row FIRST.
FIRST = 50
# How deep a search looks for the paper it keeps the cursor on, past its first page (sorting
# a long list moves the paper anywhere; at a million papers the whole list is too far).
KEEP_DEPTH = 10_000


@dataclass
class SearchState:
    """The newest search, and what the list shows of it."""

    text: str = ""  # as typed: what R searches again and the session remembers
    sort: Sort = RELEVANCE
    ran: tuple[str, Sort] | None = None  # what the newest search ran (typed_query) and its order
    request: SearchRequest | None = None  # the newest search's; None when its text cannot run
    generation: int = 0  # of the newest search: answers of older ones are dropped
    keep: str | None = None  # the paper the cursor stays on when the results come
    refreshing: bool = False  # the same results again (a change elsewhere): the cursor stays put
    settling: bool = False  # typed: its rest, count and facets wait SETTLE first
    counted: bool = False  # whether the list's total is the full count yet
    holding_all: int | None = None  # papers with every word, when partial matches follow
    # When no paper holds every word: which word none holds, or "did you mean" (the list
    # shows papers holding some of the words, so the empty list's message is not seen).
    note: str | None = None
    correction: str | None = None  # "did you mean": the query D runs instead
    rest_wanted: Event = field(default_factory=Event)  # set: fetch the rest of the page now
    answered: bool = True  # the newest search's first rows (or its failure) came


@dataclass(frozen=True)
class Search:
    """One search for `fetch` to run: its rows asked for first (`first`), counted with them
    (`counted`) or after `settle` seconds; the rest of the page no later than `hurry`."""

    generation: int
    request: SearchRequest | None  # None: the text cannot run, `error` says why
    error: str | None = None
    first: int = 0
    counted: bool = False
    settle: float = 0.0
    hurry: Event = field(default_factory=Event)
    keep: str | None = None  # the paper to find, wherever it is in the results
    # A typed search's: keys typed after it (`seen` of them before) put off its rest and
    # count again, and stop them if they run, until typing pauses.
    typing: Typing | None = None
    seen: int = 0


class SearchController:
    """Owns the SearchState and its transitions; touches no widget."""

    def __init__(self, sort: Sort = RELEVANCE) -> None:
        self.state = SearchState(sort=sort)
        self.typing = Typing(SETTLE)  # the search bar's keys (SearchBar tells it each one)

    def start(self, text: str, *, shown: int, keep: str | None = None, counted: bool | None = None,
              refresh: bool = False, finished: bool = False, typing: bool = False) -> Search | None:
        """A search of `text`, or None when a typed key leaves the search as it was (the first
        letters of a word: typed_query leaves them out). `shown`: rows the list has room for.

        `keep` leaves the cursor on that paper if it is still found; `counted`: count with the
        first page (by default when keeping a paper, whose place may be deep in the list).
        `refresh`: the same results again, the cursor staying on whatever paper it is on when
        they come. `finished`: Enter was pressed. `typing`: the search bar's text changed."""
        state = self.state
        state.text = text
        run = typed_query(text, finished)
        if typing and not finished and keep is None and (run, state.sort) == state.ran:
            return None  # the results on screen are this search's (or on their way)
        state.ran = (run, state.sort)
        state.generation += 1
        state.settling = typing and not finished
        state.keep, state.refreshing = keep, refresh
        state.rest_wanted = Event()
        state.note = state.correction = None
        state.answered = False
        try:
            state.request = request(run, state.sort, completing=run == text + "*")
        except QueryError as exc:
            state.request = None
            return Search(state.generation, None, str(exc))
        counted = keep is not None if counted is None else counted
        first = PAGE if keep is not None or counted else min(PAGE, max(FIRST, shown))
        return Search(state.generation, state.request, first=first, counted=counted,
                      settle=SETTLE if state.settling else 0.0, hurry=state.rest_wanted, keep=keep,
                      typing=self.typing if state.settling else None, seen=self.typing.keys)

    def current(self, generation: int) -> bool:
        return generation == self.state.generation

    def took(self, rows: list[PaperSummary], total: int | None) -> None:
        """The list took these rows of the newest search (its first rows, or its whole first
        page), with its count when known."""
        self.state.answered = True
        self.state.counted = total is not None
        # With partial matches on the first page, every paper holding all the words is
        # there before them (once the page is whole: its first rows may hold none).
        self.state.holding_all = (sum(p.match == "all" for p in rows)
                                  if any(p.match == "some" for p in rows) else None)

    def failed(self) -> None:
        """The newest search failed (said under the search bar)."""
        self.state.answered = True

    @property
    def searching(self) -> bool:
        """A search is on its way: a refresh would cancel it (at a million papers a typed
        search takes seconds, and a refresh each second replaced it with a slower one)."""
        return not self.state.answered

    def count_came(self) -> None:
        self.state.counted = True

    def sort_by(self, sort: Sort) -> None:
        """The next searches list their results in this order."""
        self.state.sort = sort

    def want_rest(self, generation: int) -> None:
        """The list needs a row past the first ones: the worker fetches the rest now."""
        if self.current(generation):
            self.state.rest_wanted.set()

    @property
    def facets_settle(self) -> float:
        """How long the facets of the results just shown wait before they are read."""
        return SETTLE if self.state.settling else 0.0


def fetch(catalog: Catalog, search: Search, post: Callable[[Message], object]) -> None:
    """Run `search` in a thread worker, posting its first rows, the rest of its first page,
    its count, and (when nothing matches) suggestions. The rest and the count wait
    `search.settle` seconds after the first rows (a key typed meanwhile cancels them
    unstarted, or, when it searches nothing, puts them off until typing pauses, stopping
    them if they run); the rest no longer once `search.hurry` is set (the list needs its rows)."""
    worker = get_current_worker()
    stop = lambda: worker.is_cancelled  # noqa: E731  (a newer search cancels this worker)
    asked, generation = search.request, search.generation
    try:
        page = catalog.first_page(asked, limit=search.first, counted=search.counted, cancelled=stop)
        if worker.is_cancelled:
            return
        total = page.total
        more = len(page.rows) == search.first < PAGE  # the first page may hold more than these
        post(SearchResults(generation, asked, page.rows, total, more))
        if not any(row.match == "all" for row in page.rows):
            _suggest(catalog, asked, generation, post, stop, found=bool(page.rows))
        until, typing, seen = after(search.settle), search.typing, search.seen
        if more:  # the whole first page: the same search, the list's page machinery's size
            wanted, rows = when_quiet(worker, until, typing, seen, lambda stopped: catalog.search(
                asked, limit=PAGE, snippets=False, cancelled=stopped), search.hurry)
            if not wanted or worker.is_cancelled:
                return
            if total is None and len(rows) < PAGE:
                total = len(rows)
            post(SearchRest(generation, rows, total))
        if total is None:
            wanted, total = when_quiet(worker, until, typing, seen,
                                       lambda stopped: catalog.count(asked, cancelled=stopped))
            if not wanted or worker.is_cancelled:
                return
            post(SearchCount(generation, total))
        if search.keep is not None and (total or 0) > PAGE and search.keep not in {p.key for p in page.rows}:
            _find_kept(catalog, search, post, stop)
    except Interrupted:
        return  # superseded: SQLite stopped as soon as it was told
    except QueryError as exc:
        post(SearchFailed(generation, str(exc)))
    except Exception as exc:  # a locked or busy database: say so, keep the old results
        post(SearchFailed(generation, f"search failed: {first_line(exc)}"))


def _find_kept(catalog: Catalog, search: Search, post, stop) -> None:
    """Where the kept paper is past the first page (its rows by key only, KEEP_DEPTH deep)."""
    rows = catalog.search(search.request, limit=KEEP_DEPTH, offset=PAGE, snippets=False, cancelled=stop)
    index = next((i for i, p in enumerate(rows) if p.key == search.keep), None)
    if index is not None and not stop():
        post(KeptAt(search.generation, PAGE + index))


def _suggest(catalog: Catalog, asked: SearchRequest, generation: int, post, stop, *,
             found: bool) -> None:
    """Suggestions for a search no paper matches whole, and (`found`: it lists papers with
    some of its words) the words no paper holds."""
    try:
        suggestions = catalog.words.suggest(asked)
        missing = catalog.words.missing_words(asked) if found else None
    except Exception:  # suggestions are a convenience: the list says enough
        return
    if (suggestions or missing) and not stop():
        post(SearchSuggestions(generation, suggestions, missing))


# --- what the screen says about the search ----------------------------------------------

def position(papers: PaperList, state: SearchState, width: int = 0, writing: str = "") -> Content:
    """`row 51,203 / 100,000` (`/ 200+` while the count runs), how many papers are marked and
    a change still being written (`writing`): the line under the search bar. In `width` cells
    (0: any): at 80 columns the line ran past the edge and hid the count of marks, so the
    hints give way first."""
    # Each piece: its forms (longest first), its style, and when it gives way (lowest first).
    pieces: list[tuple[list[str], str, int]] = []
    total = papers.total
    if not total:
        pieces.append((["0 papers"], "", 0))
    else:
        of = f"{total:,}" if state.counted else f"{papers.at_least:,}+"
        pieces.append(([f"row {papers.cursor + 1:,} / {of}"], "", 0))
        if state.holding_all is not None:
            every = f"{state.holding_all:,} with every word"
            pieces.append(([f"{every}, then ≈ some", every], "", 2))
        if state.note:
            pieces.append(([state.note], "$text-warning", 0))
    if state.sort != RELEVANCE:
        pieces.append(([f"by {state.sort.name}", f"by {state.sort.name.split(',')[0]}"], "", 3))
    if papers.anchor is not None:
        low, high = sorted((papers.anchor, papers.cursor))
        pieces.append(([f"V marks rows {low + 1:,}–{high + 1:,}", f"V {low + 1:,}–{high + 1:,}"],
                       "$text-accent", 4))
    if papers.marked:
        count = f"{len(papers.marked):,} marked"
        pieces.append(([f"{count} (escape unmarks)", count], "$text-accent", 1))
    if writing:  # what it does gives way before the seconds that say it still runs
        doing, _, took = writing.rpartition("… ")
        pieces.append(([writing, f"{shorten(doing, 24)}… {took}", f"… {took}"], "$text-warning", 0))
    forms = [p[0] for p in pieces]
    chosen = [0] * len(pieces)
    steps = sorted((rank, n) for n, (f, _, rank) in enumerate(pieces) if len(f) > 1)
    separator = "  ·  "

    def line() -> str:
        return separator.join(f[c] for f, c in zip(forms, chosen))

    while width and cell_len(line()) > width:
        if steps:
            chosen[steps.pop(0)[1]] += 1
        elif separator != " · ":
            separator = " · "
        else:  # the note (did you mean …) is cut; the count of marks after it stays whole
            for n, (_, style, _) in enumerate(pieces):
                if style == "$text-warning":
                    text = forms[n][chosen[n]]
                    forms[n] = [shorten(text, max(8, cell_len(text) - cell_len(line()) + width))]
                    chosen[n] = 0
            break
    return Content.assemble(*[((separator if n else "") + f[c], style) if style
                              else (separator if n else "") + f[c]
                              for n, (f, c, (_, style, _)) in enumerate(zip(forms, chosen, pieces))])


def partial_note(query: str, suggestions: list[Suggestion], missing: MissingWords | None) -> str | None:
    """What the line under the search bar adds when the list holds only papers with some of
    the words: "did you mean", else the words no paper holds."""
    if suggestions:
        return f"did you mean {corrected(query, suggestions)}? (Y searches it)"
    if missing:
        return "no paper has " + ", ".join(missing.missing)
    return None


def empty_message(query: str, catalog_empty: bool,
                  suggestions: list[Suggestion] = ()) -> list[Text]:
    """What the list says when `query` (as typed) finds nothing, or the catalog is empty."""
    if not query.strip() or catalog_empty:
        return [Text("Your catalog is empty.", style="bold"), Text(""),
                Text("Import paper lists (text files, one abstract per paragraph) in a terminal:"),
                Text("    catalog import PATH", style="bold"),
                Text("then press R here to see them.")]
    filters = [t for t in tokens(query) if ":" in t]
    out = [Text.assemble("No papers match ", (query, "bold"), "."), Text("")]
    if suggestions:
        out.append(Text.assemble("Did you mean ", (corrected(query, suggestions), "bold"), "?  ",
                                 ("Y", "bold"), " (or enter) searches it."))
        out += [Text(f"  {s.word}: {', '.join(s.alternatives)}") for s in suggestions
                if len(s.alternatives) > 1]
        out.append(Text(""))
    word = unfinished_word(query)
    if word and len(word) < PREFIX_FROM:
        out.append(Text.assemble("Still typing? A word is searched from its ",
                                 f"{PREFIX_FROM}rd letter on, or after a space, Enter or a pause."))
    out.append(Text("Loosen the search: drop a word, put OR between words, or end one with *."))
    if filters:
        out.append(Text("Or remove a filter: " + "  ".join(filters)))
    return out
