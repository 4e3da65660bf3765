"""Upgrading to escape-insensitive fingerprints (migration 0005) keeps every key and every
annotation, recomputes the fingerprints a BibTeX round trip used to change, and lets such an
export find the papers it came from. Every export format gives every key back."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from catalog.store.sqlite import migrations as migrate
from catalog.importing.dedupe import fingerprint_of, identifies
from catalog.library import Catalog
from tests.conftest import SEEDS


def _rows(path):
    conn = sqlite3.connect(path)
    try:
        return {k: (fp, a) for k, fp, a in conn.execute("SELECT key, fingerprint, abstract FROM paper")}
    finally:
        conn.close()


def test_an_upgrade_keeps_keys_and_refingerprints_escaped_abstracts(tmp_path):
    old = tmp_path / "old.db"
    migrate.upgrade(old, "0004")
    # A catalog as 0004 wrote it: fingerprints of the text with its escapes (the old hash).
    import hashlib
    import unicodedata

    def old_fp(text):
        norm = " ".join(unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold()).split())
        return hashlib.sha256(norm.encode()).hexdigest()[:32]

    catalog = Catalog.open(tmp_path / "new.db")  # the papers as this version stores them
    catalog.import_paths([SEEDS])
    key = catalog.search("", limit=1, snippets=False)[0].key
    catalog.close()
    conn = sqlite3.connect(tmp_path / "new.db")
    conn.execute("ATTACH DATABASE ? AS old", (str(old),))
    # The columns both revisions have (later ones add some: 0013's kind).
    at_0004 = {r[1] for r in conn.execute("PRAGMA old.table_info(paper)")}
    columns = [r[1] for r in conn.execute("PRAGMA main.table_info(paper)") if r[1] in at_0004]
    conn.execute(f"INSERT INTO old.paper({', '.join(columns)}) SELECT {', '.join(columns)} FROM paper")
    conn.commit()
    conn.execute("DETACH DATABASE old")
    conn.close()
    conn = sqlite3.connect(old)
    escaped = {}
    for pid, abstract in conn.execute("SELECT id, abstract FROM paper WHERE instr(abstract, '\\')").fetchall():
        conn.execute("UPDATE paper SET fingerprint = ? WHERE id = ?", (old_fp(abstract), pid))
        escaped[pid] = abstract
    conn.execute("INSERT INTO paper_fts(paper_fts) VALUES ('rebuild')")
    conn.commit()
    conn.close()
    assert len(escaped) >= 4
    before = _rows(old)
    expected = {k for k, (fp, abstract) in before.items() if fingerprint_of(abstract) != fp}

    catalog = Catalog.open(old)  # migrates to head, with a copy kept
    try:
        after = _rows(old)
        assert sorted(after) == sorted(before)  # every key kept
        changed = {k for k in after if after[k][0] != before[k][0]}
        assert changed == expected and len(changed) >= 4  # at least the seeds that write `\%`
        assert all(after[k][0] == fingerprint_of(after[k][1]) for k in after)
        catalog.tag([key], ["kept"])
        # A BibTeX export of the upgraded catalog imports back onto the same keys.
        target = tmp_path / "refs.bib"
        catalog.exchange.export("", "bibtex", target)
        report = catalog.import_paths([target])
        assert (report.new, report.known) == (0, 90), report
    finally:
        catalog.close()
    assert list(tmp_path.glob("old.db.before-0004-*.bak"))


def _migration():
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "migrations" / "versions" / "0005_escape_insensitive_fingerprints.py"
    spec = importlib.util.spec_from_file_location("m0005", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SAMPLES = [
    r"12\% on R\&D, item \#3 and snake\_case, 3\$ and \{x\}",
    r"{BERT} and {GPT}-2 by M\"uller and {\"O}zt{\"u}rk, {\ss}, \c{c}, \v{s}, \'e, \`a, \^o, \~n",
    r"$\mathcal{O}(n^{2})$ math keeps {braces} but \textbf{bold} and \url{https://x.org/a_b} stay",
    r"96\\% Markdown-escaped, \textbackslash{} and \textbraceleft{}x\textbraceright{}",
    "Plain text without anything special.", "",
]


def test_the_migration_computes_what_this_version_computes():
    """0005 holds a frozen copy of the fingerprint; today they must agree."""
    module = _migration()
    for sample in SAMPLES:
        assert module._new(sample) == fingerprint_of(sample), sample


# --- every export format, on the libraries in tests/data/libraries ----------------------------

LIBRARIES = Path(__file__).resolve().parent / "data" / "libraries"
ROUND_TRIP = {"bibtex": ".bib", "csljson": ".json", "ris": ".ris", "csv": ".csv", "jsonl": ".jsonl"}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """Every library in tests/data/libraries and the seeds, in one catalog as a user's would be."""
    folder = tmp_path_factory.mktemp("library")
    # A paper without a title and with an abstract too short to say which paper it is.
    (folder / "posters.jsonl").write_text(json.dumps(
        {"abstract": "Poster: sparse codes of natural images, measured in cats.", "year": 1996}) + "\n")
    catalog = Catalog.open(folder / "catalog.db")
    report = catalog.import_paths([LIBRARIES, SEEDS, folder / "posters.jsonl"])
    assert not report.errors, report.errors
    yield catalog
    catalog.close()


def _keys_after_a_round_trip(catalog: Catalog, fmt: str, folder: Path) -> set[str]:
    exported = folder / f"export{ROUND_TRIP[fmt]}"
    catalog.exchange.export("", fmt, exported)
    fresh = Catalog.open(folder / "fresh.db")
    try:
        report = fresh.import_paths([exported])
        assert not report.errors and not report.warnings, report
        return {p.key for p in fresh.exchange.export_papers("")}
    finally:
        fresh.close()


def _merged_or_untitled(catalog: Catalog) -> set[str]:
    """Keys a re-import cannot derive again from what the file holds: a paper merged from
    several records keeps the key of the first, while a re-import would derive one from the
    merged fields; a paper without a title whose short abstract does not identify it. Exports
    carry every paper's key (BibTeX `catalogkey`, RIS `C8`, CSL `custom`), and an import into
    a catalog where it is free takes it."""
    hard = set()
    for paper in catalog.exchange.export_papers(""):
        if len(catalog.get(paper.key).sources) > 1 or (paper.title is None and not identifies(paper.abstract)):
            hard.add(paper.key)
    return hard


@pytest.mark.parametrize("fmt", ROUND_TRIP)
def test_keys_survive_a_round_trip_through_every_export_format(library, tmp_path, fmt):
    """Titles TeX would read otherwise (`Read--Satisfy` is not an en dash, `''` no closing
    quote: plain-titles.json) come back as they were, and so do their keys."""
    before = {p.key for p in library.exchange.export_papers("")}
    assert len(before - _merged_or_untitled(library)) >= 120
    assert before == _keys_after_a_round_trip(library, fmt, tmp_path)


@pytest.mark.parametrize("fmt", ["bibtex", "csljson", "ris"])
def test_keys_of_merged_and_untitled_papers_survive_a_round_trip(library, tmp_path, fmt):
    hard = _merged_or_untitled(library)
    assert len(hard) >= 5
    assert hard <= _keys_after_a_round_trip(library, fmt, tmp_path)
