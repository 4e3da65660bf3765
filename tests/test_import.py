from __future__ import annotations

import sqlite3

from catalog.library import Catalog
from tests.conftest import SEEDS, key_of


def counts(path):
    conn = sqlite3.connect(path)
    try:
        return tuple(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                     for t in ("paper", "provenance", "source"))
    finally:
        conn.close()


def test_seeds_give_90_papers_and_91_provenance_rows(seeded, db_path):
    assert counts(db_path) == (90, 91, 5)


def test_the_shared_abstract_lists_both_files(seeded):
    detail = seeded.get(key_of(seeded, '"increasing the number of neurons"'))
    assert len(detail.sources) == 2
    assert {s.venue for s in detail.sources} == {"ICML"}


def test_reimport_reports_nothing_new_and_changes_nothing(seeded, db_path, seeds_copy):
    before = counts(db_path)
    report = seeded.import_paths([SEEDS])
    assert (report.new, report.known, report.errors) == (0, 90 + 1, [])
    # The same content under other names is also already known.
    report = seeded.import_paths([seeds_copy])
    assert report.new == 0
    assert counts(db_path) == before


def test_reimport_keeps_user_data(seeded, db_path, tmp_path):
    key = key_of(seeded, "MCR2")
    seeded.tag([key], ["toread", "project/thesis"])
    seeded.add_note(key, "check the rate-reduction proof")
    seeded.set_status([key], "reading")
    seeded.set_rating([key], 4)
    seeded.set_title(key, "My title")
    # A new file holding the same abstract (reformatted) plus one new paper.
    original = seeded.get(key).abstract
    wrapped = original[:60] + "\n" + original[60:]
    (tmp_path / "more.txt").write_text(f"ICML 2026 Papers\n\n{wrapped.upper()}\n\nA brand new abstract.\n")
    report = seeded.import_paths([tmp_path / "more.txt"])
    assert (report.new, report.known) == (1, 1)
    detail = seeded.get(key)
    assert detail.summary.tags == ("project/thesis", "toread")
    assert [n.body for n in detail.notes] == ["check the rate-reduction proof"]
    assert (detail.summary.status, detail.summary.rating, detail.summary.title) == ("reading", 4, "My title")
    assert len(detail.sources) == 2


def test_a_bad_file_leaves_nothing_and_others_still_import(empty_catalog, db_path, tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("ICLR 2026 Papers\n\nFirst abstract.\n\nSecond abstract.\n")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ICLR 2026 Papers\n\nFine abstract.\n\nBroken \xe9 bytes here.\n")
    report = empty_catalog.import_paths([bad, good])
    assert report.new == 2
    [failed] = report.errors
    assert "bad.txt:5" in failed.error and "UTF-8" in failed.error
    assert counts(db_path) == (2, 2, 1)


def test_folder_import_skips_other_files_and_survives_symlink_loops(empty_catalog, tmp_path):
    folder = tmp_path / "lists"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.txt").write_text("NeurIPS 2025 Papers\n\nAn abstract about graphs.\n")
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    (folder / "sub" / "loop").symlink_to(folder, target_is_directory=True)
    report = empty_catalog.import_paths([folder])
    assert (report.new, report.errors) == (1, [])
    [paper] = empty_catalog.search("graphs")
    assert (paper.venue, paper.year) == ("NeurIPS", 2025)


def test_missing_and_empty_files_get_clear_errors(empty_catalog, tmp_path):
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "header.txt").write_text("ICML 2026 Papers\n\n")
    report = empty_catalog.import_paths(
        [tmp_path / "nope.txt", tmp_path / "empty.txt", tmp_path / "header.txt"]
    )
    errors = [f.error for f in report.errors]
    assert len(errors) == 3
    assert "no such file" in errors[0]
    assert "empty" in errors[1]
    assert "no abstracts" in errors[2]


def test_venue_and_year_options_for_headerless_files(empty_catalog, tmp_path):
    f = tmp_path / "plain.txt"
    f.write_text("Just an abstract about kernels.\n\nAnother about trees.\n")
    assert empty_catalog.import_paths([f]).errors
    report = empty_catalog.import_paths([f], venue="COLT", year=2024)
    assert report.new == 2
    assert {(p.venue, p.year) for p in empty_catalog.search("")} == {("COLT", 2024)}


def test_keys_are_stable_across_catalogs(seeded, tmp_path):
    other = Catalog.open(tmp_path / "other.db")
    # Import in another order: keys derive from content, not from import order.
    other.import_paths(sorted(SEEDS.glob("*.txt"), reverse=True))
    mine = {p.key: p.title for p in seeded.search("", limit=200)}
    theirs = {p.key: p.title for p in other.search("", limit=200)}
    assert mine == theirs
    other.close()


def test_headlines_and_rendering(seeded):
    detail = seeded.get(key_of(seeded, "MCR2"))
    assert "MCR²" in detail.abstract_text
    assert "$" not in detail.abstract_text
    assert "\\text{MCR}^2" in detail.abstract  # the original stays as imported
    for paper in seeded.search("", limit=100):
        assert paper.title and "$" not in paper.title and "*" not in paper.title
