"""Portable annotations between two catalogs, and `catalog backup`."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from catalog.errors import CatalogError
from catalog.library import Catalog
from tests.conftest import SEEDS, key_of


@pytest.fixture
def seeded_both(seeded_any):
    """The annotating catalog, on each backend."""
    return seeded_any


@pytest.fixture
def colleague(tmp_path: Path):
    catalog = Catalog.open(tmp_path / "colleague.db")
    # Another order, so nothing depends on ids.
    catalog.import_paths(sorted(SEEDS.glob("*.txt"), reverse=True))
    yield catalog
    catalog.close()


def annotate(catalog: Catalog) -> tuple[str, str]:
    mcr = key_of(catalog, "MCR2")
    neurons = key_of(catalog, '"increasing the number of neurons"')
    catalog.tag([mcr], ["toread", "project/thesis"])
    catalog.add_note(mcr, "check the rate-reduction proof")
    catalog.set_status([mcr], "reading")
    catalog.set_rating([mcr], 4)
    catalog.set_title(neurons, "Sparse wide nets")
    catalog.tag([neurons], ["sparsity"])
    catalog.saved.save_search("thesis", "tag:project/thesis")
    return mcr, neurons


def test_annotations_move_between_catalogs(seeded_both, colleague, tmp_path):
    mcr, neurons = annotate(seeded_both)
    path = tmp_path / "notes.json"
    assert seeded_both.exchange.export_annotations(path) == 2
    document = json.loads(path.read_text())
    assert (document["format"], document["version"]) == ("catalog-annotations", 1)
    entry = next(p for p in document["papers"] if p["key"] == mcr)
    assert {"key", "fingerprint", "doi", "arxiv_id", "title", "status", "rating", "user_title", "tags",
            "notes"} <= set(entry)

    colleague.add_note(mcr, "their own note")
    colleague.tag([mcr], ["theirs"])
    report = colleague.exchange.import_annotations(path)
    assert (report.papers, report.matched, report.not_found, report.conflicts) == (2, 2, [], [])
    assert (report.tags_added, report.notes_added, report.searches_added) == (3, 1, 1)
    got = colleague.get(mcr)
    assert got.summary.tags == ("project/thesis", "theirs", "toread")
    # Notes keep their dates, so the imported (older) note comes first.
    assert [n.body for n in got.notes] == ["check the rate-reduction proof", "their own note"]
    assert (got.summary.status, got.summary.rating) == ("reading", 4)
    assert colleague.get(neurons).summary.title == "Sparse wide nets"
    assert [s.name for s in colleague.saved.saved_searches()] == ["thesis"]

    # Importing again adds nothing: no duplicate tags, notes or searches.
    again = colleague.exchange.import_annotations(path)
    assert (again.tags_added, again.notes_added, again.fields_set, again.searches_added, again.conflicts) == (
        0, 0, 0, 0, [])
    assert len(colleague.get(mcr).notes) == 2


def test_conflicts_keep_yours_unless_theirs(seeded_both, colleague, tmp_path):
    mcr, neurons = annotate(seeded_both)
    path = tmp_path / "notes.json"
    seeded_both.exchange.export_annotations(path)
    colleague.set_status([mcr], "read")
    colleague.set_title(neurons, "My own title")
    colleague.saved.save_search("thesis", "tag:thesis")
    report = colleague.exchange.import_annotations(path)
    assert len(report.conflicts) == 3
    assert any("status is 'read' here, 'reading' in the file (kept yours)" in c for c in report.conflicts)
    assert any("title is 'My own title' here" in c for c in report.conflicts)
    assert any(c.startswith("saved search 'thesis'") for c in report.conflicts)
    assert colleague.get(mcr).summary.status == "read"
    assert colleague.get(mcr).summary.rating == 4  # unset here: taken, no conflict
    report = colleague.exchange.import_annotations(path, theirs=True)
    assert colleague.get(mcr).summary.status == "reading"
    assert colleague.get(neurons).summary.title == "Sparse wide nets"
    assert colleague.saved.saved_searches()[0].query == "tag:project/thesis"


def test_papers_match_by_fingerprint_doi_or_title_when_keys_differ(seeded_both, tmp_path):
    mcr, _ = annotate(seeded_both)
    path = tmp_path / "notes.json"
    seeded_both.exchange.export_annotations(path)
    document = json.loads(path.read_text())
    for entry in document["papers"]:
        entry["key"] = "zzzzzzz"  # another catalog's keys
    document["papers"].append({"key": "qqqqqqq", "title": "A Paper Nobody Has", "tags": ["x"]})
    path.write_text(json.dumps(document))
    report = seeded_both.exchange.import_annotations(path)
    assert (report.matched, report.not_found) == (2, ["qqqqqqq 'A Paper Nobody Has'"])
    # A catalog that knows the papers only by title and DOI (from BibTeX) matches by those.
    bib = tmp_path / "refs.bib"
    bib.write_text("@misc{a, title = {White-Box Transformers}, doi = {10.5555/WB}}\n")
    third = Catalog.open(tmp_path / "third.db")
    third.import_paths([bib])
    shared = {"format": "catalog-annotations", "version": 1, "papers": [
        {"key": "aaaaaaa", "doi": "10.5555/wb", "tags": ["by-doi"]},
        {"key": "bbbbbbb", "title": "white-box transformers!", "notes": [{"body": "by title"}]}]}
    path.write_text(json.dumps(shared))
    report = third.exchange.import_annotations(path)
    assert report.matched == 2
    [paper] = third.exchange.export_papers("")
    assert (paper.tags, paper.notes) == (("by-doi",), ("by title",))
    third.close()


def test_bad_annotation_files_are_one_line_errors(run_cli, tmp_path):
    run_cli("import", str(SEEDS))
    (tmp_path / "not.json").write_text("{ nope")
    (tmp_path / "other.json").write_text('{"papers": []}')
    (tmp_path / "newer.json").write_text('{"format": "catalog-annotations", "version": 99}')
    cases = [
        ("not.json", "not valid JSON"),
        ("other.json", "is not a catalog annotations file"),
        ("newer.json", "annotations version 99"),
        ("missing.json", "cannot read"),
    ]
    for name, message in cases:
        result = run_cli("annotations", "import", str(tmp_path / name))
        assert result.exit_code == 1 and message in result.stderr, (name, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1


def test_annotations_cli_end_to_end(run_cli, tmp_path):
    run_cli("import", str(SEEDS))
    key = json.loads(run_cli("list", "--json", "-n", "1").stdout)[0]["key"]
    run_cli("tag", key, "+toread")
    run_cli("note", key, "a note")
    path = tmp_path / "mine.json"
    result = run_cli("annotations", "export", str(path))
    assert result.exit_code == 0 and "Exported annotations of 1 paper" in result.stderr
    assert json.loads(run_cli("annotations", "export", "-").stdout)["papers"][0]["key"] == key
    document = json.loads(path.read_text())
    document["papers"][0]["status"] = "read"
    document["papers"].append({"key": "nope123", "title": "Unknown paper", "tags": ["x"]})
    path.write_text(json.dumps(document))
    result = run_cli("annotations", "import", str(path))
    assert result.exit_code == 0
    assert "catalog: not in this catalog: nope123 'Unknown paper'" in result.stderr
    assert "1 of 2 papers matched" in result.stderr
    assert json.loads(run_cli("show", key, "--json").stdout)["status"] == "read"


def test_annotations_export_takes_the_file_as_catalog_export_does(run_cli, tmp_path):
    """-o FILE as in `catalog export`; no file at all: standard output."""
    run_cli("import", str(SEEDS))
    key = json.loads(run_cli("list", "--json", "-n", "1").stdout)[0]["key"]
    run_cli("tag", key, "+toread")
    path = tmp_path / "mine.json"
    result = run_cli("annotations", "export", "-o", str(path))
    assert result.exit_code == 0 and f"Exported annotations of 1 paper to {path}" in result.stderr
    assert json.loads(path.read_text())["papers"][0]["key"] == key
    assert json.loads(run_cli("annotations", "export").stdout)["papers"][0]["key"] == key
    both = run_cli("annotations", "export", str(tmp_path / "a.json"), "-o", str(path))
    assert both.exit_code == 2 and "name the file once" in both.stderr


def test_annotations_import_is_one_transaction(seeded_both, tmp_path, monkeypatch):
    from catalog.parts import annotations

    other = Catalog.open(tmp_path / "other.db")
    other.import_paths([SEEDS])
    mcr, _ = annotate(other)
    path = tmp_path / "notes.json"
    other.exchange.export_annotations(path)
    other.close()
    calls = []
    real = annotations._merge_paper

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk on fire")
        return real(*args, **kwargs)

    monkeypatch.setattr(annotations, "_merge_paper", failing)
    with pytest.raises(RuntimeError):
        seeded_both.exchange.import_annotations(path)
    assert seeded_both.get(mcr).summary.tags == ()  # the first paper's changes were rolled back too


# --- backup -----------------------------------------------------------------------------------

def test_backup_is_a_consistent_copy_while_a_reader_is_open(seeded, db_path, tmp_path):
    key = key_of(seeded, "MCR2")
    seeded.tag([key], ["toread"])
    reader = sqlite3.connect(db_path)  # like the TUI, in the middle of a read
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM paper").fetchone()
    try:
        target = seeded.admin.backup(tmp_path / "copy.db")
    finally:
        reader.rollback()
        reader.close()
    copy = sqlite3.connect(target)
    try:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert copy.execute("SELECT count(*) FROM paper").fetchone() == (90,)
        assert copy.execute("SELECT tags_text FROM paper WHERE key = ?", (key,)).fetchone() == ("toread",)
    finally:
        copy.close()
    restored = Catalog.open(target)
    assert [p.key for p in restored.search("tag:toread")] == [key]
    restored.close()


def test_backup_refuses_to_overwrite_unless_forced(run_cli, tmp_path, db_path):
    run_cli("import", str(SEEDS))
    target = tmp_path / "backup.db"
    target.write_text("precious")
    result = run_cli("backup", str(target))
    assert result.exit_code == 1 and "exists" in result.stderr and "--force" in result.stderr
    assert target.read_text() == "precious"
    result = run_cli("backup", str(target), "--force")
    assert result.exit_code == 0 and "Backed up to" in result.stderr
    assert target.read_bytes().startswith(b"SQLite format 3\x00")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    result = run_cli("backup", str(db_path), "--force")
    assert result.exit_code == 1 and "is this catalog" in result.stderr
    result = run_cli("backup", str(tmp_path / "no" / "such" / "dir.db"))
    assert result.exit_code == 1 and "does not exist" in result.stderr


def test_backup_library_errors(seeded, tmp_path):
    (tmp_path / "x.db").write_text("")
    with pytest.raises(CatalogError, match="exists"):
        seeded.admin.backup(tmp_path / "x.db")
