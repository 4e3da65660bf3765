"""The text of attached PDFs: read page by page (real PDFs from pdf.js's corpus, and made ones),
searched below a paper's own text with the page it is on, narrowed with --in; scanned,
encrypted and broken files get one line and no text; a run cut short is finished by the
next; no other command loads the PDF library."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from catalog.attachments import pdftext
from catalog.library import Catalog
from tests.pdfmaker import make

DATA = Path(__file__).resolve().parent / "data" / "pdf"
SEEDS = Path(__file__).resolve().parent.parent / "seeds"
BODY = "the zebra crossing heuristic keeps every trace monomorphic"
FILLER = "Introduction. We study models of language and their activations in some detail. " * 4


def whole(papers):
    """The papers holding every word (on a page or in their own text): `crossing` alone is in
    seed abstracts, which partial matches then list after them."""
    return [p for p in papers if p.match != "some"]


def key_of(catalog: Catalog, words: str) -> str:
    return catalog.search(words, limit=1)[0].key


@pytest.fixture
def body_pdf(tmp_path: Path) -> Path:
    """Three pages; only page 2 holds BODY."""
    return make(tmp_path / "paper.pdf", [FILLER, FILLER + BODY + ". " + FILLER, FILLER])


# --- reading ------------------------------------------------------------------------------------

def test_a_real_paper_gives_its_text_by_page():
    text = pdftext.read(DATA / "tracemonkey-page1.pdf")
    assert text.state == "text" and text.page_count == 1
    assert text.pages[0].startswith("Trace-based Just-in-Time Type Specialization for Dynamic\nLanguages")
    assert "\r" not in text.pages[0]


@pytest.mark.parametrize("name, state", [("scanned.pdf", "no text"), ("encrypted.pdf", "encrypted")])
def test_scanned_and_encrypted_real_files_say_what_they_are(name, state):
    text = pdftext.read(DATA / name)
    assert text.state == state and not any(text.pages if state != "no text" else [])


def test_broken_and_cut_files_are_unreadable(tmp_path):
    (tmp_path / "junk.pdf").write_bytes(b"<html>not a pdf</html>")
    (tmp_path / "cut.pdf").write_bytes((DATA / "tracemonkey-page1.pdf").read_bytes()[:2000])
    for name in ("junk.pdf", "cut.pdf"):
        assert pdftext.read(tmp_path / name).state == "unreadable"


def test_five_hundred_scanned_pages_have_no_text(tmp_path):
    text = pdftext.read(make(tmp_path / "scan.pdf", [""] * 500))
    assert text.state == "no text" and text.page_count == 500


def test_made_pages_read_back(body_pdf):
    text = pdftext.read(body_pdf)
    assert text.state == "text" and text.page_count == 3 and BODY in " ".join(text.pages[1].split())


# --- searching ----------------------------------------------------------------------------------

def test_a_phrase_only_in_the_body_finds_its_paper_first_with_the_page(seeded, body_pdf, run_cli):
    key = key_of(seeded, "steering vector")
    seeded.files.attach_file(key, body_pdf)
    assert seeded.search(f'"{BODY}"') == []  # not read yet: nothing to find
    assert [state for _, state in seeded.files.read_texts()] == ["text"]
    found = seeded.search('"zebra crossing heuristic"')
    assert [p.key for p in found] == [key]
    assert found[0].page == 2 and found[0].match == "text"
    assert "\x02zebra crossing heuristic\x03" in found[0].page_snippet
    printed = json.loads(run_cli("search", "zebra crossing heuristic", "--json").output)["papers"][0]
    assert (printed["key"], printed["page"]) == (key, 2) and "zebra crossing heuristic" in printed["page_snippet"]


def test_a_body_hit_ranks_below_papers_whose_own_text_holds_the_words(seeded, tmp_path):
    own = seeded.search("sparse autoencoders", limit=50)
    holding_all = [p.key for p in own if p.match == "all"]
    other = key_of(seeded, "steering vector")
    assert other not in holding_all
    seeded.files.attach_file(other, make(tmp_path / "sae.pdf", ["We train sparse autoencoders on activations."]))
    seeded.files.read_texts()
    found = seeded.search("sparse autoencoders", limit=200)
    keys = [p.key for p in found]
    assert keys[:len(holding_all)] == holding_all
    assert keys[len(holding_all)] == other and found[len(holding_all)].page == 1


def test_within_narrows_to_abstracts_or_to_the_text(seeded, body_pdf, run_cli):
    key = key_of(seeded, "steering vector")
    seeded.files.attach_file(key, body_pdf)
    seeded.files.read_texts()
    assert whole(seeded.search("zebra crossing", within="abstracts")) == []  # partial matches only
    assert [p.key for p in seeded.search("zebra crossing", within="text")] == [key]
    assert key not in [p.key for p in seeded.search("steering vector", within="text")]
    result = run_cli("search", "--in", "abstracts", "zebra", "crossing")
    assert key not in result.output


def test_filters_and_negated_words_apply_to_papers_found_by_their_pages(seeded, body_pdf):
    key = key_of(seeded, "steering vector")
    venue = seeded.get(key).summary.venue
    other = "ICML" if venue == "ICLR" else "ICLR"
    seeded.files.attach_file(key, body_pdf)
    seeded.files.read_texts()
    assert [p.key for p in whole(seeded.search(f"zebra crossing venue:{venue}"))] == [key]
    assert whole(seeded.search(f"zebra crossing venue:{other}")) == []
    assert whole(seeded.search("zebra crossing -steering")) == []


@pytest.mark.parametrize("name, said", [("scanned.pdf", "no text layer"), ("encrypted.pdf", "encrypted")])
def test_attaching_a_file_without_text_says_so_in_one_line(seeded, run_cli, name, said):
    key = key_of(seeded, "steering vector")
    result = run_cli("attach", key, str(DATA / name))
    assert result.exit_code == 0
    assert [line for line in result.stderr.splitlines() if said in line] != []
    assert "Traceback" not in result.output
    [attachment] = seeded.files.attachments(key)
    assert attachment.text_state == ("no text" if name == "scanned.pdf" else "encrypted")


def test_a_run_cut_short_is_finished_by_the_next(seeded, tmp_path, body_pdf):
    key = key_of(seeded, "steering vector")
    seeded.files.attach_file(key, body_pdf)
    second = key_of(seeded, "sparse autoencoders")
    seeded.files.attach_file(second, make(tmp_path / "two.pdf", ["the okapi lemma on page one of two"]))

    class Killed(Exception):
        pass

    def kill(attachment, state):
        raise Killed  # as if killed once the first file was stored

    with pytest.raises(Killed):
        seeded.files.read_texts(kill)
    assert [a.text_state for a in seeded.files.attachments(key)] == ["text"]
    assert [a.text_state for a in seeded.files.attachments(second)] == [None]
    assert [state for _, state in seeded.files.read_texts()] == ["text"]  # only what was left
    assert [p.key for p in seeded.search("okapi lemma")] == [second]


def test_pages_are_searched_on_both_backends(seeded_any, body_pdf, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_FILES", str(tmp_path / "files"))
    key = key_of(seeded_any, "steering vector")
    seeded_any.files.attach_file(key, body_pdf)
    seeded_any.files.read_texts()
    found = seeded_any.search('"zebra crossing heuristic"')
    assert [(p.key, p.page) for p in found] == [(key, 2)]
    assert whole(seeded_any.search("zebra crossing -steering")) == []
    seeded_any.files.detach(key, 1)
    assert whole(seeded_any.search("zebra crossing")) == []


def test_no_command_but_those_reading_pdfs_loads_the_pdf_library(tmp_path):
    db = tmp_path / "c.db"
    env = {**os.environ, "CATALOG_DB": str(db)}
    assert subprocess.run([sys.executable, "-m", "catalog", "import", str(SEEDS)], env=env,
                          capture_output=True).returncode == 0
    for command in (["search", "attention"], ["show", "--json", "attention"], ["files", "x"], ["open", "--print", "x"]):
        code = ("import sys, runpy; sys.argv = ['catalog', *sys.argv[1:]]\n"
                "try:\n    runpy.run_module('catalog', run_name='__main__')\n"
                "except SystemExit: pass\n"
                "print('LOADED', 'pypdfium2' in sys.modules)")
        ran = subprocess.run([sys.executable, "-c", code, *command], env=env, capture_output=True, text=True)
        assert "LOADED False" in ran.stdout, (command, ran.stdout, ran.stderr)


def test_pages_of_rows_without_snippets_list_what_a_search_lists(seeded, tmp_path):
    """The TUI's rows (no snippets, page by page) skip ranking PDF pages while papers whose own
    text holds the words fill the page; the order is the same as a whole search's."""
    other = key_of(seeded, "steering vector")
    seeded.files.attach_file(other, make(tmp_path / "sae.pdf", ["We train sparse autoencoders on activations."]))
    seeded.files.read_texts()
    whole = [p.key for p in seeded.search("sparse autoencoders", limit=60)]
    paged = [p.key for start in range(0, 60, 5)
             for p in seeded.search("sparse autoencoders", limit=5, offset=start, snippets=False)]
    assert other in whole and paged == whole
    counted = seeded.first_page("sparse autoencoders", limit=5, counted=True)
    assert counted.total == seeded.count("sparse autoencoders") >= len(whole)


