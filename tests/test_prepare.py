"""Large imports read and prepare files in a worker process (catalog/importing/reader.py): the
catalog they make is the one an in-process import makes; a bad file, an already imported
one or an error half-way through a file is handled the same way; and if the worker dies,
only the file it was reading fails."""

from __future__ import annotations

import dataclasses
import json
import sqlite3

import pytest

from catalog.importing import prepare, reader
from catalog.library import Catalog
from tests.conftest import SEEDS

DATA = SEEDS.parent / "tests" / "data"
ROW = "SELECT key, fingerprint, abstract, abstract_text, search_extra, headline, title, authors," \
      " venue, year, doi FROM paper ORDER BY key"


@pytest.fixture
def with_worker(monkeypatch):
    """Every import in this test uses the worker, however small."""
    monkeypatch.setattr(reader, "WORKER_MIN_BYTES", 0)
    started = []
    original = reader.Reader.__init__

    def spy(self, jobs, parallel):
        original(self, jobs, parallel)
        started.append(self._worker)
    monkeypatch.setattr(reader.Reader, "__init__", spy)
    return started


def rows(path, sql=ROW):
    conn = sqlite3.connect(path)
    try:
        conn.execute("INSERT INTO paper_fts(paper_fts, rank) VALUES ('integrity-check', 1)")
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def mixed_inputs(tmp_path):
    jsonl = tmp_path / "more.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in [
        {"title": "A Paper With A Title", "abstract": "We introduce ZORBLAX, a method.", "doi": "10.1/x"},
        {"title": "No Abstract Here", "authors": "Ada Lovelace", "year": 2024},
    ]), encoding="utf-8")
    return [SEEDS, DATA / "zotero.bib", jsonl]


def test_the_worker_makes_the_same_catalog(tmp_path, with_worker):
    worked = Catalog.open(tmp_path / "worker.db")
    report = worked.import_paths(mixed_inputs(tmp_path))
    worked.close()
    assert with_worker and with_worker[0] is not None  # the worker really ran
    assert with_worker[0].returncode is not None  # and has exited

    reader.WORKER_MIN_BYTES = 1 << 40  # monkeypatch restores it after the test
    alone = Catalog.open(tmp_path / "alone.db")
    expected = alone.import_paths(mixed_inputs(tmp_path))
    alone.close()
    assert with_worker[-1] is None  # in-process this time
    assert (report.new, report.known, report.merged) == (expected.new, expected.known, expected.merged)
    assert report.new > 90 and not report.errors
    assert rows(tmp_path / "worker.db") == rows(tmp_path / "alone.db")


def test_the_worker_reports_bad_files_and_goes_on(tmp_path, with_worker):
    (tmp_path / "lists").mkdir()
    bad = tmp_path / "lists" / "b_binary.txt"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    half = tmp_path / "lists" / "c_half.txt"
    # An error after the first batch: what the worker sent of this file must not land.
    half.write_bytes(b"ICML 2024 Papers\n\n" + b"".join(
        f"Abstract number {i} about topic {i * 7}.\n\n".encode() for i in range(prepare.BATCH + 10)
    ) + b"A broken \xff byte.\n")
    good = sorted(SEEDS.glob("*.txt"))
    catalog = Catalog.open(tmp_path / "c.db")
    report = catalog.import_paths([good[0], bad, half, *good[1:]])
    catalog.close()
    errors = {f.path: f.error for f in report.files if f.error}
    assert set(errors) == {str(bad), str(half)}
    assert "binary file" in errors[str(bad)]
    assert "not valid UTF-8" in errors[str(half)] and f":{2 * (prepare.BATCH + 10) + 3}:" in errors[str(half)]
    assert rows(tmp_path / "c.db", "SELECT count(*) FROM paper") == [(90,)]
    assert rows(tmp_path / "c.db", "SELECT count(*) FROM paper WHERE abstract LIKE 'Abstract number%'") == [(0,)]


def test_files_imported_before_are_not_read_again(tmp_path, with_worker):
    catalog = Catalog.open(tmp_path / "c.db")
    catalog.import_paths([SEEDS])
    again = catalog.import_paths([SEEDS])
    catalog.close()
    assert (again.new, again.known) == (0, 91)
    assert with_worker[-1] is None  # nothing left to read: no worker started


