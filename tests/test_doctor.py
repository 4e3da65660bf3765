"""`catalog doctor`: each way a hand edit can break the file is found, and --fix repairs it.

Every case corrupts a temp catalog with raw sqlite3 (foreign keys off, triggers dropped, raw
inserts), as someone editing the file in the sqlite3 shell might.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from catalog.parts import doctor
from catalog.library import Catalog
from tests.conftest import SEEDS


@pytest.fixture
def filled(db_path: Path) -> dict:
    """A seeded catalog with tags, notes, a status and a rating; returns what the user did."""
    catalog = Catalog.open(db_path)
    catalog.import_paths([SEEDS])
    keys = [p.key for p in catalog.search("", limit=6, snippets=False)]
    catalog.tag(keys[:4], add=["alpha", "project/thesis"])
    catalog.tag(keys[2:6], add=["beta"])
    catalog.add_note(keys[0], "first note on zero")
    catalog.add_note(keys[0], "second note on zero")
    catalog.add_note(keys[1], "a note on one")
    catalog.set_status(keys[:2], "read")
    catalog.set_rating(keys[1:3], 4)
    state = {s.key: s for s in catalog.snapshot(keys)}
    catalog.close()
    return state


def raw(db_path: Path, *statements: str) -> None:
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = OFF")
    for statement in statements:
        conn.execute(statement)
    conn.close()


RAW_PAPER = ("INSERT INTO paper(key, fingerprint, abstract, abstract_text, search_extra, headline,"
             " tags_text, notes_text, added_at, updated_at) VALUES ('{key}', '{key}',"
             " '{text}', '{text}', '', '{text}', '', '', '2020-01-01', '2020-01-01')")

CORRUPTIONS = {
    "note on a missing paper": (
        ["INSERT INTO note(paper_id, body, created_at, updated_at)"
         " VALUES (987654, 'orphan', '2020-01-01', '2020-01-01')"],
        "note row(s) point to a paper that does not exist"),
    "tag row deleted under paper_tag": (
        ["DELETE FROM tag WHERE name = 'beta'"],
        "paper_tag row(s) point to a tag that does not exist"),
    "paper_tag on a missing paper": (
        ["INSERT INTO paper_tag(paper_id, tag_id) SELECT 987654, id FROM tag LIMIT 1"],
        "paper_tag row(s) point to a paper that does not exist"),
    "source deleted under provenance": (
        ["DELETE FROM source WHERE id = (SELECT min(id) FROM source)"],
        "provenance row(s) point to a source that does not exist"),
    "tags_text edited by hand": (
        ["UPDATE paper SET tags_text = 'bogus' WHERE id IN (SELECT id FROM paper LIMIT 3)"],
        "3 paper(s) have a tags_text that does not match their tags"),
    "note inserted with its trigger dropped": (
        ["DROP TRIGGER note_insert",
         "INSERT INTO note(paper_id, body, created_at, updated_at)"
         " SELECT min(id), 'sneaky', '2030-01-01', '2030-01-01' FROM paper"],
        "1 paper(s) have a notes_text that does not match their notes"),
    "raw insert with the FTS trigger dropped": (
        ["DROP TRIGGER paper_fts_insert", RAW_PAPER.format(key="zzzzzzz", text="raw zebra")],
        "the search index does not match the papers"),
    "abstract edited with the FTS trigger dropped": (
        ["DROP TRIGGER paper_fts_update",
         "UPDATE paper SET abstract_text = 'quokka' WHERE id = (SELECT min(id) FROM paper)"],
        "the search index does not match the papers"),
    "the FTS insert trigger dropped": (
        ["DROP TRIGGER paper_fts_insert"],
        "trigger paper_fts_insert is missing"),
    "a file recorded without its papers": (
        ["INSERT INTO source(path, sha256, format, imported_at)"
         " VALUES ('/x.txt', 'abc', 'paperlist', '2020-01-01')"],
        "1 imported file(s) hold no papers"),
    "a view and an index dropped": (
        ["DROP VIEW papers", "DROP INDEX ix_paper_year"],
        "view papers is missing"),
}


def test_a_healthy_catalog_passes(filled, run_cli):
    result = run_cli("doctor")
    assert result.exit_code == 0, result.output
    assert "The catalog is healthy." in result.stdout
    assert "problem" not in result.stdout


def test_real_libraries_import_healthy(db_path, run_cli):
    """JabRef's two articles with one publisher placeholder abstract are two papers, each
    fingerprinted by its title (dedupe.shared_abstracts): doctor must not call that stale."""
    catalog = Catalog.open(db_path)
    catalog.import_paths([Path(__file__).parent / "data" / "libraries"])
    catalog.close()
    result = run_cli("doctor")
    assert result.exit_code == 0 and "problem" not in result.stdout, result.stdout


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_doctor_finds_and_fixes(case, filled, db_path, run_cli):
    statements, expected = CORRUPTIONS[case]
    raw(db_path, *statements)

    found = run_cli("doctor")
    assert found.exit_code == 1, found.output
    assert expected in found.stdout, found.stdout
    assert "catalog doctor --fix" in found.stdout
    assert not list(db_path.parent.glob("*.bak")), "checking alone must not write anything"

    fixed = run_cli("doctor", "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert "Fixed: " in fixed.stdout and "healthy now" in fixed.stdout
    assert len(list(db_path.parent.glob("*before-doctor*.bak"))) == 1

    again = run_cli("doctor")
    assert again.exit_code == 0 and "The catalog is healthy." in again.stdout, again.stdout
    _assert_consistent(db_path)


def test_fix_keeps_user_data_and_indexes_raw_rows(filled, db_path, run_cli):
    for statements, _ in CORRUPTIONS.values():
        for statement in statements:
            try:
                raw(db_path, statement)
            except sqlite3.OperationalError:
                pass  # e.g. a trigger two cases drop
    assert run_cli("doctor").exit_code == 1
    assert run_cli("doctor", "--fix").exit_code == 0
    _assert_consistent(db_path)
    # The raw row is searchable, and so is a row inserted after the fix (trigger restored).
    raw(db_path, RAW_PAPER.format(key="zzzzzzy", text="raw yak"))
    for word, key in (("zebra", "zzzzzzz"), ("yak", "zzzzzzy")):
        hits = json.loads(run_cli("search", "--json", word).stdout)["papers"]
        assert [h["key"] for h in hits] == [key]
    # Tags the user gave that still exist, statuses, ratings and notes are all there.
    catalog = Catalog.open(db_path)
    try:
        for key, before in filled.items():
            after = catalog.snapshot([key])[0]
            assert (after.status, after.rating) == (before.status, before.rating)
            assert set(after.tags) == set(before.tags) - {"beta"}  # its tag row was deleted
            notes = [b for _, b in before.notes]
            assert [b for _, b in after.notes][:len(notes)] == notes
        assert catalog.search("tag:alpha", limit=100)
        assert catalog.search("quokka")
        assert catalog.search("sneaky")
    finally:
        catalog.close()


def test_checking_takes_no_write_and_reports_through_the_api(filled, db_path):
    raw(db_path, "DROP VIEW paper_notes")
    catalog = Catalog.open(db_path)
    try:
        report = doctor.run(catalog.store)
        assert not report.healthy and report.repaired == [] and report.backup is None
        assert [f.check for f in report.found] == ["schema"]
        report = doctor.run(catalog.store, fix=True)
        assert report.healthy and report.backup and report.backup.exists()
        # The copy holds the file as it was before the repair.
        with sqlite3.connect(report.backup) as conn:
            assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'paper_notes'").fetchall()
    finally:
        catalog.close()


def test_damage_it_cannot_repair_is_reported_with_a_way_out(filled, db_path, run_cli):
    # A reading mark whose CHECK constraint no longer holds: integrity_check (and so doctor)
    # says so; REINDEX cannot fix row contents.
    raw(db_path, "PRAGMA ignore_check_constraints = ON",
        "UPDATE paper_reader SET rating = 9 WHERE rowid = (SELECT min(rowid) FROM paper_reader)")
    found = run_cli("doctor")
    assert found.exit_code == 1 and "CHECK constraint failed" in found.stdout, found.stdout
    fixed = run_cli("doctor", "--fix")
    assert fixed.exit_code == 1
    assert "Still wrong:" in fixed.stdout and ".recover" in fixed.stdout


def _assert_consistent(db_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        conn.execute("INSERT INTO paper_fts(paper_fts, rank) VALUES ('integrity-check', 1)")
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'paper_fts_insert'").fetchone()
    finally:
        conn.rollback()
        conn.close()

