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
