"""What `catalog stats --plot` and the TUI's statistics screen draw: papers per year, the top
venues, ratings, papers read per week and one tag over the years, as plain counts (drawing
them is catalog/parts/charts.py's). Reached as `catalog.statistics` (given the Catalog, whose
stats and tags it reads). Papers read per week count when each was last marked read: a
paper marked read, then changed to another status, no longer counts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta


TOP_VENUES = 10
WEEKS = 12  # papers read per week: this week and the eleven before


@dataclass(frozen=True)
class Charts:
    papers: int
    per_year: tuple[tuple[int, int], ...]  # year, papers (years without papers in between: 0)
    undated: int  # papers without a year
    top_venues: tuple[tuple[str, int], ...]  # most papers first
    ratings: tuple[tuple[int | None, int], ...]  # 5 stars .. 1, then None (unrated)
    read_per_week: tuple[tuple[date, int], ...]  # the Monday of each week, papers marked read
    tag: str | None  # the tag followed over the years (the most used one unless asked)
    tag_per_year: tuple[tuple[int, int], ...]


class Statistics:
    def __init__(self, catalog):  # the Catalog (not imported: it imports this part)
        self.catalog = catalog

    def charts(self, tag: str | None = None, *, today: date | None = None) -> Charts:
        """The counts behind every chart; `tag`: the tag to follow (a CatalogError when unknown)."""
        from catalog import rules
        from catalog.errors import CatalogError

        catalog = self.catalog
        stats = catalog.stats()
        years, venues, undated = Counter(), Counter(), 0
        for venue, year, n in stats.by_venue:
            venues[venue] += n
            if year is None:
                undated += n
            else:
                years[year] += n
        tags = catalog.tags()
        if tag is not None:
            tag = rules.tag_name(tag)
            folded = tag.casefold()
            if not any(t.name.casefold() == folded or t.name.casefold().startswith(folded + "/") for t in tags):
                raise CatalogError(f"no tag {tag!r} in this catalog (`catalog tags` lists them)")
        elif tags:
            tag = max(tags, key=lambda t: t.count).name
        tag_years = Counter()
        with catalog.store.read() as tx:
            read = tx.papers.read_times()
            if tag is not None:  # as tag: finds them, children too
                tag_years.update(tx.papers.year_counts(tx.discovery.tagged_papers(tag)))
        return Charts(
            papers=stats.papers, per_year=_filled(years), undated=undated,
            top_venues=tuple((v, n) for v, n in venues.most_common(TOP_VENUES + 1) if v != "?")[:TOP_VENUES],
            ratings=_ratings(stats.by_rating),
            read_per_week=_weeks(read, today or date.today()),
            tag=tag, tag_per_year=_filled(tag_years),
        )


def _ratings(rows) -> tuple[tuple[int | None, int], ...]:
    """Every rating from 5 stars to 1 (0 where none), then the unrated."""
    counts = dict(rows)
    return tuple((r, counts.get(r, 0)) for r in range(5, 0, -1)) + (((None, counts[None]),) if counts.get(None) else ())


def _filled(counts: Counter) -> tuple[tuple[int, int], ...]:
    """Every year from the first to the last, 0 where none (a gap shows as a gap)."""
    if not counts:
        return ()
    return tuple((y, counts.get(y, 0)) for y in range(min(counts), max(counts) + 1))


def _weeks(times: list, today: date) -> tuple[tuple[date, int], ...]:
    monday = today - timedelta(days=today.weekday())
    starts = [monday - timedelta(weeks=i) for i in range(WEEKS - 1, -1, -1)]
    counted = Counter()
    for when in times:
        if isinstance(when, str):  # SQLite gives text
            when = datetime.fromisoformat(when)
        day = when.date() if isinstance(when, datetime) else when
        counted[day - timedelta(days=day.weekday())] += 1
    return tuple((start, counted.get(start, 0)) for start in starts)
