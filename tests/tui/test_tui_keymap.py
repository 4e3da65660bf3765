"""Your own keys (keys.toml): a rebound key does the action, the footer and the help screen
show it, the old key no longer does, and a clash or an unknown name is one line at start-up."""

from __future__ import annotations

from click.testing import CliRunner

from catalog.cli import main
from catalog.tui import keymap
from catalog.tui.app import CatalogApp
from catalog.tui.screens.help import every_key
from catalog.tui.screens.stats import StatsScreen

SIZE = (100, 30)


def _keymap(tmp_path, text: str) -> keymap.Keymap:
    path = tmp_path / "keys.toml"
    path.write_text(text)
    return keymap.load(path)


async def test_a_rebound_key_acts_and_the_help_shows_it(seeded, tmp_path, settle):
    mine = _keymap(tmp_path, '[keys]\nstats = "ctrl+g"\n')
    assert mine.keys == {"stats": "ctrl+g"} and mine.problems == []
    app = CatalogApp(seeded, cursor_blink=False, keymap=mine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")  # the old key: nothing
        await settle(pilot)
        assert not isinstance(app.screen, StatsScreen)
        everywhere = dict((b.id, k) for k, b in every_key(app)[0][1])
        assert everywhere["stats"] == "^g"
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)


async def test_the_footer_shows_the_users_key(seeded, tmp_path, settle):
    app = CatalogApp(seeded, cursor_blink=False, keymap=_keymap(tmp_path, '[keys]\ntag = "ctrl+y"\n'))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        from textual.widgets import Footer

        footer = app.screen.query_one(Footer)
        shown = " ".join(str(k.render()) for k in footer.query("FooterKey"))
        assert "^y" in shown


def test_clashes_and_unknown_names_are_one_line_each(tmp_path):
    found = _keymap(tmp_path, '[keys]\ntag = "s"\nnope = "x"\nrate = "two words"\n')
    assert found.keys == {"tag": "s"}
    assert len(found.problems) == 3
    assert any("no key named 'nope'" in p for p in found.problems)
    assert any("is not a key" in p for p in found.problems)
    assert any(p.startswith("keys.toml: s is both Tag and Status") for p in found.problems)
    broken = _keymap(tmp_path, "[keys\n")
    assert broken.keys == {} and "not read" in broken.problems[0]
    assert keymap.load(tmp_path / "missing.toml").problems == []


async def test_a_clash_is_said_at_start_up_and_the_app_runs(seeded, tmp_path, settle):
    app = CatalogApp(seeded, cursor_blink=False, keymap=_keymap(tmp_path, '[keys]\ntag = "s"\n'))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert any("s is both Tag and Status" in t for t in app.posted_toasts)
        assert app.main.papers.current is not None


def test_the_cli_says_where_keys_are_read(tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_CONFIG_DIR", str(tmp_path))
    out = CliRunner().invoke(main, ["tui", "--keys-file"])
    assert out.exit_code == 0 and out.output.strip() == str(tmp_path / "keys.toml")


async def test_triage_keys_can_be_rebound_too(seeded, tmp_path, settle):
    app = CatalogApp(seeded, cursor_blink=False, keymap=_keymap(tmp_path, '[keys]\ntriage-queue = "w"\n'))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        first = app.screen.queue.current.key
        await pilot.press("w")
        await settle(pilot)
        queued = [p.key for p in seeded.search("status:queued")]
        assert queued == [first]


async def test_a_key_textual_never_sends_is_one_line_and_the_usual_key_stays(seeded, tmp_path, settle):
    """`tag = "ctrl-t"` (a dash, as some apps write it) was taken as is: Textual never sends a
    key of that name, so tagging had no key at all and nothing said why (found by hand)."""
    from catalog.tui.screens.tag_editor import TagEditor

    found = _keymap(tmp_path, '[keys]\ntag = "ctrl-t"\nrate = "ctrl+shift+banana"\nstatus = "Ctrl+S"\n'
                              'stats = "I,f7"\nnote = "ctrl+e,ctrl+question_mark"\n')
    assert found.keys == {"stats": "I,f7", "note": "ctrl+e,ctrl+question_mark"}
    assert len(found.problems) == 3 and all("is not a key" in p for p in found.problems)
    assert any("'ctrl-t'" in p for p in found.problems)
    app = CatalogApp(seeded, cursor_blink=False, keymap=found)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TagEditor)
