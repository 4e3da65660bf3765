"""Highlights and comments made in a PDF reader become the paper's notes, with page and
colour: on attach and import, and again with `catalog files KEY --notes` after more
annotating, never twice and never touching the user's own notes; they are searchable."""

from __future__ import annotations

from pathlib import Path

from tests.pdfmaker import highlight, make

DATA = Path(__file__).resolve().parent / "data" / "pdf"
LINES = "the okapi census counts dung piles along transects\nwe correct the counts for decay rates\nthird line"


def test_a_real_highlight_becomes_a_note_with_page_and_colour(seeded, tmp_path):
    key = seeded.search("steering vector", limit=1)[0].key
    seeded.add_note(key, "my own thoughts")
    seeded.attach_file(key, DATA / "highlighted.pdf")
    seeded.read_texts()
    bodies = [n.body for n in seeded.get(key).notes]
    assert bodies == ["my own thoughts", "p. 1 · highlight (yellow): “Lorem ipsum dolor sit amet” — Highlight content"]
    assert [p.key for p in seeded.search("lorem ipsum", limit=5)][:1] == [key]


def test_annotating_again_adds_only_the_new_marks(seeded, tmp_path, run_cli):
    key = seeded.search("steering vector", limit=1)[0].key
    pdf = highlight(make(tmp_path / "okapi.pdf", [LINES, "page two\nsecond page claim about okapi dung"]), 1, 0, "key idea")
    seeded.attach_file(key, pdf, link=True)
    seeded.read_texts()
    first = [n.body for n in seeded.get(key).notes]
    assert first == ["p. 1 · highlight (yellow): “the okapi census counts dung piles along transects” — key idea"]
    highlight(pdf, 2, 1, "", rgb=(0, 0, 255))  # the reader adds a blue highlight and saves
    result = run_cli("files", key, "--notes")
    assert result.exit_code == 0 and "1 new note from" in result.stderr
    assert [n.body for n in seeded.get(key).notes] == [
        *first, "p. 2 · highlight (blue): “second page claim about okapi dung”"]
    assert "0 new notes" in run_cli("files", key, "--notes").stderr
    assert len(seeded.get(key).notes) == 2


def test_importing_an_annotated_pdf_notes_its_marks_once(seeded, tmp_path):
    folder = tmp_path / "Papers"
    folder.mkdir()
    abstract = ("We survey okapi populations in the Ituri forest with dung counts along transects and "
                "correct them for decay, finding densities twice those reported from camera traps.")
    pdf = make(folder / "okapi.pdf", [f"Okapi Density From Dung Counts in the Ituri Forest\nAbstract\n{abstract}\n"
                                      "1 Introduction\nThe okapi is hard to see."])
    highlight(pdf, 1, 0, "title!")
    [report] = seeded.import_pdfs([pdf])
    assert report.new == 1
    key = seeded.search("okapi density dung", limit=1)[0].key
    notes = [n.body for n in seeded.get(key).notes]
    assert notes == ["p. 1 · highlight (yellow): “Okapi Density From Dung Counts in the Ituri Forest” — title!"]
    seeded.import_paths([folder])
    assert seeded.read_pdf_notes() == 0 and len(seeded.get(key).notes) == 1
