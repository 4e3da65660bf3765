"""Progress on stderr for big imports: a bar for the papers and one for the ranked lists
ranked after them (only when stderr is a terminal), and what the lists took."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from time import monotonic
from pathlib import Path

BIG_IMPORT_BYTES = 5_000_000


def _total_bytes(paths) -> int:
    total = 0
    for path in paths:
        p = Path(path)
        if p.is_file():
            total += p.stat().st_size
        elif p.is_dir():
            return BIG_IMPORT_BYTES  # a folder: assume big enough to show progress
    return total


@contextmanager
def import_progress(paths) -> Iterator:
    """Yields a callback taking the number of papers just processed."""
    if not sys.stderr.isatty() or _total_bytes(paths) < BIG_IMPORT_BYTES:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("importing"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("papers"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("import", total=None)
        yield lambda n: bar.advance(task, n)


@dataclass
class Ranking:
    """How far the ranking of lists after an import got: `advance(done, of)` is the library's
    callback; a bar shows it on a terminal."""

    done: int = 0
    of: int = 0
    started: float | None = None
    seconds: float = 0.0
    bar: object = None
    task: object = None

    def advance(self, done: int, of: int) -> None:
        if self.started is None:
            self.started = monotonic()
        self.done, self.of = done, of
        self.seconds = monotonic() - self.started
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=of)

    @property
    def left(self) -> int:
        return self.of - self.done


@contextmanager
def ranking_progress() -> Iterator[Ranking]:
    """A Ranking; on a terminal with a bar: the lists of frequent words, minutes at 1M papers."""
    ranking = Ranking()
    if not sys.stderr.isatty():
        yield ranking
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("ranking lists of frequent words"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        ranking.bar, ranking.task = bar, bar.add_task("ranking", total=None)
        yield ranking
