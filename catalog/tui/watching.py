"""Changes made elsewhere (another `catalog` command, another person): the catalog's version
is read every POLL seconds, off the UI thread; when it moves, ChangeWatch says so and the
catalog screen shows the change. Not while the user types into the search bar: the searches
typed read the change anyway, and a refresh each second while another process imports (its
search, count and counts) made the keys typed meanwhile wait (docs/benchmarks.md, "The TUI
during a PDF import"). Nor while the screen's search is on its way: a refresh would cancel it
and search again (at a million papers each refresh replaced a typed search taking seconds).
The change is shown at the first look after the keys pause and the search came."""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.message import Message
from textual.widget import Widget

from catalog.library import Catalog
from catalog.tui.messages import CatalogChanged
from catalog.tui.waiting import Typing, now

POLL = 1.0  # seconds between looks at whether the catalog changed elsewhere
# Seconds without a key typed into the search bar before a change is shown. Longer than the
# counts' SETTLE: on a loaded machine a steady typist's keys came more than SETTLE apart (each
# waiting for its results), and a refresh came between most of them (43 during one typing).
QUIET = 2.0


class ChangeWatch(Widget):
    """Polls the catalog's version (shows nothing)."""

    class Changed(Message):
        """Someone committed a change since the catalog was last looked at."""

    def __init__(self, catalog: Catalog, typing: Typing | None = None,
                 busy: Callable[[], bool] | None = None) -> None:
        super().__init__()
        self.catalog = catalog
        self.typing = typing  # the search bar's keys: no refresh while they come
        self.busy = busy  # true while the screen's search is on its way: no refresh then either
        self.version: int | None = None  # as last seen (None: not read yet)
        self.polling = False  # a look is under way

    def on_mount(self) -> None:
        self.poll()  # the version the first results show
        self.set_interval(POLL, self.poll)

    def poll(self) -> None:
        """One PRAGMA, off the UI thread; a look still under way (a busy disk) is not doubled."""
        if not self.polling:
            self.polling = True
            self._read_version()

    @work(thread=True, group="poll", exit_on_error=False)
    def _read_version(self) -> None:
        try:
            version = self.catalog.version()
        except Exception:  # a busy or vanished file: ask again next time
            version = None
        self.post_message(CatalogChanged(version))

    def on_catalog_changed(self, message: CatalogChanged) -> None:
        message.stop()
        self.polling = False
        if message.version is None or message.version == self.version:
            return
        first = self.version is None
        if not first and ((self.typing is not None and now() < self.typing.at + QUIET)
                          or (self.busy is not None and self.busy())):
            return  # not seen yet: the next look after the keys pause (or the search came) says so
        self.version = message.version
        if not first:
            self.post_message(self.Changed())
