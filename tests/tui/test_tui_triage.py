"""Triage mode (T, catalog tui --triage): one paper at a time, a key per decision, progress,
undo, resuming, and the order following the recommender. Asserted on the database."""

from __future__ import annotations

import pytest

from catalog.tui.app import CatalogApp
from catalog.tui.screens.triage import TriageScreen
from catalog.tui.state import StateStore
from catalog.tui.triage import TriageQueue

from tests.tui.conftest import palette_offers, screen_text, statics_text, toasts

SIZE = (120, 36)

# Openings of the seven abstracts about sparse autoencoders (as in tests/test_discover.py).
SAE_OPENINGS = (
    "The diversity of post-training data is critical",
    "Sparse Autoencoders (SAEs) are widely used to interpret",
    "Despite the growing reasoning capabilities of recent large language models (LLMs), their internal",
    "Vision–language models (VLMs) align images and text",
    "A central aim of interpretability tools applied to language models",
    "Polysemy has long been a major challenge",
    "Despite their impressive performance, generative image models",
)


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch):
    """The discovery cache goes to the user cache folder: a temporary one here."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def triage(app) -> TriageScreen:
    screen = app.screen
    assert isinstance(screen, TriageScreen), type(screen)
    return screen


def current(app) -> str:
    return triage(app).queue.current.key


async def start(pilot, settle, keys=("T",)) -> TriageScreen:
    await settle(pilot)
    await pilot.press(*keys)
    await settle(pilot)
    return triage(pilot.app)


async def test_decisions_are_stored_and_the_next_paper_comes(app, seeded, settle):
    plain = [p.key for p in seeded.triage.untriaged("", limit=10)]
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(pilot, settle)
        assert current(app) == plain[0]
        assert "0 / 90 triaged" in screen_text(app)
        assert seeded.get(plain[0]).summary.title.split()[0] in screen.pane.text
        await pilot.press("q")
        await settle(pilot)
        assert current(app) == plain[1]  # moved on by itself
        await pilot.press("s", "4", "r", "d")
        await settle(pilot)
        assert current(app) == plain[5]
        states = {k: seeded.get(k).summary for k in plain[:5]}
        assert [states[k].status for k in plain[:5]] == ["queued", "skipped", "unread", "reading", "read"]
        assert states[plain[2]].rating == 4
        assert "5 / 90 triaged" in screen_text(app)
        assert seeded.triage.triage_count("").triaged == 5
        # Tagging moves on too, but a tag alone does not triage a paper.
        tagged, after = current(app), screen.queue.upcoming[0].key  # (ranked by now)
        await pilot.press("t")
        for ch in "maybe":
            await pilot.press(ch)
        await pilot.press("enter")
        await settle(pilot)
        assert seeded.get(tagged).summary.tags == ("maybe",)
        assert current(app) == after
        assert "5 / 90 triaged" in screen_text(app)
        # The list behind shows the decisions once back.
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, TriageScreen)
        assert app.main.papers.pages[0][0].status == "queued"


async def test_undo_takes_the_decision_back_and_shows_that_paper(app, seeded, settle):
    plain = [p.key for p in seeded.triage.untriaged("", limit=5)]
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot, settle)
        await pilot.press("q", "5")
        await settle(pilot)
        assert current(app) == plain[2]
        await pilot.press("u")
        await settle(pilot)
        assert current(app) == plain[1]
        assert seeded.get(plain[1]).summary.rating is None
        assert seeded.get(plain[0]).summary.status == "queued"
        assert "1 / 90 triaged" in screen_text(app)
        await pilot.press("u")
        await settle(pilot)
        assert current(app) == plain[0]
        assert seeded.get(plain[0]).summary.status == "unread"
        await pilot.press("right_square_bracket", "left_square_bracket")  # later; back
        await settle(pilot)
        assert current(app) == plain[0]
        await pilot.press("s")  # a new decision on it, then the one after
        await settle(pilot)
        assert seeded.get(plain[0]).summary.status == "skipped"
        assert current(app) == plain[1]
        # Undo in the list afterwards takes back triage decisions too.
        await pilot.press("escape", "u")
        await settle(pilot)
        assert seeded.get(plain[0]).summary.status == "unread"


async def test_leaving_and_coming_back_resumes(seeded, settle, tmp_path):
    plain = [p.key for p in seeded.triage.untriaged("diffusion", limit=10)]
    store = StateStore(tmp_path / "state.json")
    app = CatalogApp(seeded, cursor_blink=False, state=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.search_bar.set_query("diffusion")
        await settle(pilot, typing=True)
        await start(pilot, settle)
        await pilot.press("q", "n")  # the second is passed over: it comes after the others
        await settle(pilot)
        assert current(app) == plain[2]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        assert current(app) == plain[2]
        assert "for later" in screen_text(app)
        assert triage(app).queue.upcoming[-1].key == plain[1]
    # and in a new session, from the session file
    again = CatalogApp(seeded, cursor_blink=False, state=store)
    async with again.run_test(size=SIZE) as pilot:
        await start(pilot, settle)
        assert again.main.query_text == "diffusion"
        assert current(again) == plain[2]
        assert triage(again).queue.upcoming[-1].key == plain[1]
        assert "1 / " in screen_text(again)


async def test_the_command_line_starts_triage_on_a_query(seeded, settle):
    app = CatalogApp(seeded, cursor_blink=False, query="venue:ICML", triage=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await settle(pilot)
        screen = triage(app)
        total = seeded.count("venue:ICML")
        assert f"0 / {total} triaged" in screen_text(app)
        assert screen.queue.current.venue == "ICML"


def test_a_bad_query_for_tui_is_one_line(run_cli, seeded):
    result = run_cli("tui", "--triage", "year:soon")
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "year" in result.output


async def test_marked_papers_are_triaged_alone(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "j", "space")
        marked = set(app.main.papers.marked)
        await start(pilot, settle)
        assert "0 / 2 triaged" in screen_text(app)
        await pilot.press("q", "q")
        await settle(pilot)
        assert {k for k in marked if seeded.get(k).summary.status == "queued"} == marked
        assert "2 / 2 triaged" in screen_text(app)
        assert "Nothing left to triage" in triage(app).pane.text  # all done: it says so


def _sae_keys(catalog) -> set[str]:
    keys = {p.key for p in catalog.triage.untriaged("", limit=200)}
    return {k for k in keys if catalog.get(k).abstract_text.startswith(SAE_OPENINGS)}


async def test_the_order_follows_recommendations_once_papers_are_rated(app, seeded, settle):
    sae = sorted(_sae_keys(seeded))
    assert len(sae) == 7
    seeded.set_rating(sae[:3], 5)  # liked: three SAE papers; four are left to find
    plain = [p.key for p in seeded.triage.untriaged("", limit=100)]
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(pilot, settle)
        assert "most promising first" in screen_text(app)
        # The paper on screen did not change under the user when the ranking arrived...
        assert current(app) == plain[0]
        # ...the ones after it follow the ranking: the other SAE papers come first.
        coming = [p.key for p in screen.queue.upcoming[:6] if p.key != plain[0]]
        assert len(set(coming[:4]) & set(sae[3:])) >= 3, coming
        assert coming[:4] != [k for k in plain[1:] if k != plain[0]][:4]
        # Decisions re-rank: every few of them the ranking is asked for again.
        asked = screen.rank_generation
        await pilot.press(*"sssss")
        await settle(pilot)
        assert screen.rank_generation == asked + 1


async def test_without_ratings_or_tags_the_order_is_the_lists(app, seeded, settle):
    plain = [p.key for p in seeded.triage.untriaged("", limit=5)]
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(pilot, settle)
        assert [current(app), *(p.key for p in screen.queue.upcoming[:4])] == plain
        assert "order: as listed" in screen_text(app)


def _papers(*keys):
    from catalog.results import PaperSummary

    return [PaperSummary(k, k, None, None, "unread", None, ()) for k in keys]


def test_the_queue_keeps_the_current_paper_and_passed_ones_last():
    queue = TriageQueue(start="c", passed=["b"])
    queue.fill(_papers("a", "b", "c", "d"))
    assert queue.current.key == "c"  # resumed
    assert [p.key for p in queue.upcoming] == ["a", "d", "b"]
    queue.reorder(_papers("d", "c", "b", "x"))
    assert queue.current.key == "c"
    assert [p.key for p in queue.upcoming] == ["d", "x", "a", "b"]
    queue.advance()
    queue.pass_over()  # d
    assert [p.key for p in queue.upcoming] == ["a", "b", "d"] and queue.current.key == "x"
    queue.back()
    assert queue.current.key == "d" and queue.upcoming[0].key == "x"
    queue.fill(_papers("a", "e"))
    assert [p.key for p in queue.upcoming] == ["x", "a", "e", "b"]


async def test_help_in_triage_lists_its_keys_and_what_triaged_means(app, settle):
    from catalog.tui.keys import TRIAGE_BINDINGS

    async with app.run_test(size=SIZE) as pilot:
        await start(pilot, settle)
        await pilot.press("question_mark")
        await pilot.pause()
        shown = statics_text(app)
        assert "status is not unread, or it is rated" in shown and "1 … 5" in shown
        for binding in TRIAGE_BINDINGS:
            if binding.show:
                assert binding.description in shown and binding.tooltip in shown, binding
        await pilot.press("escape")
        assert isinstance(app.screen, TriageScreen)


async def test_a_list_that_cannot_be_read_says_why(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.triage("year:soon", "'year:soon'")
        await settle(pilot)
        screen = triage(app)
        assert "cannot triage this list" in screen.pane.text and "year" in screen.pane.text
        await pilot.press("q", "u")  # nothing to decide on, nothing written
        await settle(pilot)
        assert seeded.triage.triage_count("").triaged == 0
        await pilot.press("escape")
        assert not isinstance(app.screen, TriageScreen)


async def test_every_theme_keeps_the_triage_lines_readable(app, settle):
    from tests.tui.test_tui_themes import _ratio, _rgb

    async with app.run_test(size=SIZE) as pilot:
        screen = await start(pilot, settle)
        await pilot.press("5")  # a last decision to show, and a ranking
        await settle(pilot)
        for theme in sorted(app.available_themes):
            app.theme = theme
            await pilot.pause()
            strips = app.screen._compositor.render_strips()
            region = screen.query_one("#triage-paper-state").region
            texts = []
            for y in range(0, region.bottom):
                for seg in strips[y]:
                    if seg.text.strip() and seg.style and seg.style.color and seg.style.bgcolor:
                        ratio = _ratio(_rgb(seg.style.color, True), _rgb(seg.style.bgcolor, False))
                        texts.append(seg.text.strip())
                        assert ratio >= 3.0, f"{theme}: {seg.text.strip()!r} has contrast {ratio:.2f}"
            joined = " ".join(texts)
            assert "triaged" in joined and "order" in joined and "last" in joined, (theme, joined)


async def test_the_command_line_query_opens_the_list_on_it(seeded, settle):
    app = CatalogApp(seeded, cursor_blink=False, query="venue:ICML")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not isinstance(app.screen, TriageScreen)
        assert app.main.query_text == "venue:ICML" and app.main.papers.total == seeded.count("venue:ICML")


async def test_o_opens_the_paper_on_screen(app, seeded, settle, browser):
    from tests.conftest import opened
    from tests.tui.test_tui_keys import DATA

    seeded.import_paths([DATA / "arxiv.bib"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.search_bar.set_query("scaling laws")
        await settle(pilot, typing=True)
        await start(pilot, settle)
        await pilot.press("o")
        await settle(pilot)
        assert opened(browser) == ["https://arxiv.org/abs/2001.08361"]
        assert "Opened https://arxiv.org/abs/2001.08361" in toasts(app)
        assert isinstance(app.screen, TriageScreen)


async def test_the_command_palette_in_triage_offers_triage_actions(app, seeded, settle):
    plain = [p.key for p in seeded.triage.untriaged("", limit=2)]
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot, settle)
        await pilot.press("ctrl+p")
        await settle(pilot)
        for ch in "Triage: Queue":
            await pilot.press(ch if ch != " " else "space")
        await palette_offers(pilot, "Queue")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TriageScreen)
        assert seeded.get(plain[0]).summary.status == "queued"
        assert current(app) == plain[1]
