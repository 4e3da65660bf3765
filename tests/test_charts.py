"""`catalog stats --plot`: charts a user can read (papers per year, top venues, ratings, papers
read per week, a tag over the years), and plotext loaded by that command only."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, datetime, timedelta

from click.testing import CliRunner

from catalog.parts import charts
from catalog.cli import main
from catalog.parts.statistics import Charts, _weeks
from tests.conftest import SEEDS, key_of


def test_the_charts_of_the_seeds_show_their_venues_ratings_reads_and_a_tag(seeded):
    keys = [p.key for p in seeded.search("attention", limit=6)]
    seeded.set_rating(keys[:2], 5)
    seeded.set_status(keys[:3], "read")
    seeded.tag(keys[:4], add=["transformers"])
    found = seeded.statistics.charts()
    assert found.papers == 90 and dict(found.top_venues) == {"ICML": 52, "ICLR": 38}
    assert dict(found.ratings)[5] == 2 and dict(found.ratings)[None] == 88
    assert found.read_per_week[-1][1] == 3  # marked read this week
    assert (found.tag, sum(n for _, n in found.tag_per_year)) == ("transformers", 4)
    drawn = {c.title: c.text for c in charts.draw(found, 80)}
    assert "Top 2 venues" in drawn and drawn["Top 2 venues"].splitlines()[0].startswith("ICML")
    assert drawn["Top 2 venues"].splitlines()[0].endswith(" 52")
    assert "Papers read per week (3 in 12 weeks)" in drawn
    assert "Papers tagged transformers, by year" in drawn
    for text in drawn.values():  # fits 80 columns, no colour codes
        assert all(len(line) <= 80 for line in text.splitlines()) and "\x1b" not in text


def test_weeks_count_reads_by_monday_and_keep_empty_weeks():
    today = date(2026, 12, 9)  # a Wednesday
    times = [datetime(2026, 12, 7, 9), "2026-12-08 10:00:00", datetime(2026, 11, 30, 23)]
    weeks = _weeks(times, today)
    assert len(weeks) == 12 and weeks[-1] == (date(2026, 12, 7), 2) and weeks[-2] == (date(2026, 11, 30), 1)
    assert weeks[0][0] == date(2026, 12, 7) - timedelta(weeks=11) and weeks[0][1] == 0


def test_an_empty_catalog_says_what_is_missing_instead_of_empty_axes():
    empty = Charts(0, (), 0, (), ((5, 0), (4, 0), (3, 0), (2, 0), (1, 0)), (), None, ())
    texts = [c.text for c in charts.draw(empty, 80)]
    assert texts[0] == "No paper has a year yet." and "rated" in texts[2] and "No tags yet" in texts[4]


def test_stats_plot_on_the_command_line(db_path, seeded):
    key = key_of(seeded, "sparse attention")
    seeded.tag([key], add=["sae"])
    seeded.close()
    out = CliRunner().invoke(main, ["--db", str(db_path), "stats", "--plot", "--width", "80"])
    assert out.exit_code == 0 and "Papers per year (90 papers)" in out.output
    assert "Papers tagged sae, by year" in out.output and "2026" in out.output
    bad = CliRunner().invoke(main, ["--db", str(db_path), "stats", "--plot", "--tag", "nope"])
    assert bad.exit_code == 1 and "no tag 'nope'" in bad.output and "Traceback" not in bad.output


def test_only_stats_plot_loads_plotext(tmp_path):
    db = tmp_path / "c.db"
    env = {**os.environ, "CATALOG_DB": str(db)}
    assert subprocess.run([sys.executable, "-m", "catalog", "import", str(SEEDS)], env=env,
                          capture_output=True).returncode == 0

    def loads_plotext(*args: str) -> bool:
        code = (f"import sys, runpy; sys.argv = ['catalog', *{list(args)!r}]\n"
                "try:\n    runpy.run_module('catalog', run_name='__main__')\nexcept SystemExit: pass\n"
                "print('PLOTEXT', 'plotext' in sys.modules)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        return "PLOTEXT True" in out.stdout

    assert not loads_plotext("stats") and not loads_plotext("search", "attention")
    assert loads_plotext("stats", "--plot")


def test_the_counts_are_alike_on_both_backends(seeded_any):
    keys = [p.key for p in seeded_any.search("attention", limit=3)]
    seeded_any.set_status(keys, "read")
    seeded_any.tag(keys[:2], add=["sae/reading"])
    found = seeded_any.statistics.charts("sae")
    assert found.read_per_week[-1][1] == 3 and sum(n for _, n in found.tag_per_year) == 2
    assert sum(n for _, n in found.per_year) + found.undated == 90


def test_large_counts_are_written_with_separators_as_everywhere_else():
    """A real library (16,378 papers): the screen's title said `16,378 papers`, the chart under
    it `(16378 papers, 80 without a year)` and `Ratings (16378 unrated)`."""
    big = Charts(16378, ((2024, 15000), (2025, 1298)), 80, (("arXiv", 12410), ("AAAI", 71)),
                 ((5, 0), (4, 0), (3, 0), (2, 0), (1, 0), (None, 16378)), (), None, ())
    drawn = {c.title: c.text for c in charts.draw(big, 80)}
    assert "Papers per year (16,378 papers, 80 without a year)" in drawn
    assert "Ratings (16,378 unrated)" in drawn
    venues = drawn["Top 2 venues"].splitlines()
    assert venues[0].endswith(" 12,410") and all(len(line) <= 80 for line in venues)