def paper_list(path, venue, n):
    path.write_text(f"{venue} 2024 Papers\n\n" + "".join(
        f"{venue} abstract {i} studies topic {i * 13 % 997}.\n\n" for i in range(n)), encoding="utf-8")
    return path


def test_if_the_worker_dies_the_file_fails_and_the_rest_import_in_process(tmp_path, with_worker):
    import os
    import signal

    first = paper_list(tmp_path / "a.txt", "ICML", 3 * prepare.BATCH)
    second = paper_list(tmp_path / "b.txt", "ICLR", (reader.LOOKAHEAD + 4) * prepare.BATCH)
    killed = []

    def kill_once(_n):
        if not killed:
            killed.append(with_worker[0].pid)
            os.kill(with_worker[0].pid, signal.SIGKILL)

    catalog = Catalog.open(tmp_path / "c.db")
    report = catalog.import_paths([first, second, SEEDS], progress=kill_once)
    catalog.close()
    errors = [f for f in report.files if f.error]
    assert len(errors) == 1 and "import worker process stopped unexpectedly" in errors[0].error
    failed = errors[0].path
    imported = {f.path: f.new for f in report.files if not f.error}
    assert sum(v for p, v in imported.items() if "/seeds/" in p) == 90
    expected = {str(first): 3 * prepare.BATCH, str(second): (reader.LOOKAHEAD + 4) * prepare.BATCH}
    stored = rows(tmp_path / "c.db", "SELECT venue, count(*) FROM paper WHERE abstract GLOB 'IC?? abstract *'"
                                     " GROUP BY venue")
    # The failed file left nothing behind; the others are whole.
    assert dict(stored) == {("ICML" if p == str(first) else "ICLR"): n
                            for p, n in expected.items() if p != failed}


def test_a_worker_that_cannot_start_or_dies_at_once_leaves_the_reading_to_this_process(
        tmp_path, with_worker, monkeypatch):
    import sys

    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'worker: something is missing' >&2\nexit 3\n")
    broken.chmod(0o755)
    for executable in (str(tmp_path / "no-such-python"), str(broken)):
        monkeypatch.setattr(sys, "executable", executable)
        db = tmp_path / f"{len(with_worker)}.db"
        catalog = Catalog.open(db)
        report = catalog.import_paths([SEEDS])
        catalog.close()
        assert (report.new, report.errors) == (90, []), executable
        assert rows(db, "SELECT count(*) FROM paper") == [(90,)]


def test_a_file_whose_earlier_import_vanished_is_read_after_all(tmp_path, with_worker, monkeypatch):
    from catalog.importing import importer

    files = sorted(SEEDS.glob("*.txt"))
    planned = importer._plan

    def thinks_the_first_is_known(database, path, *options):
        plan = planned(database, path, *options)
        plan.known = plan.known or path == files[0]  # as if a source row was deleted since
        return plan

    monkeypatch.setattr(importer, "_plan", thinks_the_first_is_known)
    catalog = Catalog.open(tmp_path / "c.db")
    report = catalog.import_paths(files)
    catalog.close()
    assert (report.new, report.errors) == (90, [])
    assert rows(tmp_path / "c.db", "SELECT count(*) FROM source") == [(5,)]


def test_short_forms_used_as_words_are_found_by_the_reader_as_the_importer_found_them(tmp_path, monkeypatch):
    """The reader finds, per paper, the short forms its batch defines that the abstract uses
    as ordinary words; the importer marks those of its new papers never to expand: the same
    acronyms, marked the same, as when the importer split every abstract itself."""
    def acronyms(db):
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT short, long_key, papers, ordinary FROM acronym ORDER BY 1, 2").fetchall()

    first = Catalog.open(tmp_path / "reader.db")
    first.import_paths([SEEDS])
    first.close()
    original = prepare.prepare_batch
    monkeypatch.setattr(prepare, "prepare_batch",
                        lambda *a, **k: dataclasses.replace(original(*a, **k), ordinary=None))
    second = Catalog.open(tmp_path / "importer.db")
    second.import_paths([SEEDS])
    second.close()
    found = acronyms(tmp_path / "reader.db")
    assert found == acronyms(tmp_path / "importer.db")
    assert any(row[3] for row in found) and any(not row[3] for row in found)
