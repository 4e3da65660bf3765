"""A progress bar on stderr for big imports (only when stderr is a terminal)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
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