def test_words_hyphenated_at_line_ends_are_joined_again_in_a_real_paper():
    """PDFium runs a paragraph's hyphenated lines into one line, each break marked \\x02
    (science-parse's bagnell11: "imper\\x02fect agents ... obser\\x02vations"); a file whose font
    gives \\x02 for every space keeps its words apart."""
    text = pdftext.read(DATA / "papers" / "bagnell11.pdf").pages[0]
    assert "behavior of imperfect agents from a small number of observations" in text
    assert pdftext.clean("no\x02spaces\x02in\x02this\x02line") == "no spaces in this line"
    assert pdftext.clean("an unknown deci\x02sion problem") == "an unknown decision problem"


def test_a_search_a_page_answers_offers_no_did_you_mean(seeded, body_pdf, run_cli):
    """`crossing` is in few seed papers, so alone it gets "did you mean crossings?"; once a
    page holds every word, the page answers and no word of it is a typo (issue 34's note)."""
    query = "zebra crossing heuristic"
    assert seeded.words.suggest(query)  # before: a suggestion for `crossing`
    seeded.files.attach_file(key_of(seeded, "steering vector"), body_pdf)
    seeded.files.read_texts()
    assert seeded.words.suggest(query) == [] and seeded.words.correction(query) is None
    printed = json.loads(run_cli("search", "--json", *query.split()).output)
    assert printed["papers"][0]["match"] == "text"
    assert printed["suggestions"] == [] and printed["did_you_mean"] is None
    assert "Did you mean" not in run_cli("search", *query.split()).stderr
    assert seeded.words.suggest("zebra crossng") != []  # a typo beside a page's word still gets one


def test_no_did_you_mean_for_a_page_s_words_and_no_versus_needed_on_both_backends(seeded_any, body_pdf, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_FILES", str(tmp_path / "files"))
    query = "zebra crossing heuristic"
    assert seeded_any.words.suggest(query)
    seeded_any.files.attach_file(key_of(seeded_any, "steering vector"), body_pdf)
    seeded_any.files.read_texts()
    assert seeded_any.words.suggest(query) == []
    # A connecting word (searching/connecting.py) is optional on pages too: BODY has no "versus".
    found = seeded_any.search("zebra versus monomorphic", limit=5)
    assert found and found[0].match == "text" and found[0].page == 2
