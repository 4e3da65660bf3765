"""The UI thread's time when the counts of a very wide catalog arrive: what the sidebar and the
screen do with them (the tree's nodes, the venue column's width), while the counting and
grouping run in the sidebar's worker. The counts are those of a million-paper catalog's width
(5,000 venues over 11 years, 100,000 authors: benchmarks.corpus.wide_records), handed to the
seeds' TUI, so the figure needs no million-paper catalog (whose counts, read from the
database, take seconds in the worker and no longer on the UI thread).

    python -m benchmarks.tui_facets_wide [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import random
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.corpus import YEARS, wide_venues

VENUES, AUTHORS = 5_000, 100_000


def wide_facets(facets):
    """`facets` (the seeds') with a million-paper catalog's venue-years and authors."""
    from catalog.results import AuthorCount

    rng = random.Random(5)
    venues = tuple((name, year, rng.randint(1, 400)) for name in wide_venues(VENUES) for year in YEARS)
    authors = tuple(sorted((AuthorCount(f"Author {i:06d}", rng.randint(1, 60)) for i in range(AUTHORS)),
                           key=lambda a: -a.papers))
    return dataclasses.replace(facets, venues=venues, authors=authors, total=1_000_000, catalog_total=1_000_000)


async def _session(db: Path, rounds: int) -> list[float]:
    from catalog.library import Catalog
    from catalog.tui.app import CatalogApp
    from catalog.tui.facetlist import top_authors, venue_entries
    from catalog.tui.messages import FacetsLoaded
    from catalog.tui.widgets.sidebar import Sidebar

    app = CatalogApp(Catalog.open(db), cursor_blink=False)
    took = []
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(1.0)
        screen, sidebar = app.main, app.main.sidebar
        facets = wide_facets(app.catalog.facets(sidebar.asked))
        venues, authors = venue_entries(facets), top_authors(facets, set())  # the worker's part
        for _ in range(rounds):
            start = time.perf_counter()  # what the UI thread runs for the message and the next
            sidebar.on_facets_loaded(FacetsLoaded(sidebar.asked, facets, venues, authors))
            screen.on_sidebar_counted(Sidebar.Counted(facets))
            took.append((time.perf_counter() - start) * 1000)
            await pilot.pause(0.05)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    from catalog.library import Catalog
    from catalog.resources import seeds_dir

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "seeds.db"
        catalog = Catalog.open(db)
        catalog.import_paths([seeds_dir()])
        catalog.close()
        took = sorted(asyncio.run(_session(db, args.rounds)))
    print(f"UI thread per arrival of 1M-wide counts ({VENUES:,} venues x {len(YEARS)} years, {AUTHORS:,}"
          f" authors; {len(took)} rounds): median {statistics.median(took):.1f} ms,"
          f" p95 {took[round(0.95 * (len(took) - 1))]:.1f} ms, slowest {took[-1]:.1f} ms")


if __name__ == "__main__":
    main()
