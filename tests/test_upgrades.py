"""Upgrades keep every tag, note, status and rating; a copy is kept first; newer files are refused.

The real history has one revision, so every test also runs against a pretend next revision
(tests/future_schema.py) that rebuilds the `paper` table the way Alembic's batch mode does:
the migration most likely to lose user data. The tests are written over
`schema.history()`, so real revisions are covered as they are added.

User data is written with plain SQL valid at the older revision: columns are read from
`PRAGMA table_info`, and only the tables and columns that hold user data today are filled
(paper.status/rating/user_title, tag, paper_tag, note, saved_search), and read back through
the `papers` view, so the per-person status and rating of 0009 (paper_reader) are compared
too. A future revision that renames one of those must extend `fill` and `user_data` below.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from catalog.errors import CatalogError
from catalog.parts import doctor
from catalog.store import schema
from catalog.store.sqlite import files, migrations as migrate
from catalog.importing.dedupe import fingerprint_of
from catalog.library import Catalog
from catalog.importing.prepare import derived_text
from tests import future_schema

N_PAPERS = 120


def _columns(conn: sqlite3.Connection, table: str) -> dict[str, tuple[str, bool, object]]:
    return {name: (kind, bool(notnull), default)
            for _, name, kind, notnull, default, _ in conn.execute(f"PRAGMA table_info({table})")}


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _value(kind: str, name: str, i: int):
    kind = kind.upper()
    if "INT" in kind:
        return i
    if "DATE" in kind or "TIME" in kind:
        return f"2024-01-{1 + i % 28:02d} 10:00:{i % 60:02d}.000000"
    return f"{name} {i}"


def _insert(conn: sqlite3.Connection, table: str, given: dict) -> int:
    """A row with `given`, plus a made-up value for every other required column."""
    row = dict(given)
    for name, (kind, notnull, default) in _columns(conn, table).items():
        if name not in row and notnull and default is None and name != "id":
            row[name] = _value(kind, name, len(row) + conn.total_changes)
    marks = ", ".join("?" * len(row))
    cursor = conn.execute(f"INSERT INTO {table}({', '.join(row)}) VALUES ({marks})", list(row.values()))
    return cursor.lastrowid


def fill(conn: sqlite3.Connection) -> None:
    """Papers with tags, notes, statuses, ratings and own titles, in SQL valid at any revision."""
    conn.execute("PRAGMA foreign_keys = ON")
    tables = _tables(conn)
    paper_columns = _columns(conn, "paper")
    source = _insert(conn, "source", {"path": "/lists/icml.txt", "sha256": "f" * 64})
    statuses = ("unread", "queued", "reading", "read", "skipped")
    for i in range(N_PAPERS):
        text = f"Paper {i} studies topic{i % 7} with method{i % 11} and ünïcödé {i}."
        rendered, headline, extra = derived_text(text, None, None)  # as the program writes them
        given = {"key": f"k{i:06d}", "fingerprint": fingerprint_of(text), "abstract": text,
                 "abstract_text": rendered, "headline": headline, "search_extra": extra,
                 "venue": "ICML", "year": 2020 + i % 5,
                 "status": statuses[i % 5], "rating": (i % 6) or None,
                 "user_title": f"My title {i}" if i % 4 == 0 else None}
        paper = _insert(conn, "paper", {k: v for k, v in given.items() if k in paper_columns})
        _insert(conn, "provenance", {"paper_id": paper, "source_id": source, "position": i + 1})
        for t in range(i % 4):
            conn.execute("INSERT OR IGNORE INTO tag(name) VALUES (?)", (f"tag{t}/sub{i % 3}",))
            conn.execute("INSERT INTO paper_tag(paper_id, tag_id) SELECT ?, id FROM tag WHERE name = ?",
                         (paper, f"tag{t}/sub{i % 3}"))
        for n in range(i % 3):
            _insert(conn, "note", {"paper_id": paper, "body": f"note {n} on {i}:\n[b]keep[/b] {'x' * n}",
                                   "created_at": f"2024-02-01 00:00:0{n}", "updated_at": "2024-02-02"})
    if "saved_search" in tables:
        _insert(conn, "saved_search", {"name": "good ones", "query": "rating:>=4"})
    if "paper_merge" in tables:  # what `catalog split` needs to undo a merge
        for i in range(0, N_PAPERS, 7):
            _insert(conn, "paper_merge", {"paper_id": i + 1, "source_id": source, "position": 1000 + i,
                                          "evidence": "same title", "filled": "authors",
                                          "record": '{"title": "t", "authors": "A B"}'})
    conn.commit()


def user_data(conn: sqlite3.Connection) -> dict:
    # Status and rating through the `papers` view (every revision has it): from 0009 on they
    # are each reader's own (paper_reader), and the view shows the catalog owner's.
    papers = conn.execute("SELECT v.paper_id, v.key, v.status, v.rating, p.user_title"
                          " FROM papers v JOIN paper p ON p.id = v.paper_id").fetchall()
    out = {}
    for pid, key, status, rating, user_title in papers:
        tags = sorted(r[0] for r in conn.execute(
            "SELECT t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.paper_id = ?", (pid,)))
        notes = [r[0] for r in conn.execute(
            "SELECT body FROM note WHERE paper_id = ? ORDER BY created_at, id", (pid,))]
        out[key] = (status, rating, user_title, tags, notes)
    out["provenance"] = conn.execute("SELECT count(*) FROM provenance").fetchone()[0]
    if "saved_search" in _tables(conn):
        out["saved"] = conn.execute("SELECT name, query FROM saved_search").fetchall()
    merges = conn.execute(
        "SELECT p.key, m.position, m.evidence, m.filled, m.record FROM paper_merge m"
        " JOIN paper p ON p.id = m.paper_id ORDER BY m.id").fetchall() if "paper_merge" in _tables(conn) else []
    if merges:  # from 0003 on; none before, and none in a file upgraded to it
        out["merges"] = merges
    return out


def _revisions() -> list[str]:
    return [rev for rev, _, _ in schema.history()]


@pytest.fixture(scope="module")
def at(tmp_path_factory):
    """`at(path, revision)`: an empty catalog file at `revision`, at `path`. A copy of one made
    once per test process, each revision's from the one before: every migration from nothing
    for each of 20 revisions took most of test_upgrade_from_each_earlier_revision's 40 s."""
    folder = tmp_path_factory.mktemp("revisions")
    walker, made = folder / "walking.db", {}

    def copy(path: Path, revision: str) -> Path:
        if revision not in made:
            for step in _revisions()[:_revisions().index(revision) + 1]:
                if step not in made:
                    migrate.upgrade(walker, step)
                    made[step] = folder / f"{step}.db"
                    shutil.copyfile(walker, made[step])  # closed: no WAL beside it
        shutil.copyfile(made[revision], path)
        return path

    return copy


