"""The FTS index stays right when people edit the file with plain SQL (the sqlite3 shell)."""

from __future__ import annotations

import sqlite3

import pytest

from tests.conftest import key_of


@pytest.fixture
def raw(seeded, db_path):
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    yield conn
    conn.close()


def fts_ok(conn, table: str = "paper_fts") -> bool:
    try:
        conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError:
        return False
    return True


def stem_ok(conn) -> bool:
    return fts_ok(conn, "paper_stem")


def test_seeded_index_is_consistent(raw):
    assert fts_ok(raw) and stem_ok(raw)


def test_raw_insert_update_delete_keep_the_index_right(seeded, raw):
    raw.execute(
        "INSERT INTO paper(key, fingerprint, abstract, abstract_text, search_extra, headline,"
        " added_at, updated_at) VALUES ('zzzzzzz', 'fp', 'x', 'quokka habitats', '',"
        " 'Quokkas', '2026-01-01', '2026-01-01')"
    )
    assert fts_ok(raw)
    assert [p.key for p in seeded.search("habitats")] == ["zzzzzzz"]
    raw.execute("UPDATE paper SET abstract_text = 'wombat burrows' WHERE key = 'zzzzzzz'")
    assert fts_ok(raw) and stem_ok(raw)
    # In any form: the stemmed index follows the edit too (the headline still says Quokkas).
    assert seeded.search("habitat") == [] and seeded.search("wombat")
    assert [p.key for p in seeded.search("quokka")] == ["zzzzzzz"]
    mcr = key_of(seeded, "MCR2")
    raw.execute("UPDATE paper SET user_title = 'Platypus notes' WHERE key = ?", (mcr,))
    assert seeded.search("platypus")[0].key == mcr
    raw.execute("DELETE FROM paper WHERE key IN ('zzzzzzz', ?)", (mcr,))
    assert fts_ok(raw) and stem_ok(raw)
    assert seeded.search("wombat") == [] and seeded.search("platypus") == []
    assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_raw_tag_and_note_edits_reach_search(seeded, raw):
    key = key_of(seeded, "MCR2")
    pid = raw.execute("SELECT id FROM paper WHERE key = ?", (key,)).fetchone()[0]
    raw.execute("INSERT INTO tag(name) VALUES ('echidna')")
    raw.execute("INSERT INTO paper_tag(paper_id, tag_id) SELECT ?, id FROM tag WHERE name = 'echidna'", (pid,))
    raw.execute("INSERT INTO note(paper_id, body, created_at, updated_at) VALUES (?, 'numbat', '2026-01-01', '2026-01-01')", (pid,))
    assert [p.key for p in seeded.search("echidna numbat")] == [key]
    raw.execute("UPDATE tag SET name = 'bilby' WHERE name = 'echidna'")
    assert [p.key for p in seeded.search("tag:bilby bilby")] == [key]
    raw.execute("DELETE FROM note WHERE paper_id = ?", (pid,))
    raw.execute("DELETE FROM tag WHERE name = 'bilby'")  # cascades to paper_tag
    assert seeded.search("numbat") == [] and seeded.search("bilby") == []
    assert fts_ok(raw)


def test_constraints_hold_for_raw_sql(raw):
    with pytest.raises(sqlite3.IntegrityError):
        raw.execute("INSERT INTO paper_reader(paper_id, reader, status, updated_at)"
                    " SELECT id, 'ann', 'done', 0 FROM paper")
    with pytest.raises(sqlite3.IntegrityError):
        raw.execute("INSERT INTO paper_reader(paper_id, reader, rating, updated_at)"
                    " SELECT id, 'ann', 7, 0 FROM paper")
    with pytest.raises(sqlite3.IntegrityError):
        raw.execute("INSERT INTO note(paper_id, body, created_at, updated_at) VALUES (999999, 'x', 0, 0)")
