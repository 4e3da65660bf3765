"""Terminal control sequences in user text: stripped when the text enters the catalog (CLI,
library calls the TUI makes, annotations files, imported files), made visible if any are left
in an export (an old catalog, a hand edit), and tags that would break `papers.tags` refused."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from catalog.library import CatalogError
from tests.conftest import SEEDS, key_of

# What `cat reading.md` must never send to a terminal: C0 controls but newline, tab (and CR, in
# CSV line ends), DEL and C1 controls.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
NASTY = "\x1b[2J\x1b]0;pwned\x07\x9b31m\x08\x00"


def _user_text(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [v for sql in ("SELECT name FROM tag", "SELECT body FROM note", "SELECT user_title FROM paper",
                              "SELECT name || query FROM saved_search", "SELECT abstract || coalesce(title, '')"
                              " || coalesce(authors, '') || coalesce(url, '') || coalesce(venue, '') FROM paper")
                for (v,) in conn.execute(sql) if v is not None]
    finally:
        conn.close()


def _assert_clean(db: Path) -> None:
    dirty = [v for v in _user_text(db) if CONTROL.search(v)]
    assert not dirty, dirty[:3]


def test_the_cli_strips_controls_from_tags_notes_titles_and_saved_searches(run_cli, db_path):
    run_cli("import", str(SEEDS))
    key = json.loads(run_cli("list", "--json", "-n", "1").stdout)[0]["key"]
    assert run_cli("tag", key, f"+{NASTY}red").exit_code == 0
    assert run_cli("note", key, f"note {NASTY} kept\nsecond\tline").exit_code == 0
    assert run_cli("title", key, f"my {NASTY} title").exit_code == 0
    assert run_cli("saved", "add", f"name{NASTY}", f"attention {NASTY}").exit_code == 0
    _assert_clean(db_path)
    shown = json.loads(run_cli("show", key, "--json").stdout)
    assert shown["notes"][0]["body"].endswith("kept\nsecond\tline")  # newline and tab stay
    assert "red" in shown["tags"][0]


def test_the_library_calls_of_the_tui_strip_controls(seeded, db_path):
    key = key_of(seeded, "attention")
    seeded.tag([key], [f"{NASTY}tui"])
    seeded.add_note(key, f"typed {NASTY} in the editor")
    seeded.edit_note(key, 1, f"edited {NASTY}")
    seeded.set_title(key, f"pasted {NASTY} title")
    seeded.saved.save_search(f"s{NASTY}", "attention")
    _assert_clean(db_path)


def test_an_annotations_file_from_a_colleague_is_stripped(seeded, db_path, tmp_path):
    key = key_of(seeded, "attention")
    document = {"format": "catalog-annotations", "version": 1, "papers": [{
        "key": key, "tags": [f"{NASTY}shared"], "user_title": f"their {NASTY} title",
        "notes": [{"body": f"their {NASTY} note"}], "status": "reading"}],
        "saved_searches": [{"name": f"theirs{NASTY}", "query": f"graph {NASTY}"}]}
    path = tmp_path / "theirs.json"
    path.write_text(json.dumps(document))
    report = seeded.exchange.import_annotations(path)
    assert report.tags_added == 1 and report.notes_added == 1
    _assert_clean(db_path)


def test_imported_files_are_stripped(empty_catalog, db_path, tmp_path):
    NASTY = globals()["NASTY"].replace("\x00", "")  # a NUL makes a text file binary (refused)
    (tmp_path / "refs.bib").write_text(
        f"@article{{k1, title={{Title {NASTY}}}, author={{Ann {NASTY} Bell}}, year={{2020}},"
        f" abstract={{A BibTeX abstract with {NASTY} inside it.}}, url={{http://x.org/{NASTY}}}}}\n")
    (tmp_path / "s.csv").write_text(f'title,abstract,authors\n"CSV {NASTY}","A CSV abstract {NASTY} here",Bob\n')
    (tmp_path / "j.json").write_text(json.dumps([{"title": f"JSON {NASTY}", "abstract": f"JSON abstract {NASTY}"}]))
    (tmp_path / "list.txt").write_text(f"EVIL 2026 Papers\n\nA paper list abstract {NASTY} with escapes.\n")
    report = empty_catalog.import_paths([tmp_path])
    assert report.new == 4, report
    _assert_clean(db_path)


def test_a_carriage_return_in_imported_text_does_not_join_words(empty_catalog, tmp_path):
    (tmp_path / "refs.bib").write_text("@article{k1, title={Deep\rLearning}, author={Ann\rBell},"
                                       " abstract={First line\rsecond line.}, year={2020}}\n", newline="")
    (tmp_path / "s.csv").write_text('title,abstract\n"Graph\rNetworks","One\rtwo"\n', newline="")
    (tmp_path / "j.json").write_text(json.dumps([{"title": "Sparse\rAttention", "abstract": "Three\rfour"}]))
    assert empty_catalog.import_paths([tmp_path]).new == 3
    papers = {p.title: p for p in empty_catalog.exchange.export_papers()}
    assert sorted(papers) == ["Deep Learning", "Graph Networks", "Sparse Attention"]
    assert papers["Deep Learning"].authors == "Ann Bell"
    assert [papers[t].abstract for t in sorted(papers)] == ["First line second line.", "One two", "Three four"]


def test_tags_with_commas_or_spaces_are_refused_with_one_line(run_cli, seeded):
    key = key_of(seeded, "attention")
    for bad in ("+a,b", "+x, y", "+has space", "+tab\tbed", "+,"):
        result = run_cli("tag", key, bad)
        assert result.exit_code == 1, bad
        assert result.stderr.count("\n") == 1 and "invalid tag" in result.stderr, (bad, result.stderr)
    with pytest.raises(CatalogError, match="comma"):
        seeded.tag([key], ["a,b"])
    assert seeded.get(key).summary.tags == ()


EXPORTS = ["bibtex", "csljson", "ris", "markdown", "csv", "jsonl"]


@pytest.mark.parametrize("fmt", EXPORTS)
def test_controls_left_in_a_catalog_never_reach_an_export(seeded, db_path, tmp_path, fmt):
    """Rows written before stripping existed, or edited by hand, still export safely."""
    key = key_of(seeded, "attention")
    seeded.tag([key], ["toread"])
    seeded.add_note(key, "a note")
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("UPDATE paper SET title = ?, authors = ?, abstract = abstract || ?, user_title = ?, url = ?"
                 " WHERE key = ?", (f"T{NASTY}", f"A{NASTY} B", NASTY, f"U{NASTY}", f"http://x/{NASTY}", key))
    conn.execute("UPDATE note SET body = ?", (f"n{NASTY}",))
    conn.execute("UPDATE tag SET name = ?", (f"t{NASTY}",))
    conn.close()
    target = tmp_path / f"out.{fmt}"
    seeded.exchange.export("", fmt, target)
    text = target.read_bytes().decode("utf-8")
    assert not CONTROL.search(text), repr(CONTROL.search(text)[0])
    assert "\x1b" not in text and "pwned" in text  # made visible, not dropped silently