@pytest.fixture(params=["real history", "with a pretend next revision"])
def history(request, tmp_path, monkeypatch) -> list[str]:
    if request.param != "real history":
        future_schema.patch(monkeypatch, future_schema.install(tmp_path))
    return _revisions()


def test_upgrade_from_each_earlier_revision_keeps_user_data(history, tmp_path, at):
    earlier = history[:-1]
    if not earlier:
        pytest.skip("one revision so far: there is no earlier schema that could hold user data")
    for start in earlier:
        path = at(tmp_path / f"at-{start}.db", start)
        with sqlite3.connect(path) as conn:
            fill(conn)
            before = user_data(conn)
        assert sum(len(v[3]) for k, v in before.items() if k.startswith("k")) > 100

        messages: list[str] = []
        catalog = Catalog.open(path, notify=messages.append)
        try:
            assert migrate.current(catalog.path) == history[-1]
            with sqlite3.connect(path) as conn:
                assert user_data(conn) == before
            # The program sees them, triggers work again, the search index is whole.
            state = catalog.snapshot(["k000005"])[0]
            assert (state.status, state.rating, list(state.tags)) == (*before["k000005"][:2], before["k000005"][3])
            catalog.tag(["k000005"], add=["after/upgrade"])
            assert [p.key for p in catalog.search("tag:after")] == ["k000005"]
            assert len(catalog.search("venue:icml", limit=500)) == N_PAPERS  # still without case
            assert [p.key for p in catalog.search("method3 topic6 ünïcödé") if p.match == "all"] == ["k000069"]
            assert catalog.search("keep", limit=500)
            report = doctor.run(catalog.store)
            assert report.healthy, report.remaining
        finally:
            catalog.close()

        backups = list(tmp_path.glob(f"at-{start}.db.before-{start}-*.bak"))
        if not schema.changes_sqlite(start):  # PostgreSQL-only migrations: no copy of the file
            assert backups == [] and not any("backup kept at" in m for m in messages), messages
            continue
        assert len(backups) == 1, list(tmp_path.iterdir())
        assert any("backup kept at" in m for m in messages), messages
        with sqlite3.connect(backups[0]) as conn:
            assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (start,)
            assert user_data(conn) == before


