"""What the screen shows: nothing cut mid-word or without an ellipsis, rendered emphasis and
math, notes as Markdown."""

from __future__ import annotations

from catalog.tui.app import CatalogApp
from tests.tui.conftest import screen_text, toasts

SIZE = (120, 36)


async def test_the_title_dialog_hint_is_shown_whole_at_120_columns(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        shown = " ".join(screen_text(app, app.screen.query_one(".dialog-hint")).split())
        assert "empty goes back to the derived headline · escape cancels" in shown


async def test_toasts_shorten_long_titles_with_an_ellipsis(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        title = app.main.papers.current.title
        assert len(title) > 40
        await pilot.press("s", "3")
        await settle(pilot)
        message = toasts(app)
        assert "…: reading" in message, message
        shown = message.split("…")[0]
        assert title.startswith(shown) and len(shown) <= 40
        assert title[len(shown)] in " ,;:-", "cut at a word boundary"


async def test_the_empty_catalog_message_wraps_at_100_columns(empty_catalog, settle):
    from catalog.tui.app import CatalogApp

    app = CatalogApp(empty_catalog, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        shown = " ".join(screen_text(app, app.main.papers).split())
        assert "Import paper lists (text files, one abstract per paragraph) in a terminal:" in shown
        assert "then press R here to see them." in shown


def _pane_segments(app):
    """(text, style) of every segment the detail pane shows."""
    from textual.geometry import Region

    body = app.query_one("#detail-body")
    strips = body.render_lines(Region(0, 0, body.size.width, body.size.height))
    return [(seg.text, seg.style) for strip in strips for seg in strip if seg.text.strip()]


def _style_of(segments, words: str):
    found = [style for text, style in segments if text.strip() == words]
    assert found, f"{words!r} not shown"
    return found[0]


async def test_detail_shows_emphasis_scripts_and_markdown_notes(tmp_path, settle):
    from catalog.library import Catalog
    from catalog.tui.app import CatalogApp

    lists = tmp_path / "lists"
    lists.mkdir()
    (lists / "a.txt").write_text(
        "Styled 2026 Papers\n\nWe compress keys into $M$ prototypes, where $M\\in\\mathbb{Z}_{>0}$, "
        "inspired by the *geometric insight* of attention, with **substantial** gains.\n",
        encoding="utf-8")
    catalog = Catalog.open(tmp_path / "c.db")
    catalog.import_paths([lists])
    key = catalog.search("")[0].key
    catalog.add_note(key, "# Plan\n\nRead *section 3* again, **twice**.\n\n- check `proof`\n"
                          "- see [the code](https://example.org/code)\n\n[b]literal[/b]")
    app = CatalogApp(catalog, cursor_blink=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        text = app.query_one("#detail").text
        abstract = text.split("\n\n")[1]  # (the headline above is stored text: not re-rendered)
        assert "where M∈ℤ>0, inspired" in abstract and "_{" not in abstract and "*" not in text
        segments = _pane_segments(app)
        assert _style_of(segments, "geometric insight").italic
        assert _style_of(segments, "substantial").bold
        assert _style_of(segments, ">0").italic  # the script, set apart
        # the note, rendered
        assert "# Plan" not in text and "Plan" in text
        assert _style_of(segments, "section 3").italic and _style_of(segments, "twice").bold
        assert "• check proof" in text and "the code (https://example.org/code)" in text
        assert "[b]literal[/b]" in text
        assert not any(style and style.link for _, style in segments)
    catalog.close()


async def test_a_long_venue_keeps_its_count_in_view(app, seeded, settle, tmp_path):
    """At 160 columns the sidebar showed `Monthly Notices of the Roy` and no count: the name
    is shortened (…) so the count stays on screen."""
    bib = tmp_path / "long.bib"
    bib.write_text("@article{m, title={Stars}, journal={Monthly Notices of the Royal Astronomical "
                   "Society}, year=2005}\n")
    seeded.import_paths([bib])
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        sidebar = app.main.query_one("#sidebar")
        lines = [line for line in screen_text(app, sidebar).splitlines() if "Monthly" in line]
        assert len(lines) == 1 and lines[0].rstrip(" │▎▊").endswith("… 1"), lines


async def test_a_long_tag_keeps_its_count_in_view(app, seeded, settle):
    """On a real library (jgrey4296's bibliography, 16k papers) the Tags facet showed
    `Computer-algebra-syst` and no count, at 80 columns and nested deeper too: tags are
    shortened as venues are."""
    keys = [p.key for p in seeded.search("", limit=3)]
    seeded.tag(keys[:1], add=["Computer-algebra-system"])
    seeded.tag(keys[1:3], add=["reading-group/autumn-term-presentations"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("b")  # the sidebar, hidden at 80 columns
        await settle(pilot)
        sidebar = app.main.query_one("#sidebar")
        text = screen_text(app, sidebar)
        algebra = [line for line in text.splitlines() if "Computer-alg" in line]
        assert len(algebra) == 1 and algebra[0].rstrip(" │▎▊▁▂▃▄▅▆▇█").endswith("… 1"), algebra
        autumn = [line for line in text.splitlines() if "autumn" in line]
        assert len(autumn) == 1 and autumn[0].rstrip(" │▎▊▁▂▃▄▅▆▇█").endswith("… 2"), autumn


async def test_a_wide_screen_gives_venues_room_and_no_empty_tags_column(app, seeded, settle, tmp_path):
    """At 160x48 on a real library the venue column stayed 12 cells (`Journal of …`,
    `Communicati…`) beside a Tags column 30 cells wide that no paper on screen filled."""
    bib = tmp_path / "jasss.bib"
    bib.write_text("@article{j, title={Agents in a market}, author={Ann Lee}, journal={Journal of "
                   "Artificial Societies and Social Simulation}, year=2019}\n")
    seeded.import_paths([bib])
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"agents market", "enter")
        await settle(pilot, typing=True)
        papers = app.main.papers
        lines = screen_text(app, papers).splitlines()
        assert "Tags" not in lines[0], lines[0]
        row = next(line for line in lines if "Agents in a market" in line)
        assert "Journal of Artificia" in row, row  # 12 cells showed "Journal of …"
        seeded.tag([papers.current.key], add=["abm"])
        await pilot.press("R")
        await settle(pilot)
        assert "Tags" in screen_text(app, papers).splitlines()[0]
    narrow = CatalogApp(seeded, cursor_blink=False)
    async with narrow.run_test(size=(80, 24)) as pilot:  # narrow: the title keeps its room
        await settle(pilot)
        await pilot.press("slash", *"agents market", "enter")
        await settle(pilot, typing=True)
        assert narrow.main.papers.columns().venue == 12
