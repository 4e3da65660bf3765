"""The detail pane: one paper, read top to bottom. Built as Content from plain strings and
styles, so markup or escape sequences in an abstract or note are shown as the text they are.

The pane reads the paper it is asked for itself, in a thread worker: the paper, its abstract
rendered (TeX takes a few ms), and what to mark in it for the search shown."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from catalog.ingest.kinds import label as kind_label
from catalog.library import Catalog
from catalog.results import PaperDetail, RelatedPaper
from catalog.searching.highlight import Terms, spans, terms_of
from catalog.searching.query import Query
from catalog.searching.request import SearchRequest
from catalog.text.tex import Styled, render_styled
from catalog.tui.display import first_line, one_line, safe, stars
from catalog.tui.messages import DetailLoaded
from catalog.tui.notes import note_content
from catalog.tui.widgets.pane_find import FindBar, PaneFind, line_starts

Similar = list[RelatedPaper] | str | None  # what the pane says under a paper (paper_content)
NOTHING = terms_of(Query())  # no words to mark

HIT = "bold underline $text-accent"
MUTED = "$text-muted"
# How render_styled's spans look: a script with no Unicode form (the >0 of ℤ_{>0}) cannot be
# raised or lowered in a terminal, so it is set apart instead.
KINDS = {"bold": "bold", "italic": "italic", "sub": "italic $text-secondary",
         "sup": "italic $text-secondary"}


def short_path(path: str) -> str:
    """A source file relative to the working directory or home when it is under one."""
    p = Path(path)
    for base, prefix in ((Path.cwd, ""), (Path.home, "~/")):
        try:
            return prefix + str(p.relative_to(base()))
        except (ValueError, OSError, RuntimeError):
            continue
    return path


def highlighted(content: Content, terms: Terms) -> Content:
    for start, end in spans(content.plain, terms):
        content = content.stylize(HIT, start, end)
    return content


def abstract(styled: Styled, terms: Terms) -> Content:
    """The abstract as render_styled gave it (emphasis, scripts), the query's words marked."""
    text, kinds = styled
    content = Content(safe(text))  # render_styled already removed controls; cheap if so
    for start, end, kind in kinds:
        content = content.stylize(KINDS[kind], start, end)
    return highlighted(content, terms)


def marked_snippet(snippet: str) -> Content:
    """A snippet with \x02 ... \x03 around matched words, those words marked."""
    from catalog.searching.highlight import END, START

    parts: list[str | tuple[str, str]] = []
    for number, piece in enumerate(re.split(f"[{START}{END}]", snippet)):
        piece = re.sub(r"\s+", " ", safe(piece))  # one line, its spaces kept at the edges
        parts.append((piece, "bold $text-warning") if number % 2 else piece)
    return Content.assemble(*parts)


def file_size(size: int) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000
    return ""


def read_paper(catalog: Catalog, key: str, asked: SearchRequest | None = None,
               known: tuple[SearchRequest, Terms] | None = None) -> DetailLoaded:
    """A paper for the reading pane, its abstract rendered, with what to mark in it for the
    search `asked` (call it from a thread worker). `known`: terms already read for a request,
    used again when it is `asked` (the acronyms the store knows are asked once a search)."""
    try:
        detail = catalog.get(key)
    except Exception as exc:  # deleted meanwhile by another process, say
        return DetailLoaded(key, None, first_line(exc))
    try:  # emphasis and scripts the stored plain text has lost; TeX takes a few ms
        styled = render_styled(detail.abstract) if detail.abstract else None
    except Exception:  # imported text is arbitrary: the plain text will do
        styled = None
    if asked is None:
        return DetailLoaded(key, detail, styled=styled, terms=NOTHING)
    pages = ()
    if detail.attachments:  # the best pages of its PDFs for the search
        try:
            pages = tuple(catalog.files.pages_for(key, asked))
        except Exception:  # a busy database: the paper without them
            pages = ()
    if known is not None and known[0] is asked:
        return DetailLoaded(key, detail, styled=styled, terms=known[1], request=asked, pages=pages)
    try:  # the query's words, and the forms its acronyms stand for
        return DetailLoaded(key, detail, styled=styled, terms=catalog.highlight_terms(asked),
                            request=asked, pages=pages)
    except Exception:  # a busy database: the words as typed will do (and are not kept)
        return DetailLoaded(key, detail, styled=styled, terms=terms_of(asked.query), pages=pages)