def test_stairway_with_user_data(history, tmp_path, at):
    """Up, down, up over every revision, with a catalog full of user data all the way."""
    path = at(tmp_path / "stairs.db", history[0])
    with sqlite3.connect(path) as conn:
        fill(conn)
        before = user_data(conn)
    for previous, revision in zip(history, history[1:]):
        migrate.upgrade(path, revision)
        migrate.downgrade(path, previous)
        migrate.upgrade(path, revision)
        assert migrate.current(path) == revision
        with sqlite3.connect(path) as conn:
            assert user_data(conn) == before, f"lost data migrating {previous} -> {revision}"
            conn.execute("INSERT INTO paper_fts(paper_fts, rank) VALUES ('integrity-check', 1)")
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    migrate.downgrade(path, history[0])
    with sqlite3.connect(path) as conn:
        assert user_data(conn) == before


def test_migrations_said_to_leave_sqlite_files_unchanged_do(tmp_path, at):
    """A catalog behind only by SQLITE_UNCHANGED migrations is upgraded without a copy, so each
    must really leave a SQLite file's schema as it was."""
    revisions = _revisions()
    assert schema.SQLITE_UNCHANGED <= set(revisions)
    for revision in sorted(schema.SQLITE_UNCHANGED):
        path = at(tmp_path / f"before-{revision}.db", revisions[revisions.index(revision) - 1])
        with sqlite3.connect(path) as conn:
            fill(conn)
            before = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall()
            data = user_data(conn)
        migrate.upgrade(path, revision)
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall() == before
            assert user_data(conn) == data
    assert schema.changes_sqlite(revisions[0]) and not schema.changes_sqlite(revisions[-1])


def test_an_empty_catalog_is_upgraded_without_a_copy(history, tmp_path, at):
    path = at(tmp_path / "empty.db", history[0])
    Catalog.open(path).close()
    assert not list(tmp_path.glob("*.bak"))


def test_no_partial_backup_is_left_and_none_is_overwritten(tmp_path):
    path = tmp_path / "c.db"
    Catalog.open(path).close()
    first, second = files.backup_copy(path, "x"), files.backup_copy(path, "x")
    assert first != second and first.exists() and second.exists()
    assert not list(tmp_path.glob("*.partial"))


# --- a file from a newer catalog ------------------------------------------------------------

def _future_file(tmp_path: Path, journal_mode: str) -> Path:
    path = tmp_path / f"future-{journal_mode}.db"
    catalog = Catalog.open(path)
    catalog.import_paths([Path(__file__).resolve().parent.parent / "seeds"])
    catalog.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("UPDATE alembic_version SET version_num = 'ffff_from_the_future'")
    conn.execute(f"PRAGMA journal_mode = {journal_mode}")
    conn.close()
    return path


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("journal_mode", ["wal", "delete"])
@pytest.mark.parametrize("command", [["stats"], ["db", "upgrade"], ["doctor", "--fix"],
                                     ["tag", "k", "+x"], ["sql", "SELECT 1"]])
