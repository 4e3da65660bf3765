"""Every built-in theme keeps every column of the paper list readable.

The check reads what the screen really shows (the compositor's segments, after Textual has
applied the theme) and computes the WCAG contrast ratio of each piece of text against its
own background, independently of catalog/tui/colors.py."""

from __future__ import annotations

from rich.terminal_theme import DEFAULT_TERMINAL_THEME

from catalog.tui.widgets.rows import Columns

SIZE = (160, 30)


def _luminance(rgb) -> float:
    def channel(v: int) -> float:
        v = v / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _ratio(fg, bg) -> float:
    high, low = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _rgb(color, foreground: bool):
    # ANSI themes use the terminal's palette; a common one (rich's default) stands in for it.
    return tuple(color.get_truecolor(DEFAULT_TERMINAL_THEME, foreground=foreground))


def _list_cells(app):
    """(row on screen, first column, text, contrast) for every piece of text in the list."""
    papers = app.main.papers
    region = papers.scrollable_content_region
    strips = app.screen._compositor.render_strips()
    out = []
    for y in range(region.y, region.bottom):
        x = 0
        for seg in strips[y].crop(region.x, region.right):
            text = seg.text.strip()
            if text:
                style = seg.style
                assert style is not None and style.color and style.bgcolor, (y, seg)
                fg, bg = _rgb(style.color, True), _rgb(style.bgcolor, False)
                if style.reverse:
                    fg, bg = bg, fg
                out.append((y - region.y, x + len(seg.text) - len(seg.text.lstrip()), text,
                            _ratio(fg, bg)))
            x += seg.cell_length
    return out


async def test_every_theme_keeps_every_column_readable(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.main.papers
        await pilot.press("down", "down", "space", "up", "up")  # row 3 marked, cursor on row 1
        themes = sorted(app.available_themes)
        assert {"textual-light", "catppuccin-latte", "textual-dark", "nord"} <= set(themes)
        for theme in themes:
            app.theme = theme
            for focused in (True, False):
                (papers.focus if focused else app.main.search_bar.input.focus)()
                await pilot.pause()
                cols = Columns.fit(papers.scrollable_content_region.width, papers.venue_width,
                                   papers.with_authors)
                venue_at = 2 + cols.title + 1 + (cols.authors + 1 if cols.authors else 0)
                cells = _list_cells(app)
                assert len({row for row, *_ in cells}) > 10, theme
                for row, x, text, ratio in cells:
                    where = f"{theme} (list focused: {focused}) row {row} at {x}: {text!r}"
                    assert ratio >= 3.0, f"{where} has contrast {ratio:.2f}"
                    if 2 <= x < venue_at - 1 and row > 0:  # titles
                        assert ratio >= 4.5, f"{where}: a title with contrast {ratio:.2f}"
                # Muted columns (venue, year) never outshine the titles on plain rows.
                for row in {r for r, *_ in cells if r > 3}:
                    title = [c for r, x, _, c in cells if r == row and 2 <= x < venue_at - 1]
                    venue = [c for r, x, _, c in cells if r == row and venue_at <= x < venue_at + cols.venue]
                    if title and venue:
                        assert venue[0] <= title[0] + 0.01, f"{theme} row {row}: venue brighter than title"
