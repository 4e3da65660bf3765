"""Hand edits of paper.abstract (the sqlite3 shell): the text derived from it follows, by the
next command or by `catalog doctor --fix`, and the paper keeps its key."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from catalog.importing.dedupe import fingerprint_of
from catalog.library import Catalog
from tests.conftest import SEEDS

NEW = "We study quokkas on islands and measure their $\\alpha$-smiles with 12\\% more joy."


@pytest.fixture
def edited(run_cli, db_path) -> tuple[str, dict]:
    """A seeded catalog and one paper whose abstract was replaced in the sqlite3 shell."""
    assert run_cli("import", str(SEEDS)).exit_code == 0
    before = json.loads(run_cli("search", "--json", "influence functions", "-n", "1").stdout)["papers"][0]
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("UPDATE paper SET abstract = ? WHERE key = ?", (NEW, before["key"]))
    conn.close()
    return before["key"], before


def _row(db_path: Path, key: str) -> dict:
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    try:
        return dict(conn.execute("SELECT * FROM paper WHERE key = ?", (key,)).fetchone())
    finally:
        conn.close()


def test_the_next_command_sees_the_edited_abstract(edited, run_cli, db_path):
    key, before = edited
    shown = run_cli("show", key)
    assert "quokkas" in shown.stdout and "α-smiles" in shown.stdout, shown.stdout  # rendered
    assert json.loads(run_cli("show", "--json", key).stdout)["abstract"] == NEW
    assert [p["key"] for p in json.loads(run_cli("search", "--json", "quokkas").stdout)["papers"]] == [key]
    assert [p["key"] for p in json.loads(run_cli("search", "--json", "alpha smiles").stdout)["papers"]
            if p["match"] == "all"] == [key]  # search_extra
    assert key not in [p["key"] for p in json.loads(run_cli("search", "--json", "influence functions").stdout)["papers"]]
    row = _row(db_path, key)
    assert row["fingerprint"] == fingerprint_of(NEW) and row["key"] == key
    assert "quokka" in row["headline"].lower()
    doctor = run_cli("doctor")
    assert doctor.exit_code == 0 and "The catalog is healthy." in doctor.stdout, doctor.stdout


def test_doctor_finds_edits_the_trigger_cannot_see_and_fix_keeps_the_key(run_cli, db_path):
    assert run_cli("import", str(SEEDS)).exit_code == 0
    keys = [p["key"] for p in json.loads(run_cli("list", "--json", "-n", "3").stdout)]
    conn = sqlite3.connect(db_path, isolation_level=None)
    # Someone edits abstract and abstract_text together (headline, search_extra and the
    # fingerprint stay old), and someone else inserts a paper by hand.
    conn.execute("UPDATE paper SET abstract = ?, abstract_text = ? WHERE key = ?", (NEW, NEW, keys[0]))
    conn.execute("UPDATE paper SET abstract = abstract || ' Quokkas too.', abstract_text = abstract_text"
                 " || ' Quokkas too.' WHERE key = ?", (keys[1],))
    conn.close()
    before = Path(db_path).read_bytes()
    found = run_cli("doctor")
    assert found.exit_code == 1, found.stdout
    assert "problem  derived text" in found.stdout and "2 paper(s)" in found.stdout, found.stdout
    assert Path(db_path).read_bytes() == before  # checking wrote nothing
    fixed = run_cli("doctor", "--fix")
    assert fixed.exit_code == 0 and "keys kept" in fixed.stdout and "healthy now" in fixed.stdout, fixed.stdout
    for key, text in ((keys[0], NEW), (keys[1], None)):
        row = _row(db_path, key)
        assert row["key"] == key and row["fingerprint"] == fingerprint_of(row["abstract"])
    assert "quokka" in _row(db_path, keys[0])["headline"].lower()
    assert set(p["key"] for p in json.loads(run_cli("search", "--json", "alpha smiles").stdout)["papers"]
               if p["match"] == "all") == {keys[0]}


def test_a_healthy_catalog_with_merged_papers_has_no_stale_text(db_path, run_cli):
    """Merging keeps a paper's older fingerprint when another paper has the new one: not a hand edit."""
    data = Path(__file__).resolve().parent / "data"
    catalog = Catalog.open(db_path)
    catalog.import_paths([SEEDS, *sorted(p for p in data.iterdir() if p.suffix in (".bib", ".json", ".csv"))])
    catalog.close()
    result = run_cli("doctor")
    assert "derived text" in result.stdout and "problem  derived text" not in result.stdout, result.stdout