def test_a_newer_file_gets_one_line_and_is_left_alone(tmp_path, journal_mode, command):
    path = _future_file(tmp_path, journal_mode)
    before = _digest(tmp_path)
    out = subprocess.run([sys.executable, "-m", "catalog", "--db", str(path), *command],
                         capture_output=True, text=True, env={**os.environ, "CATALOG_DB": ""})
    assert out.returncode != 0
    assert out.stderr.count("\n") == 1 and "newer version of catalog" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert _digest(tmp_path) == before  # not migrated, not converted to WAL, no -wal/-shm left


ZEBRA = ("INSERT INTO paper(key, fingerprint, abstract, abstract_text, search_extra, headline, status,"
         f" tags_text, notes_text, added_at, updated_at) VALUES ('k1', '{fingerprint_of('zebra walks')}',"
         f" 'zebra walks', 'zebra walks', '', '{derived_text('zebra walks', None, None)[1]}', 'unread', '', '',"
         " '2026-01-01', '2026-01-01')")


@pytest.mark.parametrize("damage, indexed", [
    (["DROP TRIGGER paper_fts_insert", ZEBRA], False),  # doctor --fix indexes it
    ([ZEBRA, "DROP TABLE fts_bulk_load"], True),
    (["INSERT INTO fts_bulk_load(active) VALUES (1)", ZEBRA], True),  # an interrupted import's flag
])
def test_revision_0002_upgrades_hand_edited_0001_files(tmp_path, damage, indexed):
    path = tmp_path / "old.db"
    migrate.upgrade(path, "0001")
    conn = sqlite3.connect(path)
    for statement in damage:
        conn.execute(statement)
    conn.commit()
    conn.close()
    catalog = Catalog.open(path)  # migrates to head: no error
    try:
        # Found either way: 0008 builds the stemmed index from the paper table.
        assert [p.key for p in catalog.search("zebra")] == ["k1"]
        assert doctor.run(catalog.store, fix=not indexed).healthy
        assert [p.key for p in catalog.search("zebra")] == ["k1"]
        catalog.add_note("k1", "notes are indexed after the upgrade: quagga")
        assert [p.key for p in catalog.search("quagga")] == ["k1"]
    finally:
        catalog.close()


def test_revision_0003_keeps_merges_from_then_on(tmp_path):
    """An 0002 catalog whose seeds merged one shared abstract: after the upgrade that paper
    says it cannot be split (nothing recorded how it merged), and new merges are recorded."""
    seeds = Path(__file__).resolve().parent.parent / "seeds"
    path = tmp_path / "old.db"
    migrate.upgrade(path, "0002")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    source = _insert(conn, "source", {"path": "/lists/a.txt", "sha256": "a" * 64})
    other = _insert(conn, "source", {"path": "/lists/b.txt", "sha256": "b" * 64})
    paper = _insert(conn, "paper", {"key": "kmerged", "fingerprint": "f" * 32, "abstract": "x", "abstract_text": "x",
                                    "headline": "x", "status": "reading"})
    _insert(conn, "provenance", {"paper_id": paper, "source_id": source, "position": 1})
    _insert(conn, "provenance", {"paper_id": paper, "source_id": other, "position": 4})
    conn.commit()
    conn.close()
    catalog = Catalog.open(path)
    try:
        assert migrate.current(path) == schema.SCHEMA_REVISION
        with pytest.raises(CatalogError, match="merged before this version"):
            catalog.split("kmerged")
        report = catalog.import_paths([seeds])
        assert report.merges and all("same abstract" in m for m in report.merges)
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT count(*) FROM paper_merge").fetchone() == (len(report.merges),)
        assert catalog.get("kmerged").summary.status == "reading"
    finally:
        catalog.close()
    migrate.downgrade(path, "0002")
    with sqlite3.connect(path) as conn:
        assert "paper_merge" not in _tables(conn)


