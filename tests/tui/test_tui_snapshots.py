"""Snapshots at 120x36 from the seeded temp catalog. Regenerate with --snapshot-update only
after looking at the new SVGs (tests/tui/__snapshots__/)."""

from __future__ import annotations

SIZE = (120, 36)


def test_main_screen(snap_compare, app, settle):
    async def run_before(pilot):
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_detail_with_rendered_math(snap_compare, app, settle):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("slash", "M", "C", "R", "2", "enter")
        await settle(pilot, typing=True)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_tag_editor(snap_compare, app, seeded, settle):
    seeded.tag([seeded.search("MCR2")[0].key], add=["project/thesis", "toread"])

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("t", "p", "r", "o")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_help_screen(snap_compare, app, settle):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_light_theme_at_80x24(snap_compare, app, settle):
    """The smallest usual terminal, in a light theme (every column readable)."""

    async def run_before(pilot):
        pilot.app.theme = "textual-light"
        await settle(pilot)
        await pilot.press("space", "space")  # two marked rows
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_zoomed_reading_pane_with_a_note_at_160x48(snap_compare, app, seeded, settle, monkeypatch):
    """Emphasis, a note in Markdown, tags and rating, the reading pane zoomed."""
    from datetime import datetime

    from catalog.parts import changes

    monkeypatch.setattr(changes, "now", lambda: datetime(2026, 5, 4, 9, 30))  # the note's stamp
    key = seeded.search("PACEAttention")[0].key
    seeded.add_note(key, "# Why read\n\nThe *geometric* view of **MCR2**; compare `PLASH`.\n\n"
                         "- section 3: the update rule\n- [code](https://example.org/code)")
    seeded.tag([key], add=["project/thesis"])
    seeded.set_rating([key], 4)

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("slash", *"PACEAttention", "enter", "z")
        await settle(pilot, typing=True)

    assert snap_compare(app, terminal_size=(160, 48), run_before=run_before)
