"""Charts of a catalog's statistics (catalog/parts/statistics.py) as terminal text, drawn with plotext:
`catalog stats --plot` prints them, the TUI's statistics screen shows them. Each is plain text
without colour codes, drawn in the terminal's (or the theme's) own foreground, so it reads
in light and dark themes alike. plotext is imported here only: no other command loads it."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from catalog.parts.statistics import Charts

HEIGHT = 14  # rows per chart: one fits an 80x24 terminal with a title and a footer
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LABEL = 22  # a venue's name in the top venues chart, at most
# plotext draws on one module-wide figure; two threads (the TUI's worker and a redraw) must
# not interleave.
_lock = threading.Lock()


@dataclass(frozen=True)
class Chart:
    title: str
    text: str  # the drawing, or a sentence when there is nothing to draw


def draw(charts: Charts, width: int = 80) -> list[Chart]:
    width = max(40, width)
    years = charts.per_year
    out = [Chart(f"Papers per year ({charts.papers:,} papers"
                 + (f", {charts.undated:,} without a year)" if charts.undated else ")"),
                 _bars([y for y, _ in years], [n for _, n in years], width) if years
                 else "No paper has a year yet.")]
    venues = charts.top_venues
    out.append(Chart(f"Top {len(venues)} venues" if venues else "Top venues",
                     _hbars([_short(v) for v, _ in venues], [n for _, n in venues], width) if venues
                     else "No paper has a venue yet."))
    rated = [(r, n) for r, n in charts.ratings if r is not None]
    rated = rated if any(n for _, n in rated) else []
    unrated = sum(n for r, n in charts.ratings if r is None)
    out.append(Chart(f"Ratings ({unrated:,} unrated)" if unrated else "Ratings",
                     _hbars(["★" * r for r, _ in rated], [n for _, n in rated], width) if rated
                     else "No paper is rated yet: r rates one (catalog rate KEY 4)."))
    weeks = charts.read_per_week
    read = sum(n for _, n in weeks)
    out.append(Chart(f"Papers read per week ({read:,} in {len(weeks)} weeks)",
                     _bars([d.strftime("%m-%d") for d, _ in weeks], [n for _, n in weeks], width) if read
                     else f"No paper marked read in the last {len(weeks)} weeks."))
    if charts.tag is None:
        out.append(Chart("A tag over the years", "No tags yet: t tags a paper (catalog tag KEY +name)."))
    else:
        tagged = charts.tag_per_year
        out.append(Chart(f"Papers tagged {charts.tag}, by year",
                         _bars([y for y, _ in tagged], [n for _, n in tagged], width) if tagged
                         else f"No paper tagged {charts.tag} has a year."))
    return out


def _short(name: str) -> str:
    from catalog.text.terminal import safe

    name = " ".join(safe(name).split())
    return name if len(name) <= _LABEL else name[:_LABEL - 1] + "…"


def _bars(labels: list, values: list[int], width: int) -> str:
    def plot(plt) -> None:
        plt.bar(labels, values, marker="sd", width=0.8)
    return _build(plot, values, width, HEIGHT)


def _hbars(labels: list[str], values: list[int], width: int) -> str:
    """One row per bar, its count after it. Drawn here, not by plotext: its horizontal bars
    drop labels when there are more bars than rows, and take two rows each otherwise."""
    if not values:
        return ""
    pad = max(len(label) for label in labels)
    room = max(1, width - pad - 2 - len(f"{max(values):,}") - 1)
    top = max(values) or 1
    return "\n".join(f"{label.rjust(pad)}  {'█' * max(1 if n else 0, round(n / top * room))} {n:,}"
                     for label, n in zip(labels, values))


def _build(plot, values: list[int], width: int, height: int) -> str:
    import plotext as plt

    top = max(values) or 1
    step = max(1, -(-top // 4))  # about four whole-number ticks: counts have no fractions
    ticks = list(range(0, top + step, step))
    with _lock:
        plt.clear_figure()
        plt.theme("clear")
        plt.limit_size(False, False)  # the width asked, not the terminal's (a TUI pane, --width)
        plt.plotsize(width, height)
        plot(plt)
        plt.yticks(ticks)
        text = plt.build()
        plt.clear_figure()
    return "\n".join(line.rstrip() for line in _ANSI.sub("", text).splitlines())