def test_revision_0008_indexes_word_forms_of_existing_papers(tmp_path, at):
    """An 0007 catalog with user data: after the upgrade, its papers are found by other forms
    of their words (`studies` by `study`, tags by `tag0/sub1`'s words), user data unchanged."""
    path = at(tmp_path / "old.db", "0007")
    with sqlite3.connect(path) as conn:
        fill(conn)
        before = user_data(conn)
    catalog = Catalog.open(path)
    try:
        assert migrate.current(path) == schema.SCHEMA_REVISION
        found = {p.key for p in catalog.search("study topic3", limit=500) if p.match == "all"}
        assert found == {f"k{i:06d}" for i in range(N_PAPERS) if i % 7 == 3}
        assert catalog.search("=study") == [] and len(catalog.search("=studies", limit=500)) == N_PAPERS
        with sqlite3.connect(path) as conn:
            assert user_data(conn) == before
            conn.execute("INSERT INTO paper_stem(paper_stem, rank) VALUES ('integrity-check', 1)")
        # The stemmed index follows edits made after the upgrade too.
        catalog.tag(["k000005"], add=["pruning"])
        assert [p.key for p in catalog.search("prune")] == ["k000005"]
    finally:
        catalog.close()


def test_revision_0010_adds_empty_ranked_lists_and_keeps_user_data(tmp_path, at, monkeypatch):
    """An 0008 catalog with user data: after the upgrade the ranked lists of frequent words
    exist, empty; the first refresh fills them (the threshold lowered to this catalog's size)
    and search gives the full ranking; user data unchanged; a downgrade drops them."""
    from catalog.store.lists import scoring

    path = at(tmp_path / "old.db", "0008")
    with sqlite3.connect(path) as conn:
        fill(conn)
        before = user_data(conn)
    catalog = Catalog.open(path)
    try:
        assert migrate.current(path) == schema.SCHEMA_REVISION
        with sqlite3.connect(path) as conn:
            assert {"term_top", "term_top_state", "term_top_dirty", "term_top_was", "term_top_now"} <= _tables(conn)
            assert conn.execute("SELECT count(*) FROM term_top").fetchone() == (0,)
            assert user_data(conn) == before
        expected = [p.key for p in catalog.search("study", limit=200)]
        monkeypatch.setattr(scoring, "MIN_MATCHES", 10)
        built, stale = catalog.store.lists.refresh(budget=None)
        assert built > 0 and stale == 0
        assert [p.key for p in catalog.search("study", limit=200)] == expected
        assert doctor.run(catalog.store).found == []
        # An edit after the lists: the triggers note the paper, the lists follow it.
        first = catalog.search("study", limit=1)[0].key
        catalog.tag([first], ["study"])
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT count(*) FROM term_top_dirty").fetchone() == (1,)
        assert doctor.run(catalog.store).found == []
        catalog.tag([first], remove=["study"])
    finally:
        catalog.close()
    migrate.downgrade(path, "0008")
    with sqlite3.connect(path) as conn:
        assert not {"term_top", "term_top_state", "term_top_dirty", "term_top_was", "term_top_now"} & _tables(conn)
        assert not [r for r in conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'term_top%'")]
        assert user_data(conn) == before


def test_revision_0013_adds_the_kind_and_keeps_user_data(tmp_path, at):
    """An 0011 catalog with user data: after the upgrade every paper has `kind` NULL (not
    known), the `papers` view shows the column, an import fills it, user data is unchanged;
    a downgrade takes the column away again and keeps the rest."""
    path = at(tmp_path / "old.db", "0011")
    with sqlite3.connect(path) as conn:
        fill(conn)
        before = user_data(conn)
    catalog = Catalog.open(path)
    try:
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT count(*), count(kind) FROM papers").fetchone() == (N_PAPERS, 0)
            assert user_data(conn) == before
        bib = tmp_path / "lib.bib"
        bib.write_text("@article{a, title={A journal paper}, journal={Nature}, year=2001}\n")
        assert catalog.import_paths([bib]).new == 1
    finally:
        catalog.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT title, kind FROM papers WHERE kind IS NOT NULL").fetchall() == [
            ("A journal paper", "article")]
    migrate.downgrade(path, "0011")
    with sqlite3.connect(path) as conn:
        assert "kind" not in _columns(conn, "paper")
        assert "kind" not in [d[0] for d in conn.execute("SELECT * FROM papers LIMIT 1").description]
        after = user_data(conn)
        assert {k: after[k] for k in before if k != "provenance"} == {k: before[k] for k in before if k != "provenance"}
