"""Taking papers out of the app: open a paper's page in the browser, copy its key, BibTeX,
\\cite{} or link to the clipboard, export marked papers or all results to a file.

Sharing is a widget of the catalog screen that shows nothing: reads run in its thread
workers, which post messages it handles; the browser is started from a worker too (a
`$BROWSER` command may take its time). Clipboard text goes out through Textual's
copy_to_clipboard (OSC 52: works over SSH, in tmux with set-clipboard on) and the desktop's
clipboard tool when there is one (catalog/desktop/clipboard.py); the message says which took it."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.message import Message
from textual.widget import Widget

from catalog.desktop.clipboard import system_copy
from catalog.errors import CatalogError
from catalog.library import Catalog
from catalog.searching.query import QueryError
from catalog.results import ExportPaper, PaperSummary
from catalog.tui.display import first_line, shorten
from catalog.tui.host import CatalogHost
from catalog.tui.messages import ActionFailed, Copied, Exported, FileAttached, LinkOpened
from catalog.tui.screens.confirm import ConfirmScreen
from catalog.tui.screens.pickers import Choice, ChoiceScreen

Render = Callable[[list[ExportPaper]], str]


def _bibtex(papers: list[ExportPaper]) -> str:
    from catalog.export import bibtex

    out = io.StringIO()
    bibtex.write(papers, out)
    return out.getvalue()


def _cite(papers: list[ExportPaper]) -> str:
    from catalog.export.citekeys import citation_keys

    return "\\cite{" + ",".join(citation_keys(papers)) + "}"


def _markdown(papers: list[ExportPaper]) -> str:
    from catalog.export import markdown

    return "\n".join(line for p in papers for line in markdown.paper(p)) + "\n"


def _links(papers: list[ExportPaper]) -> str:
    return "\n".join(p.link for p in papers if p.link)


# key -> (what the menu says, what the toast says, how to make the text from the papers)
COPY: dict[str, tuple[str, str, Render | None]] = {
    "y": ("the key", "key", None),
    "b": ("the BibTeX entry", "BibTeX", _bibtex),
    "c": ("a \\cite{…} with its citation key", "\\cite", _cite),
    "m": ("a Markdown reference (title, link, authors)", "Markdown reference", _markdown),
    "l": ("the link: URL, DOI or arXiv page", "link", _links),
}


def export_papers(catalog: Catalog, keys: list[str]) -> list[ExportPaper]:
    """These papers, in this order."""
    return catalog.exchange.export_papers(keys=keys)


class Sharing(Widget):
    """The catalog screen's ways out: browser, clipboard, files (shows nothing)."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__()
        self.catalog = catalog

    @property
    def main(self) -> CatalogHost:
        return self.screen

    def say(self, message: str, **kwargs) -> None:
        self.notify(message, markup=False, **kwargs)

    # --- open -----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="browse", exit_on_error=False)
    def browse(self, key: str, *, link: bool = False) -> None:
        """Open paper `key`'s PDF (its first attached file that is here), else its page in the
        browser (its URL, DOI or arXiv page); with `link`, its page whatever it has."""
        try:
            detail = self.catalog.get(key)
            attached = None if link else self.catalog.files.file_to_open(key)
        except Exception as exc:
            self.post_message(ActionFailed(f"cannot open {key}: {first_line(exc)}"))
            return
        if attached is not None:
            from catalog.desktop import browser

            # The opener's output goes to /dev/null (browser.open_file): never onto the screen.
            self.post_message(LinkOpened(detail.summary.title, attached.location,
                                         browser.open_file(attached.location), file=True))
            return
        if detail.link is None:
            self.post_message(LinkOpened(detail.summary.title, None, False))
            return
        from catalog.desktop import browser  # here: only opening a paper needs it

        try:
            link = browser.openable(detail.link)
        except CatalogError as exc:  # a `file:` link an older catalog kept
            self.post_message(ActionFailed(str(exc)))
            return
        # Quiet: whatever the browser prints must not land on the app's screen.
        try:
            opened = browser.open_link(link, quiet=True)
        except Exception:  # webbrowser's own errors: no browser, as far as the user can tell
            opened = False
        self.post_message(LinkOpened(detail.summary.title, link, opened))

    def on_link_opened(self, message: LinkOpened) -> None:
        message.stop()
        title = shorten(message.title)
        if message.file:
            if message.opened:
                self.say(f"Opened {message.link}", timeout=3)
            else:
                self.say(f"No program to open {message.link} (set $CATALOG_OPENER)", severity="warning", timeout=8)
        elif message.link is None:
            self.say(f"{title} has no URL, DOI or arXiv id to open", severity="warning")
        elif message.opened:
            self.say(f"Opened {message.link}", timeout=3)
        else:
            self.say(f"No browser found (set $BROWSER): {message.link}", severity="warning", timeout=8)
            self.to_clipboard(message.link, "the link")

    # --- attach ---------------------------------------------------------------------------

    def ask_file(self, key: str) -> None:
        """Ask for a file (its path completed as it is typed) and attach it to paper `key`."""
        from catalog.tui.screens.prompt import PathSuggester, PromptScreen

        def chosen(path: str | None) -> None:
            if path and path.strip():
                self._attach_file(key, path.strip())

        self.app.push_screen(PromptScreen(
            f"Attach a file to {key}", "", placeholder="~/Downloads/paper.pdf", suggester=PathSuggester(),
            hint="→ takes the completion · enter attaches (a PDF's text is read for search) · escape cancels"),
            chosen)

    @work(thread=True, group="attach", exit_on_error=False)
    def _attach_file(self, key: str, path: str) -> None:
        try:
            attachment, new = self.catalog.files.attach_file(key, Path(path).expanduser())
            read = dict((a.id, state) for a, state in self.catalog.files.read_texts()) if attachment.is_pdf else {}
        except Exception as exc:  # a file that is not there, a busy database: one line
            self.post_message(ActionFailed(f"cannot attach {path}: {first_line(exc)}"))
            return
        self.post_message(FileAttached(key, attachment.name, new, read.get(attachment.id)))

    def on_file_attached(self, message: FileAttached) -> None:
        message.stop()
        if not message.new:
            self.say(f"{message.name} is attached to {message.key} already", timeout=4)
        elif message.text in (None, "text"):
            self.say(f"Attached {message.name} to {message.key}", timeout=4)
        else:
            self.say(f"Attached {message.name} to {message.key}; its text is not searched ({message.text})",
                     severity="warning", timeout=8)
        main = self.main
        if main.papers.current is not None and main.papers.current.key == message.key:
            known = main.pane.known  # the search whose words the pane marks
            main.pane.load(message.key, known[0] if known else None)

    # --- copy -----------------------------------------------------------------------------

    def copy_menu(self) -> None:
        self.main.with_targets(self._copy_menu)

    def _copy_menu(self, papers: list[PaperSummary]) -> None:
        what = shorten(papers[0].title) if len(papers) == 1 else f"{len(papers):,} marked papers"
        choices = [Choice(key, Text(label), key) for key, (label, _, _) in COPY.items()]

        def picked(choice: Choice | None) -> None:
            if choice is not None:
                self.copy(papers, choice.value)

        self.app.push_screen(ChoiceScreen(f"Copy {what}", choices), picked)

    def copy(self, papers: list[PaperSummary], kind: str) -> None:
        if COPY[kind][2] is None:  # the keys: nothing to read
            self.post_message(Copied(" ".join(p.key for p in papers), COPY[kind][1], len(papers)))
        else:
            self._copy(self.catalog, [p.key for p in papers], kind)

    @work(thread=True, exclusive=True, group="copy", exit_on_error=False)
    def _copy(self, catalog: Catalog, keys: list[str], kind: str) -> None:
        _, label, render = COPY[kind]
        try:
            papers = export_papers(catalog, keys)
            text = render(papers)
        except Exception as exc:
            self.post_message(ActionFailed(f"nothing copied: {first_line(exc)}"))
            return
        self.post_message(Copied(text, label, len(papers)))

    def on_copied(self, message: Copied) -> None:
        message.stop()
        if not message.text.strip():
            self.say(f"Nothing to copy: no {message.label}", severity="warning")
            return
        if message.papers == 1 and "\n" not in message.text.strip():
            what = shorten(message.text.strip(), 60)
        else:
            count = f"{message.papers} papers" if message.papers != 1 else "1 paper"
            what = f"the {message.label} of {count}"
        self.to_clipboard(message.text, what)

    def to_clipboard(self, text: str, what: str) -> None:
        """`text` to the terminal's clipboard (OSC 52: over SSH too, if the terminal takes it)
        and the desktop's (its tool, in a worker); then say which took it."""
        self.app.copy_to_clipboard(text)
        self._system_copy(text, what)

    @work(thread=True, exclusive=True, group="clipboard", exit_on_error=False)
    def _system_copy(self, text: str, what: str) -> None:
        self.post_message(self.ClipboardTried(what, system_copy(text)))

    @dataclass
    class ClipboardTried(Message):
        """The desktop's clipboard tool took the text (`tool`), or there was none (None)."""

        what: str
        tool: str | None

    def on_sharing_clipboard_tried(self, message: ClipboardTried) -> None:
        message.stop()
        if message.tool is not None:
            self.say(f"Copied {message.what} to the clipboard", timeout=3)
        else:  # OSC 52 alone: the terminal may have ignored it, and nothing says whether
            self.say(f"Sent {message.what} to the terminal's clipboard (OSC 52; if nothing pastes, "
                     "the terminal ignores it: in tmux, set -g set-clipboard on)", timeout=6)

    # --- export -----------------------------------------------------------------------------

    def export(self) -> None:
        from catalog.tui.screens.export import ExportScreen  # its widgets load when first used

        papers = self.main.papers
        if not papers.total and not papers.marked:
            self.say("Nothing to export: no papers in these results")
            return

        def chosen(request) -> None:  # an ExportRequest, or None
            if request is None:
                return
            # A vault is written again in place: what the reader wrote in it is kept. What is
            # not a file (a pipe, a device) is refused by the export itself, without asking.
            if request.path.is_file() and request.format != "vault":
                self.app.push_screen(
                    ConfirmScreen(f"{request.path} exists. Replace it?", yes="Replace", no="Cancel"),
                    lambda yes: yes and self._start_export(request, force=True))
            else:
                self._start_export(request)

        self.app.push_screen(ExportScreen(len(papers.marked), papers.total, papers.query_text,
                                          Path.cwd()), chosen)

    def _start_export(self, request, *, force: bool = False) -> None:
        papers = self.main.papers
        keys = list(papers.marked) if request.marked else None
        self._export(self.catalog, request, papers.query_text, keys, force)

    @work(thread=True, group="export", exit_on_error=False)
    def _export(self, catalog: Catalog, request, query: str,
                keys: list[str] | None, force: bool) -> None:
        """The results (the query the list shows), or the marked papers (`keys`); an existing
        file only when the reader said to replace it (`force`)."""
        try:
            report = catalog.exchange.export(query, request.format, request.path, keys=keys, force=force)
        except (CatalogError, QueryError) as exc:
            self.post_message(ActionFailed(str(exc)))
            return
        except Exception as exc:
            self.post_message(ActionFailed(f"export failed: {first_line(exc)}"))
            return
        self.post_message(Exported(report.papers, request.format, str(request.path),
                                   report.unchanged, report.skipped))

    def on_exported(self, message: Exported) -> None:
        message.stop()
        count = f"{message.papers} {'paper' if message.papers == 1 else 'papers'}"
        up_to_date = f"; {message.unchanged} already up to date" if message.unchanged else ""
        self.say(f"Exported {count} as {message.format} to {message.path}{up_to_date}", timeout=5)
        for skipped in message.skipped:  # vault files without the marker line: left alone
            self.say(f"skipped {skipped}", severity="warning", timeout=8)
