"""Papers from the web in the TUI, against the recorded answers (tests/data/web/): `A` (and
the palette) adds a paper by its identifier and selects it; offline it is one line and the
catalog is as it was."""

from __future__ import annotations

import socket

from tests.test_web_add import web  # noqa: F401  (a fixture)
from tests.test_web_notices import SREP, _retracted_srep
from tests.tui.conftest import palette_offers, toasts, until

SIZE = (120, 36)
TITLE = "Heat-bath random walks with Markov bases"  # arXiv 1605.08386, as recorded


async def _add(pilot, settle, text: str, *, palette: bool = False) -> None:
    if palette:
        await pilot.press("ctrl+p", *"Add paper")
        await palette_offers(pilot, "Add paper")
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


def _crossref_answer_for(doi: str, title: str) -> bytes:
    """Crossref's recorded answer for the PLOS ONE paper (tests/data/web/crossref/), its DOI
    and title made another work's, its abstract, notices and references left out: the shape
    of a real answer for a DOI no recording has."""
    import json

    from tests.webserver import DATA

    answer = json.loads((DATA / "crossref" / "10.1371_journal.pone.0033693.json").read_bytes())
    message = answer["message"]
    message.update({"DOI": doi, "title": [title], "URL": f"https://doi.org/{doi}"})
    for name in ("abstract", "updated-by", "reference", "relation", "link"):
        message.pop(name, None)
    return json.dumps(answer).encode()


async def test_C_lists_the_references_and_a_adds_one_with_its_doi(app, seeded, settle, web):  # noqa: F811
    from catalog.tui.screens.linked import LinkedScreen

    [plos] = seeded.web.add_identifiers(["10.1371/journal.pone.0033693"])
    cited = "10.1038/sj.npp.1301164"  # its first reference, as Crossref lists it
    web.script(f"/crossref/works/{cited}", [(200, _crossref_answer_for(cited, "Stimulants: Therapeutic actions in ADHD"),
                                             {"Content-Type": "application/json"})])
    before = seeded.stats().papers
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.jump(f"key:{plos.paper.key}")
        await settle(pilot)
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, LinkedScreen) and app.screen.papers)
        screen = app.screen
        assert len(screen.papers) == 70 and screen.papers[0].doi == cited
        assert "70 from Crossref, 0 in the catalog" in str(screen.query_one("#linked-hint").render())
        await pilot.press("a")
        await until(pilot, lambda: (p := app.main.papers.current) is not None and p.key != plos.paper.key)
        await settle(pilot)
        key = app.main.papers.current.key
        assert app.main.papers.current.title == "Stimulants: Therapeutic actions in ADHD"
        assert seeded.get(key).doi == cited and seeded.stats().papers == before + 1
        # the list again: the reference is now marked with its key, and enter goes to it
        app.main.jump(f"key:{plos.paper.key}")
        await settle(pilot)
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, LinkedScreen) and app.screen.papers)
        assert app.screen.papers[0].key == key
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.papers.current.key == key and seeded.stats().papers == before + 1
    assert f"/crossref/works/{cited}" in [r["path"] for r in web.requests]


async def test_c_in_the_references_lists_the_papers_citing_it(app, seeded, settle, web, tmp_path, monkeypatch):  # noqa: F811
    import json

    from catalog.fetching import citations
    from catalog.tui.screens.linked import LinkedScreen

    monkeypatch.setattr(citations, "MAX_PAPERS", 200)  # two recorded pages of its citations
    records = tmp_path / "ssrn.json"
    records.write_text(json.dumps([{"title": "The Miracle of Microfinance?", "doi": "10.2139/ssrn.2250500"}]))
    assert not seeded.import_paths([records]).errors
    key = seeded.search("doi:10.2139/ssrn.2250500", limit=1)[0].key
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.jump(f"key:{key}")
        await settle(pilot)
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, LinkedScreen) and app.screen.papers)
        assert len(app.screen.papers) == 67 and not app.screen.citing
        await pilot.press("c")
        await until(pilot, lambda: app.screen.citing and app.screen.papers)
        assert len(app.screen.papers) == 200
        assert "Papers citing" in str(app.screen.query_one("#linked-title").render())
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, LinkedScreen)


async def test_offline_C_says_so_in_one_line_in_the_dialog(app, seeded, settle, monkeypatch, tmp_path):
    import json

    from catalog.tui.screens.linked import LinkedScreen

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("CATALOG_WEB_BASE", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("CATALOG_WEB_CACHE", str(tmp_path / "cache"))
    records = tmp_path / "p.json"
    records.write_text(json.dumps([{"title": "Heat-bath random walks", "arxiv_id": "1605.08386"}]))
    assert not seeded.import_paths([records]).errors
    key = seeded.search("arxiv:1605.08386", limit=1)[0].key
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.jump(f"key:{key}")
        await settle(pilot)
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, LinkedScreen)
                    and "cannot reach" in str(app.screen.query_one("#linked-hint").render()))
        hint = str(app.screen.query_one("#linked-hint").render())
        assert hint.startswith(f"⚠ cannot reach 127.0.0.1:{port}") and "\n" not in hint
        assert app.screen.papers == []


async def test_the_tui_query_finds_flagged_papers(app, seeded, settle, type_search, web):  # noqa: F811
    web.script(f"/crossref/works/{SREP}", [(200, _retracted_srep(), {"Content-Type": "application/json"})])
    [retracted] = seeded.web.add_identifiers([SREP])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await type_search(pilot, "notice:retracted")
        assert app.main.papers.total == 1 and app.main.papers.current.key == retracted.paper.key
        await type_search(pilot, "-has:notice")
        assert app.main.papers.total == seeded.stats().papers - 1
