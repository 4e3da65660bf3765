"""Papers from the web in the TUI, against the recorded answers (tests/data/web/): `A` (and
the palette) adds a paper by its identifier and selects it; offline it is one line and the
catalog is as it was."""

from __future__ import annotations

import socket

from tests.test_web_add import web  # noqa: F401  (a fixture)
from tests.tui.conftest import toasts, until

SIZE = (120, 36)
TITLE = "Heat-bath random walks with Markov bases"  # arXiv 1605.08386, as recorded


async def _add(pilot, settle, text: str, *, palette: bool = False) -> None:
    if palette:
        await pilot.press("ctrl+p", *"Add paper")
        await pilot.pause(0.5)  # the palette searches its providers in the background
        await pilot.press("enter")
    else:
        await pilot.press("A")
    await settle(pilot)
    assert type(pilot.app.screen).__name__ == "PromptScreen"
    pilot.app.screen.query_one("Input").value = text
    await pilot.press("enter")


async def test_A_adds_a_paper_by_its_arxiv_id_and_selects_it(app, seeded, settle, web):  # noqa: F811
    before = seeded.stats().papers
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _add(pilot, settle, "arXiv:1605.08386")
        await until(pilot, lambda: (p := app.main.papers.current) is not None and p.title == TITLE)
        await settle(pilot)
        key = app.main.papers.current.key
        assert app.main.detail is not None and app.main.detail.arxiv_id == "1605.08386"
        assert f"Added {key}: Heat-bath" in toasts(app)
    assert seeded.stats().papers == before + 1
    assert seeded.get(key).authors  # with what arXiv says of it


async def test_the_palette_adds_a_doi_and_a_second_add_changes_nothing(app, seeded, settle, web):  # noqa: F811
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _add(pilot, settle, "https://doi.org/10.1371/journal.pone.0033693", palette=True)
        await until(pilot, lambda: (p := app.main.papers.current) is not None and "Added" in toasts(app))
        key = app.main.papers.current.key
        count = seeded.stats().papers
        await _add(pilot, settle, "10.1371/journal.pone.0033693")
        await until(pilot, lambda: "Already here:" in toasts(app))
        assert app.main.papers.current.key == key and seeded.stats().papers == count
        assert seeded.get(key).summary.notice == "corrected"


async def test_offline_A_is_one_line_and_nothing_changes(app, seeded, settle, monkeypatch, tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("CATALOG_WEB_BASE", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("CATALOG_WEB_CACHE", str(tmp_path / "cache"))
    before = seeded.stats().papers
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        query = app.main.search_bar.value
        await _add(pilot, settle, "arXiv:1605.08386")
        await until(pilot, lambda: "cannot reach" in toasts(app))
        await settle(pilot)
        said = [t for t in app.__dict__["posted_toasts"] if "cannot reach" in t]
        assert len(said) == 1 and "\n" not in said[0]
        assert app.main.search_bar.value == query  # no jump
    assert seeded.stats().papers == before


async def test_what_is_no_identifier_is_refused_in_one_line(app, seeded, settle, web):  # noqa: F811
    before = seeded.stats().papers
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _add(pilot, settle, "attention is all you need")
        await until(pilot, lambda: "is not a DOI, an arXiv id" in toasts(app))
        await settle(pilot)
    assert web.requests == [] and seeded.stats().papers == before
