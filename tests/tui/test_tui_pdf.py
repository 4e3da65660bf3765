"""The TUI and attached PDFs: the reading pane lists a paper's files and, for a search its PDF
answered, the pages with their snippets; `o` opens the PDF before the paper's link (`L` the link), and the
viewer's output never reaches the screen."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.conftest import opened
from tests.pdfmaker import make
from tests.tui.conftest import toasts

SIZE = (120, 36)
BODY = "the zebra crossing heuristic keeps every trace monomorphic"


async def test_the_pane_lists_files_and_the_pages_a_search_found(app, seeded, settle, type_search, tmp_path):
    from catalog.tui.widgets.detail import DetailPane

    key = seeded.search("steering vector", limit=1)[0].key
    pdf = make(tmp_path / "paper.pdf", ["Introduction. " * 20, "Method. " * 10 + BODY])
    seeded.files.attach_file(key, pdf)
    seeded.files.read_texts()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "zebra crossing heuristic")
        await settle(pilot)
        text = app.main.query_one(DetailPane).text
        assert "In its PDF" in text and "p. 2: " in text and "zebra crossing heuristic" in text
        assert "Files (1)" in text and "2 pages" in text


async def test_o_opens_the_pdf_quietly(app, seeded, settle, type_search, tmp_path, monkeypatch, browser, capfd):
    key = seeded.search("steering vector", limit=1)[0].key
    copy = seeded.files.attach_file(key, make(tmp_path / "paper.pdf", ["A page about steering vectors. " * 5]))[0].location
    log = tmp_path / "opener.log"
    monkeypatch.setenv("CATALOG_OPENER", f"""sh -c 'echo "$1" >> "$0"; echo VIEWER-NOISE' {shlex.quote(str(log))} %s""")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "steering vector")
        await pilot.press("enter", "o")
        await settle(pilot)
        for _ in range(50):
            if opened(log):
                break
            await pilot.pause(0.1)
        assert opened(log) == [copy] and opened(browser) == []
        assert f"Opened {copy}" in toasts(app)
    seen = capfd.readouterr()
    assert "VIEWER-NOISE" not in seen.out + seen.err
    assert Path(copy).exists()


async def test_capital_l_opens_the_link_of_a_paper_with_a_pdf(app, seeded, settle, type_search, tmp_path, monkeypatch,
                                                               browser):
    bib = tmp_path / "quokka.bib"
    bib.write_text("@article{q, title={Quokka Colonies on Rottnest}, eprint={2401.01234}, archiveprefix={arXiv},"
                   " abstract={We count quokka colonies on Rottnest island across four summers.}}\n")
    assert not seeded.import_paths([bib]).errors
    key = seeded.search("quokka colonies", limit=1)[0].key
    link = seeded.get(key).link
    assert link == "https://arxiv.org/abs/2401.01234"
    seeded.files.attach_file(key, make(tmp_path / "paper.pdf", ["A page about quokka colonies. " * 5]))
    log = tmp_path / "opener.log"
    monkeypatch.setenv("CATALOG_OPENER", f"""sh -c 'echo "$1" >> "$0"' {shlex.quote(str(log))} %s""")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "quokka colonies")
        assert app.main.papers.current.key == key
        await pilot.press("escape", "L")
        await settle(pilot)
        for _ in range(50):
            if opened(browser):
                break
            await pilot.pause(0.1)
        assert opened(browser) == [link] and opened(log) == []
        assert f"Opened {link}" in toasts(app)


async def test_a_attaches_a_file_by_its_path(app, seeded, settle, type_search, tmp_path):
    from catalog.tui.widgets.detail import DetailPane

    pdf = make(tmp_path / "downloaded.pdf", ["Our quoll census method counts dens. " * 4])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "steering vector")
        key = app.main.papers.current.key
        await pilot.press("enter", "a")
        await settle(pilot)
        app.screen.query_one("Input").value = str(pdf)
        await pilot.press("enter")
        await settle(pilot)
        for _ in range(50):
            if seeded.files.attachments(key) and "Files (1)" in app.main.query_one(DetailPane).text:
                break
            await pilot.pause(0.1)
        assert [a.name for a in seeded.files.attachments(key)] == ["downloaded.pdf"]
        assert f"Attached downloaded.pdf to {key}" in toasts(app)
        assert "Files (1)" in app.main.query_one(DetailPane).text
    assert [p.key for p in seeded.search("quoll census", within="text")] == [key]


async def test_the_path_is_completed_as_it_is_typed(tmp_path):
    from catalog.tui.screens.prompt import PathSuggester

    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "attention.pdf").write_bytes(b"%PDF")
    (tmp_path / "papers" / "attention.txt").write_text("x")
    suggester = PathSuggester()
    assert await suggester.get_suggestion(f"{tmp_path}/pa") == f"{tmp_path}/papers/"
    assert await suggester.get_suggestion(f"{tmp_path}/papers/att") == f"{tmp_path}/papers/attention.pdf"
    assert await suggester.get_suggestion(f"{tmp_path}/nowhere/x") is None


async def test_papers_with_files_are_marked_in_the_list(app, seeded, settle, type_search, tmp_path):
    key = seeded.search("steering vector", limit=1)[0].key
    seeded.files.attach_file(key, make(tmp_path / "p.pdf", ["steering vectors"]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "steering vector")
        await settle(pilot)
        shown = app.main.papers.current
        assert shown.key == key and shown.has_files