def paper_content(d: PaperDetail, terms: Terms, styled: Styled | None = None,
                  similar: Similar = None, pages: tuple[tuple[int, str], ...] = ()) -> Content:
    """The paper; `styled` is render_styled(d.abstract), made in the worker that loaded it
    (without it the stored plain text is shown). `similar`: the papers most like it once `m`
    found them, a line while it looks, or None for the hint. `pages`: (page, snippet) of its
    PDFs' best pages for the search."""
    s = d.summary
    parts: list[Content | str | tuple[str, str]] = [(one_line(s.title), "bold $text-primary"), "\n"]
    if d.user_title:
        parts += [(f"your title; derived: {one_line(d.headline)}", f"italic {MUTED}"), "\n"]
    meta = " · ".join(x for x in (s.key, one_line(s.venue), str(s.year or ""), kind_label(d.kind) or "") if x)
    parts += [(meta, MUTED), "  ", (s.status, "$text-secondary")]
    if s.rating:
        parts += ["  ", (stars(s.rating), "$text-warning")]
    parts.append("\n")
    if s.tags:
        parts += [(" ".join("#" + one_line(t) for t in s.tags), "$text-accent"), "\n"]
    if d.authors:
        parts += [(one_line(d.authors), "italic"), "\n"]
    for name, value in (("DOI", d.doi), ("arXiv", d.arxiv_id), ("URL", d.url), ("PDF", d.pdf_url)):
        if value:
            parts += [(f"{name} {one_line(value)}", MUTED), "\n"]
    for n in d.notices:  # a retraction above the abstract: it changes how to read it
        what = one_line(n.label or n.kind.replace("_", " ").capitalize())
        parts += [(f"{what}{f' of {n.updated}' if n.updated else ''}: doi {one_line(n.doi)}",
                   "bold $text-error" if n.grave else "bold $text-warning"), "\n"]
    parts += ["\n", abstract(styled or (d.abstract_text, []), terms), "\n"]
    if pages:
        parts += ["\n", ("In its PDF", "bold"), "\n"]
        for page, snippet in pages:
            parts += [(f"p. {page}: ", MUTED), marked_snippet(snippet), "\n"]
    if d.attachments:
        parts += ["\n", (f"Files ({len(d.attachments)})", "bold"), "  ", ("o opens the PDF", MUTED), "\n"]
        for a in d.attachments:
            facts = ", ".join(x for x in (f"{a.pages} pages" if a.pages else "", file_size(a.size),
                                          "linked" if a.stored == "linked" else "",
                                          a.text_state if a.text_state not in (None, "text") else "") if x)
            parts += [(f"{a.number}. ", MUTED), (one_line(short_path(a.location or a.path)),
                                                  "$text-error" if a.present is False else ""),
                      (f"  {facts}" + ("  missing" if a.present is False else ""), MUTED), "\n"]
    if d.notes:
        parts += ["\n", (f"Notes ({len(d.notes)})", "bold"), "\n"]
        for note in d.notes:
            stamp = f"{note.number} · {note.updated_at:%Y-%m-%d %H:%M}"
            parts += [(stamp, MUTED), "\n", highlighted(note_content(note.body), terms), "\n"]
    if d.sources:
        parts += ["\n", ("Sources", "bold"), "\n"]
        for src in d.sources:
            where = " ".join(x for x in (one_line(src.venue), str(src.year or "")) if x)
            parts += [(f"{safe(short_path(src.path))} #{src.position}", MUTED), (f"  {where}" if where else ""),
                      (f"  merged: {one_line(src.evidence)}" if src.evidence else "", MUTED), "\n"]
    parts += ["\n", ("Papers like this one", "bold"), "\n"]
    if similar is None:
        parts += [("m lists them, with the words they share", MUTED), "\n"]
    elif isinstance(similar, str):
        parts += [(similar, f"italic {MUTED}"), "\n"]
    elif not similar:
        parts += [("none shares a distinctive word with it", MUTED), "\n"]
    for p in similar if isinstance(similar, list) else ():
        parts += [(f"{p.key}  ", MUTED), one_line(p.title),
                  (f"  shares: {', '.join(one_line(w) for w in p.why)}" if p.why else "", MUTED), "\n"]
    return Content.assemble(*parts)


