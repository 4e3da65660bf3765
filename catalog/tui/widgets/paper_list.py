"""The paper list: a virtual list over a query's results.

Only the lines on screen are rendered (the Line API); rows come in pages of 200 fetched by
offset in a thread worker when they scroll into view, and the scrollbar's height is the
query's count. Nothing here ever holds more than a few pages of a 100k-paper catalog. A new
search's first page may come in two parts: the rows the screen shows first, then the whole
page (`fill`); the rows between show as loading meanwhile, as rows of pages not fetched yet do.
"""

from __future__ import annotations

from collections import OrderedDict

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from catalog.rules import STATUSES
from catalog.library import Catalog
from catalog.results import PaperSummary
from catalog.tui.colors import MUTED, TEXT, rounds_to_256, text_style
from catalog.searching.query import RELEVANCE, Sort
from catalog.searching.request import SearchRequest
from catalog.tui.widgets import paper_list_messages as messages
from catalog.tui.widgets.marking import Marks
from catalog.tui.widgets.rows import MARKS, Columns, RowStyles, header, header_at, row

PAGE = 200
KEEP_PAGES = 16  # pages held in memory; others are fetched again when scrolled back to


class PaperList(ScrollView, can_focus=True):
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup,ctrl+u", "page(-1)", "Page up", show=False),
        Binding("pagedown,ctrl+d", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end,G", "jump(-1)", "Last", show=False),
        Binding("enter", "open", "Read", show=False,
                tooltip="Move into the detail pane to scroll it", id="open"),
        Binding("space", "mark", "Mark", tooltip="Mark papers: t, s, r, y and x then apply to "
                "all marked papers", id="mark"),
        Binding("escape", "unmark_all", "Unmark all", id="unmark"),
        Binding("ctrl+a", "mark_results", "Mark all", show=False, id="mark-all",
                tooltip="Mark every paper of these results, not only those loaded (asked first "
                        "when they are more than the screen shows)"),
        Binding("V", "mark_range", "Mark range", show=False, id="mark-range",
                tooltip="Start a range at this paper; move, then V again marks every paper "
                        "between (escape drops the range)"),
        Binding("asterisk", "invert_marks", "Invert marks", key_display="*", show=False,
                id="invert-marks", tooltip="Marked papers of these results unmarked, the others "
                "marked; marks of other searches kept"),
    ]
    COMPONENT_CLASSES = {
        "paper-list--header", "paper-list--cursor", "paper-list--marked", "paper-list--mark",
        "paper-list--meta", "paper-list--rating", "paper-list--tags", "paper-list--notice",
        *(f"paper-list--{s}" for s in STATUSES),
    }

    # Its messages (paper_list_messages.py), which handlers know as PaperList.Highlighted and so on.
    Highlighted, Opened, OpenedNothing = messages.Highlighted, messages.Opened, messages.OpenedNothing
    MarksChanged, SortChosen, RestWanted = messages.MarksChanged, messages.SortChosen, messages.RestWanted
    RowsForMarks, PageLoaded = messages.RowsForMarks, messages.PageLoaded

    def __init__(self, catalog: Catalog, **kwargs) -> None:
        super().__init__(**kwargs)
        self.catalog = catalog
        self.request: SearchRequest | None = None  # the search shown: pages are fetched by it
        self.generation = -1
        self.total = 0
        self.counted = False  # `total` is the count, not the rows known so far
        self.cursor = 0
        self.venue_width = 8
        self.with_authors = False  # a paper of the pages fetched has authors: their column shows
        self.with_tags = False  # and tags: theirs shows (else 30 empty cells at 160 columns)
        self.pages: OrderedDict[int, list[PaperSummary]] = OrderedDict()
        self.partial_first = False  # page 0 holds only its first rows: the rest is on its way
        self._rest_asked = False  # RestWanted was posted for these results
        self.wanted: set[int] = set()
        self.marks = Marks(self, PAGE)  # the papers marked (marking.py)
        self.message: list[Text] = []
        self._fetch_scheduled = False
        self._announce_pending = False
        self._styles: dict[tuple[str, bool], RowStyles] = {}  # by row kind and focus
        self._wrapped: tuple[int, list[Text]] = (-1, [])  # the message, wrapped to a width

    # --- results in ---------------------------------------------------------------------

    def show_results(self, request: SearchRequest, generation: int, rows: list[PaperSummary],
                     total: int | None, message: list[Text], keep: str | None = None,
                     more: bool = False) -> None:
        """A new first page of `request`. `keep`: the key to leave the cursor on, if it is
        still there. `more`: the rows are the page's first only, the rest comes with `fill`
        (until then the list is a page long, its rows past these loading)."""
        self.request, self.generation = request, generation
        self.marks.new_results()
        self.pages = OrderedDict({0: rows})
        self.with_authors = any(p.authors for p in rows)
        self.with_tags = any(p.tags for p in rows)
        self.partial_first, self._rest_asked = more, False
        self.wanted.clear()
        self.message = message
        self._wrapped = (-1, [])
        self.counted = total is not None
        self.set_total(total if total is not None else max(len(rows), PAGE) if more else len(rows))
        keys = [p.key for p in rows]
        if keep in keys:
            self.cursor = keys.index(keep)
        elif keep is None:
            self.cursor = 0
        elif self.cursor >= self.total:  # the kept paper is gone (deleted, say): the row above
            self.cursor = max(0, self.total - 1)
        if keep is None:
            self.scroll_to(y=0, animate=False)
        self._scroll_to_cursor()
        self.refresh()
        self._announce()

    def fill(self, rows: list[PaperSummary], total: int | None) -> None:
        """The whole first page, after its first rows (show_results' `more`); `total`: the
        count, or None while it runs (the list is then as long as the page)."""
        self.partial_first = False
        self.counted = total is not None
        self.set_total(total if total is not None else len(rows))
        if self.total and self.cursor >= self.total:  # the cursor went past the last row
            self.cursor = self.total - 1
            self._scroll_to_cursor()
            self._announce_pending = True
        self._take_page(0, rows)

    def fetch_rest(self) -> None:
        """The rest of the first page did not come (a busy database): fetch it as a page."""
        if self.partial_first:
            self._want(0)

    @property
    def query_text(self) -> str:
        """The search shown, as it ran (the word being typed ends in *)."""
        return self.request.text if self.request is not None else ""

    @property
    def sort(self) -> Sort:
        """The order of the results shown."""
        return self.request.sort if self.request is not None else RELEVANCE

    @property
    def at_least(self) -> int:
        """How many results there are at least, before the count comes: the rows known."""
        return len(self.pages.get(0, ())) if self.partial_first else self.total

    def set_message(self, message: list[Text]) -> None:
        """What the list says when it is empty (suggestions arrive after the results)."""
        self.message = message
        self._wrapped = (-1, [])
        self.refresh()

    def set_count(self, total: int) -> None:
        """The results' count, come after their first page."""
        self.counted = True
        self.set_total(total)

    def set_total(self, total: int) -> None:
        self.total = total
        self.virtual_size = Size(0, total + 1)  # one line for the header
        self.refresh()

    def replace(self, papers: list[PaperSummary]) -> None:
        """Show new versions of these papers wherever they are (after an edit)."""
        fresh = {p.key: p for p in papers}
        for rows in self.pages.values():
            for i, p in enumerate(rows):
                rows[i] = fresh.get(p.key, p)
        self.with_authors = any(p.authors for rows in self.pages.values() for p in rows)
        self.with_tags = any(p.tags for rows in self.pages.values() for p in rows)
        self.marks.replace(fresh)
        self.refresh()

    def loaded_keys(self) -> set[str]:
        """Keys of the papers in the pages fetched so far, or fetched for marking: all
        certainly in these results."""
        return {p.key for rows in self.pages.values() for p in rows} | self.marks.in_results

    @property
    def current(self) -> PaperSummary | None:
        return self.paper_at(self.cursor) if self.total else None

    @property
    def marked(self) -> dict[str, PaperSummary]:
        """The papers marked, by key, in the order they were marked."""
        return self.marks.marked

    @property
    def anchor(self) -> int | None:
        """Where a range (V) starts, while one is open."""
        return self.marks.anchor

    def targets(self) -> list[PaperSummary]:
        """What an action applies to: the marked papers, or else the one under the cursor."""
        if self.marked:
            return list(self.marked.values())
        return [self.current] if self.current is not None else []

    # --- rows and pages -----------------------------------------------------------------

    def paper_at(self, index: int) -> PaperSummary | None:
        """The paper in row `index`, or None while its page is on its way (then fetched)."""
        page, offset = divmod(index, PAGE)
        rows = self.pages.get(page)
        if rows is None:
            self._want(page)
            return None
        self.pages.move_to_end(page)
        if offset < len(rows):
            return rows[offset]
        if page == 0 and self.partial_first and not self._rest_asked:
            self._rest_asked = True
            self.post_message(self.RestWanted(self.generation))
        return None

    def _want(self, page: int) -> None:
        if page in self.wanted:
            return
        self.wanted.add(page)
        if not self._fetch_scheduled:
            self._fetch_scheduled = True
            self.call_after_refresh(self._start_fetch)

    def _start_fetch(self) -> None:
        """Fetch the wanted pages still in view (a fast scroll passes many it never needs)."""
        self._fetch_scheduled = False
        top = int(self.scroll_offset.y)
        first, last = top // PAGE, (top + self.size.height) // PAGE
        self.wanted = {p for p in self.wanted if first <= p <= last or p == self.cursor // PAGE}
        if self.wanted and self.request is not None:
            self._fetch(self.catalog, self.request, self.generation, sorted(self.wanted))

    @work(thread=True, exclusive=True, group="pages", exit_on_error=False)
    def _fetch(self, catalog: Catalog, request: SearchRequest, generation: int, pages: list[int]) -> None:
        worker = get_current_worker()
        for page in pages:
            if worker.is_cancelled:
                return
            try:
                rows = catalog.search(request, limit=PAGE, offset=page * PAGE, snippets=False)
            except Exception:  # the same query just ran; show the page as empty, not a crash
                rows = []
            self.post_message(self.PageLoaded(generation, page, rows))

    def on_paper_list_page_loaded(self, message: PageLoaded) -> None:
        message.stop()
        if message.generation != self.generation:
            return
        if message.page == 0 and self.partial_first:  # in place of the rest that failed
            self.fill(message.rows, len(message.rows) if len(message.rows) < PAGE else None)
        else:
            self._take_page(message.page, message.rows)

    def _take_page(self, page: int, rows: list[PaperSummary]) -> None:
        self.wanted.discard(page)
        self.pages[page] = rows
        self.with_authors = self.with_authors or any(p.authors for p in rows)
        self.with_tags = self.with_tags or any(p.tags for p in rows)
        while len(self.pages) > KEEP_PAGES:
            self.pages.popitem(last=False)
        self.refresh()
        if self._announce_pending and self.cursor // PAGE == page:
            self._announce()

    # --- drawing ------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        self._styles.clear()  # a new theme, or focus changed the cursor's colours
        super().notify_style_update()

    def row_styles(self, kind: str = "plain") -> RowStyles:
        """Styles for a "plain", "marked" or "cursor" row: every colour comes from the theme,
        blended onto that row's background and kept readable on it (catalog/tui/colors.py)."""
        key = (kind, self.has_focus)
        if key not in self._styles:
            self._styles[key] = self._resolve(kind)
        return self._styles[key]

    def _resolve(self, kind: str) -> RowStyles:
        _, background = self.background_colors
        color, auto, emphasis = self.styles.color, self.styles.auto_color, Style()
        if kind != "plain":
            row_kind = self.get_component_styles(f"paper-list--{kind}")
            if background.ansi is None or kind == "cursor":
                # (An ANSI palette cannot tint: marked rows there keep the plain background
                # and show their ● only, rather than a full-strength accent colour.)
                background = background + row_kind.background
            if row_kind.has_rule("color"):
                color, auto = row_kind.color, row_kind.auto_color
            emphasis = row_kind.text_style

        # ANSI themes leave colours to the terminal's palette, where only the theme's own
        # pairing (the cursor's foreground on its background) is known to be readable.
        own_colours = kind == "plain" or background.ansi is None

        def style(component: str | None, minimum: float) -> Style:
            c, a, extra = color, auto, Style()
            if component is not None:
                styles = self.get_component_styles(f"paper-list--{component}")
                if styles.has_rule("color") and own_colours:
                    c, a = styles.color, styles.auto_color
                extra = styles.text_style
            return text_style(c, background, minimum, auto=a, rounded=rounds_to_256(self.app)) + emphasis + extra

        status_minimum = {"unread": MUTED, "skipped": MUTED}
        return RowStyles(
            base=style(None, TEXT), title=style(None, TEXT), mark=style("mark", TEXT),
            meta=style("meta", MUTED), rating=style("rating", MUTED), tags=style("tags", TEXT),
            status={s: style(s, status_minimum.get(s, TEXT)) for s in STATUSES}, notice=style("notice", TEXT))

    def _header_style(self) -> Style:
        _, background = self.background_colors
        styles = self.get_component_styles("paper-list--header")
        return text_style(styles.color, background + styles.background, MUTED,
                          auto=styles.auto_color, rounded=rounds_to_256(self.app)) + styles.text_style

    def _message_lines(self, width: int) -> list[Text]:
        """The message (no papers, an empty catalog) wrapped to the list's width."""
        if self._wrapped[0] != width:
            lines: list[Text] = []
            for text in self.message:  # indented as the titles are
                for line in text.wrap(self.app.console, max(10, width - 3)) if text.plain else [text]:
                    lines.append(Text(" " * MARKS, end="") + line)
            self._wrapped = (width, lines)
        return self._wrapped[1]

    def columns(self, width: int | None = None) -> Columns:
        """The columns' widths for this list's papers at its width (or `width`)."""
        return Columns.fit(self.scrollable_content_region.width if width is None else width,
                           self.venue_width, self.with_authors, self.with_tags)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        plain = self.row_styles()
        base = plain.base
        cols = self.columns(width)
        if y == 0:
            base = self._header_style()
            line = header(cols, base, self._sorted_column())
        elif not self.total:
            lines = self._message_lines(width)
            line = lines[y - 2].copy() if 0 <= y - 2 < len(lines) else Text()
            line.stylize_before(plain.title)
        else:
            index = int(self.scroll_offset.y) + y - 1
            if index >= self.total:
                return Strip.blank(width, base)
            paper = self.paper_at(index)
            kind = "plain"
            if index == self.cursor:
                kind = "cursor"
            elif paper is not None and paper.key in self.marked or self.marks.in_range(index):
                kind = "marked"
            styles = self.row_styles(kind)
            base = styles.base
            if paper is None:
                line = Text(end="")
                line.append("  …", styles.title)
            else:
                line = row(paper, cols, styles, paper.key in self.marked)
        segments = Segment.apply_style(line.render(self.app.console, end=""), base)
        return Strip(segments).crop_extend(0, width, base).simplify()

    def _sorted_column(self) -> tuple[str, bool] | None:
        """(field, reversed) for the header's arrow; relevance (the default) has none."""
        return None if self.sort == RELEVANCE else (self.sort.field, self.sort.reverse)

    # --- moving -------------------------------------------------------------------------

    @property
    def rows_on_screen(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def move_to(self, index: int) -> None:
        if not self.total:
            return
        index = max(0, min(self.total - 1, index))
        if index != self.cursor:
            self.cursor = index
            self._scroll_to_cursor()
            self.refresh()
            if self.marks.anchor is not None:
                self.post_message(self.MarksChanged(len(self.marked)))  # the range's size
            self._announce()

    def _scroll_to_cursor(self) -> None:
        top, rows = int(self.scroll_offset.y), self.rows_on_screen
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + rows:
            self.scroll_to(y=self.cursor - rows + 1, animate=False)

    def _announce(self) -> None:
        paper = self.current
        self._announce_pending = paper is None and self.total > 0
        if not self._announce_pending:
            self.post_message(self.Highlighted(paper))

    def action_move(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.move_to(self.cursor + direction * max(1, self.rows_on_screen - 1))

    def action_jump(self, index: int) -> None:
        self.move_to(index if index >= 0 else self.total - 1)

    def action_open(self) -> None:
        self.post_message(self.Opened() if self.current is not None else self.OpenedNothing())

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            cols = self.columns()
            field = header_at(cols, offset.x)
            if field is not None:
                self.post_message(self.SortChosen(field))
            return
        index = int(self.scroll_offset.y) + offset.y - 1
        if index < self.total:
            self.move_to(index)
            if event.chain > 1:
                self.action_open()

    # --- marking ------------------------------------------------------------------------

    def action_mark(self) -> None:
        self.marks.toggle()

    def mark_all(self, papers: list[PaperSummary]) -> None:
        """Mark these papers too (a whole topic, chosen in the sidebar)."""
        self.marks.add(papers)

    def action_mark_range(self) -> None:
        self.marks.range()

    def action_mark_results(self) -> None:
        self.marks.every("all")

    def action_invert_marks(self) -> None:
        self.marks.every("invert")

    def on_paper_list_rows_for_marks(self, message: RowsForMarks) -> None:
        message.stop()
        self.marks.rows_came(message)

    def restore_marks(self, keys: list[str]) -> None:
        """Mark these papers again (the session's marks); papers gone since are left out."""
        self.marks.restore(keys)

    def action_unmark_all(self) -> None:
        self.marks.unmark_all()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "unmark_all":
            return bool(self.marked) or self.marks.anchor is not None
        return True

    def on_resize(self) -> None:
        self._scroll_to_cursor()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

