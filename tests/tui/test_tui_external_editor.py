"""N: a note written in the user's own editor, the app suspended meanwhile; saved unless
unchanged, and a missing editor is one line. The editor here is a real program (a script)."""

from __future__ import annotations

import contextlib
import sys

import pytest

from catalog.tui.app import CatalogApp

SIZE = (100, 30)


@pytest.fixture
def editor(tmp_path, monkeypatch):
    """$EDITOR: a script appending `text` to the file it is given (nothing when empty); the
    app's suspend is a no-op (Pilot's headless terminal cannot be given away)."""
    monkeypatch.setattr(CatalogApp, "suspend", lambda self: contextlib.nullcontext())
    script = tmp_path / "fake_editor.py"
    written = tmp_path / "append.txt"
    script.write_text("import sys, pathlib\n"
                      f"extra = pathlib.Path({str(written)!r}).read_text()\n"
                      "with open(sys.argv[1], 'a') as f: f.write(extra)\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)

    def will_add(text: str) -> None:
        written.write_text(text)
    return will_add


async def test_N_writes_a_new_note_then_edits_it_in_the_editor(app, seeded, settle, editor):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = app.main.papers.current.key
        editor("# Plan\n\n- read **section 3**\n")
        await pilot.press("N")
        await settle(pilot)
        assert [n.body.strip() for n in seeded.get(key).notes] == ["# Plan\n\n- read **section 3**"]
        editor("- and the appendix\n")
        await pilot.press("N")
        await pilot.press("1")  # edit note 1
        await settle(pilot)
        assert seeded.get(key).notes[0].body.strip().endswith("- and the appendix")
        assert len(seeded.get(key).notes) == 1
        await pilot.press("u")
        await settle(pilot)
        assert not seeded.get(key).notes[0].body.strip().endswith("appendix")


async def test_an_unchanged_note_is_not_saved_and_a_missing_editor_is_one_line(app, seeded, settle, editor, monkeypatch):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = app.main.papers.current.key
        editor("")
        await pilot.press("N")
        await settle(pilot)
        assert seeded.get(key).notes == ()
        assert "Note not saved: the editor left it empty" in app.posted_toasts
        monkeypatch.setenv("EDITOR", "no-such-editor-anywhere")
        await pilot.press("N")
        await settle(pilot)
        assert any(t.startswith("editor 'no-such-editor-anywhere' not found") for t in app.posted_toasts)
        monkeypatch.delenv("EDITOR")
        await pilot.press("N")
        await settle(pilot)
        assert any(t.startswith("no editor: set $EDITOR") for t in app.posted_toasts)
        assert seeded.get(key).notes == ()