class DetailPane(VerticalScroll, can_focus=True):
    """The reading pane. Scrolls with the keyboard once focused (enter in the list), like a
    pager: j/k, space, ctrl+d/ctrl+u; [ and ] read the previous or next paper without leaving
    it (mutt's pager); / finds words in it, n and N go from hit to hit (widgets/pane_find.py);
    escape ends the finding, then goes back to the list."""

    BINDINGS = [
        Binding("j", "scroll_down", "Scroll down", show=False, tooltip="A line down", id="pane-down"),
        Binding("k", "scroll_up", "Scroll up", show=False, tooltip="A line up", id="pane-up"),
        Binding("space", "page_down", "Page down", show=False, tooltip="A page down",
                id="pane-page-down"),
        Binding("ctrl+d", "half_page(1)", "Half page down", show=False, id="pane-half-down",
                tooltip="Half a page down"),
        Binding("ctrl+u", "half_page(-1)", "Half page up", show=False, id="pane-half-up",
                tooltip="Half a page up"),
        # The pane's own, before the screen's g (saved searches) and G (the list's end).
        Binding("g", "scroll_home", "Top", show=False, tooltip="The top of the paper", id="pane-top"),
        Binding("G", "scroll_end", "End", show=False, tooltip="The end of the paper", id="pane-end"),
        Binding("right_square_bracket", "step(1)", "Next paper", key_display="]", show=False,
                tooltip="Read the next paper in the list, staying here", id="pane-next"),
        Binding("left_square_bracket", "step(-1)", "Previous paper", key_display="[",
                show=False, tooltip="Read the previous paper in the list, staying here",
                id="pane-previous"),
        # While the pane has the focus, / finds in it (the list's / goes to the search bar).
        Binding("slash", "find", "Find", key_display="/",
                tooltip="Find words in the paper (abstract, notes, the PDF's snippets)", id="pane-find"),
        Binding("n", "find_step(1)", "Next hit", show=False, tooltip="The next hit of / in the paper",
                id="pane-find-next"),
        Binding("N", "find_step(-1)", "Previous hit", show=False,
                tooltip="The previous hit of / in the paper", id="pane-find-previous"),
        Binding("escape", "end_find", "End finding", show=False,
                tooltip="Stop finding in the paper (escape again: back to the list)", id="pane-find-end"),
    ]

    @dataclass
    class Step(Message):
        """Move the list's cursor by `delta` papers (the pane shows the paper it lands on)."""

        delta: int

    @dataclass
    class Shown(Message):
        """The paper asked for was read and is shown (triage mode keeps its queue current)."""

        detail: PaperDetail

    def __init__(self, catalog: Catalog | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.catalog = catalog
        self.asked: str | None = None  # the key of the paper asked for last
        self.detail: PaperDetail | None = None  # the paper shown
        self.styled: Styled | None = None  # its abstract as render_styled gave it
        self.pages: tuple[tuple[int, str], ...] = ()  # its PDFs' best pages for the search
        self.terms: Terms = NOTHING  # what is marked in it
        self.known: tuple[SearchRequest, Terms] | None = None  # a search's terms, read once
        # What to say under a paper about its similar papers (the catalog screen's `m`);
        # None: the hint that m finds them.
        self.similar_for: Callable[[str], Similar] | None = None
        self.finding: PaneFind | None = None  # while / finds in the paper

    def compose(self):
        yield Static(id="detail-body")
        yield FindBar(id="pane-find")

    # --- reading -------------------------------------------------------------------------

    def load(self, key: str, asked: SearchRequest | None = None) -> None:
        """Read paper `key` and show it, its words of the search `asked` marked; a newer
        call wins over this one."""
        self.asked = key
        self._read(key, asked, self.known)

    @work(thread=True, exclusive=True, group="detail", exit_on_error=False)
    def _read(self, key: str, asked: SearchRequest | None,
              known: tuple[SearchRequest, Terms] | None) -> None:
        self.post_message(read_paper(self.catalog, key, asked, known))

    def on_detail_loaded(self, message: DetailLoaded) -> None:
        message.stop()
        if message.key != self.asked:
            return
        if message.request is not None:
            self.known = (message.request, message.terms)
        if message.detail is None:
            self.detail = None
            self.show_message(f"Cannot show {message.key}: {message.error}")
            return
        # The same paper read again (changed here or elsewhere): the reader keeps their place.
        same = self.detail is not None and self.detail.summary.key == message.key
        self.detail, self.styled, self.pages = message.detail, message.styled, message.pages
        self.terms = message.terms if message.terms is not None else NOTHING
        self.redraw(keep_scroll=same)
        self.post_message(self.Shown(message.detail))

    def clear(self, message: Content | str = "") -> None:
        """No paper (the list is empty): `message` instead."""
        self.asked = None
        self.detail = None
        self.show_message(message)

    # --- showing -------------------------------------------------------------------------

    def redraw(self, keep_scroll: bool = True) -> None:
        """Show the paper again (its similar papers came), in place by default."""
        if self.detail is None:
            return
        key = self.detail.summary.key
        similar = self.similar_for(key) if self.similar_for is not None else None
        content = paper_content(self.detail, self.terms, self.styled, similar, self.pages)
        finding = self.finding
        if finding is not None:
            if finding.plain != content.plain:  # another paper (from its top), or this one changed
                near = finding.hits[finding.current][0] if keep_scroll and finding.hits else 0
                finding.search(content.plain, finding.needle, after=near)
            self._count()
            content = finding.marked(content)
        self.query_one("#detail-body", Static).update(content)
        if not keep_scroll:
            self.scroll_home(animate=False)

    def show_message(self, message: Content | str) -> None:
        self.query_one("#detail-body", Static).update(Content(message) if isinstance(message, str) else message)
        self.scroll_home(animate=False)

    @property
    def text(self) -> str:
        """What the pane shows, as plain text (for tests and for copying)."""
        body = self.query_one("#detail-body", Static).content
        return body.plain if isinstance(body, Content) else str(body)

    def action_half_page(self, direction: int) -> None:
        self.scroll_relative(y=direction * max(1, self.scrollable_content_region.height // 2),
                             animate=False)

    def action_step(self, delta: int) -> None:
        self.post_message(self.Step(delta))

    # --- finding in the paper (widgets/pane_find.py) ----------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """n, N and escape are the pane's only while finding: else the screen's (a note, the list)."""
        if action in ("find_step", "end_find"):
            return self.finding is not None
        return True

    def action_find(self) -> None:
        bar = self.query_one(FindBar)
        self.finding = self.finding or PaneFind()
        bar.display = True
        bar.input.focus()

    def on_find_bar_changed(self, message: FindBar.Changed) -> None:
        message.stop()
        if self.finding is not None:
            self.finding.search(self.text, message.needle, after=self._top_offset())
            self._show_hit()

    def on_find_bar_done(self, message: FindBar.Done) -> None:
        message.stop()
        self.focus()

    def on_find_bar_ended(self, message: FindBar.Ended) -> None:
        message.stop()
        self.action_end_find()

    def action_find_step(self, delta: int) -> None:
        if self.finding is not None:
            self.finding.step(delta)
            self._show_hit()

    def action_end_find(self) -> None:
        self.finding = None
        self.query_one(FindBar).display = False
        self.redraw()
        self.focus()

    def _count(self) -> None:
        self.query_one(FindBar).count(self.finding.counter if self.finding else "")

    def _body_width(self) -> int:
        return self.query_one("#detail-body", Static).content_region.width

    def _top_offset(self) -> int:
        """Where in the pane's text the first line in view starts (finding begins there)."""
        starts = line_starts(self.text, self._body_width())
        return starts[min(round(self.scroll_y), len(starts) - 1)] if starts else 0

    def _show_hit(self) -> None:
        """Mark the hits (the current one apart), count them, and bring the current one into view."""
        self.redraw()
        finding = self.finding
        row = finding.row(self._body_width()) if finding else None
        if row is not None and not self.scroll_y <= row < self.scroll_y + self.scrollable_content_region.height:
            self.call_after_refresh(self.scroll_to, y=max(0, row - self.scrollable_content_region.height // 3),
                                    animate=False)
