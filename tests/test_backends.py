"""The storage layer on both backends (SQLite and a real PostgreSQL server, tests/pg_server.py):
the same commands give the same answers, edits and undo are exact, each person's marks are
their own, `catalog sql` cannot write, other sessions' changes are noticed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from catalog.cli import main
from catalog.errors import CatalogError, Interrupted
from catalog.library import Catalog
from tests.conftest import SEEDS, key_of

# Queries whose answers on the seeds must be the same set of papers on both backends.
SAME_ANSWERS = [
    "sparse attention", "interpret*", '"language models" -survey', "venue:icml year:>=2024",
    "multi-agent", "MCR2", "MCR²", "c++", "20.04", "hessian OR fisher", "-survey", "transformer",
    "neural network", "diffusion model", "reinforcement", "year:2020..2025 graph", "has:abstract",
    "key:2x", "robust*", "status:unread", "RL", "LLM", "GPT-4", "self-supervised", "C²R",
    "venue:ICML -model", "(", '"', "naïve OR naive", "模型",
    # word forms, acronyms and partial matches (the tiers)
    "neurons", "pruning", "=LLMs", "SAE", "large language model", "hallucinate", "sparse autoencoder temporal",
    "interpretab* neuron", "attention -neurons",
]


@pytest.fixture(scope="module")
def sqlite_answers(tmp_path_factory):
    catalog = Catalog.open(tmp_path_factory.mktemp("sqlite") / "c.db")
    catalog.import_paths([SEEDS])
    try:
        return {q: [p.key for p in catalog.search(q, limit=-1, snippets=False)] for q in SAME_ANSWERS}
    finally:
        catalog.close()


def test_the_seeds_give_the_same_answers_on_both_backends(seeded_any, sqlite_answers):
    for query, expected in sqlite_answers.items():
        found = [p.key for p in seeded_any.search(query, limit=-1, snippets=False)]
        assert sorted(found) == sorted(expected), query
        assert seeded_any.count(query) == len(expected), query
        if not any(w in query for w in ("*", "OR", "-", ":")) and len(expected) > 1:
            assert found[0] in expected[:3], (query, found[:3], expected[:3])  # ranking agrees roughly


def test_listing_is_newest_first_and_pages(seeded_any):
    everything = seeded_any.search("", limit=-1)
    years = [p.year or 0 for p in everything]
    assert years == sorted(years, reverse=True)
    assert [p.key for p in seeded_any.search("", limit=10, offset=10)] == [p.key for p in everything[10:20]]


def test_edits_and_undo_on_both(seeded_any):
    key = key_of(seeded_any, "sparse attention")
    tagged = seeded_any.tag([key], add=["group/week1"])
    seeded_any.set_status([key], "reading")
    rated = seeded_any.set_rating([key], 4)
    seeded_any.set_title(key, "My own title")
    seeded_any.add_note(key, "check eq. 3")
    assert [p.key for p in seeded_any.search("tag:group status:reading rating:>=4 has:notes")] == [key]
    assert [p.key for p in seeded_any.search("eq")] == [key]  # notes are searchable at once
    assert [p.key for p in seeded_any.search("week1")] == [key]  # and tags
    assert seeded_any.search('"My own title"')[0].key == key
    seeded_any.undo(rated)
    seeded_any.undo(tagged)
    detail = seeded_any.get(key)
    assert (detail.summary.rating, detail.summary.tags, detail.summary.status) == (None, (), "reading")
    assert seeded_any.search("tag:group") == []


def test_each_person_has_their_own_marks(people):
    ann = people("ann")
    ann.import_paths([SEEDS])
    bob = people("bob")
    key = key_of(ann, "sparse attention")
    ann.set_status([key], "read")
    bob.set_rating([key], 2)
    bob.add_note(key, "bob was here")
    assert (ann.get(key).summary.status, ann.get(key).summary.rating) == ("read", None)
    assert (bob.get(key).summary.status, bob.get(key).summary.rating) == ("unread", 2)
    assert [n.author for n in ann.get(key).notes] == ["bob"]
    assert [p.key for p in bob.search("rating:2")] == [key] and ann.search("rating:2") == []


def test_alternative_filters_find_either(seeded_any):
    tagged, read = key_of(seeded_any, "sparse attention"), key_of(seeded_any, "diffusion model")
    seeded_any.tag([tagged], add=["lab/x"])
    seeded_any.set_status([read], "read")
    assert sorted(p.key for p in seeded_any.search("tag:lab OR status:read", limit=-1)) == sorted([tagged, read])
    assert seeded_any.count("tag:lab OR status:read") == 2
    assert [p.key for p in seeded_any.search("tag:lab OR status:read -tag:lab/x", limit=-1)] == [read]
    assert seeded_any.facets("tag:lab OR status:read").total == 2


def test_importing_again_adds_nothing(seeded_any):
    report = seeded_any.import_paths([SEEDS])
    assert (report.new, report.errors) == (0, [])
    assert seeded_any.stats().papers == 90


def test_a_second_file_with_the_same_papers_joins_them_on_both(empty_any, tmp_path):
    """Deduplication's lookups (fingerprints, DOIs, keys) and provenance, the same on both
    backends: the known records join their papers, each paper lists both files."""
    abstracts = [f"We study topic {n} with a method of our own that works on {n} graphs." for n in range(3)]
    first, second = tmp_path / "ICML_2024.txt", tmp_path / "NeurIPS_2024.txt"
    first.write_text("ICML 2024 Papers\n\n" + "\n\n".join(abstracts) + "\n")
    second.write_text("NeurIPS 2024 Papers\n\n" + "\n\n".join([abstracts[1], "A new paper on sparse attention.",
                                                                 abstracts[0], abstracts[0]]) + "\n")
    assert empty_any.import_paths([first]).new == 3
    report = empty_any.import_paths([second])
    assert (report.new, report.known, report.errors) == (1, 2, [])
    assert empty_any.stats().papers == 4
    [paper] = empty_any.search('"topic 0"')
    assert [(s.venue, s.position) for s in empty_any.get(paper.key).sources] == [("ICML", 1), ("NeurIPS", 3), ("NeurIPS", 4)]


def test_sql_reads_and_never_writes(seeded_any):
    names, rows = seeded_any.store.run_sql("SELECT key, status FROM papers ORDER BY key LIMIT 2")
    assert names == ["key", "status"] and len(rows) == 2
    for statement in ("UPDATE paper SET year = 1900", "DELETE FROM note", "DROP TABLE paper"):
        with pytest.raises(CatalogError):
            seeded_any.store.run_sql(statement)
    assert seeded_any.search("year:1900") == [] and seeded_any.stats().papers == 90


def test_sql_stops_when_asked(seeded_any):
    slow = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000)"
            " SELECT count(*) FROM n")
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(Interrupted):
        seeded_any.store.run_sql(slow, stop=stop)


def test_another_sessions_change_is_noticed(location):
    first = Catalog.open(location)
    second = Catalog.open(location)
    try:
        first.import_paths([SEEDS])
        before = first.store.data_version()
        assert first.store.data_version() == before  # nothing changed: the same number
        second.tag([key_of(second, "sparse attention")], add=["seen"])
        import time

        deadline = time.monotonic() + 120  # generous: fires only when the change is never seen
        while first.store.data_version() == before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert first.store.data_version() != before
    finally:
        first.close()
        second.close()


def test_a_server_that_cannot_be_reached_is_one_line_without_the_password(pg_server):
    url = pg_server.url("nowhere").replace("postgres@", "postgres:hunter2@")
    with pytest.raises(CatalogError) as raised:
        Catalog.open(url)
    message = str(raised.value)
    assert "\n" not in message and "hunter2" not in message and "nowhere" in message


def test_a_database_of_another_program_is_refused(pg_server):
    import psycopg

    url = pg_server.create()
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE invoices (id int)")
        with pytest.raises(CatalogError, match="not a catalog database .*invoices"):
            Catalog.open(url)
    finally:
        pg_server.drop(url)


def _cli(location, *args, user="ann"):
    """`catalog ARGS` as `user`: CATALOG_USER on a file, the member role on a server."""
    from tests.pg_server import as_role

    if isinstance(location, str):
        location = as_role(location, user)
    return CliRunner().invoke(main, ["--db", str(location), *args], env={"CATALOG_USER": user})


def test_the_commands_end_to_end(location, people, tmp_path):
    people("ann")  # on a server: the owner made the catalog and shared it
    assert _cli(location, "import", str(SEEDS)).exit_code == 0
    found = _cli(location, "search", "sparse attention")
    assert found.exit_code == 0
    key = found.output.split()[0]  # the one paper holding both words; partial matches follow
    for args in (("tag", key, "+group/week1"), ("status", key, "reading"), ("rate", key, "5"),
                 ("note", key, "bring questions"), ("saved", "add", "mine", "tag:group")):
        assert _cli(location, *args).exit_code == 0, (args, _cli(location, *args).output)
    import json

    shown = json.loads(_cli(location, "show", key, "--json").output)
    assert (shown["status"], shown["rating"], shown["tags"]) == ("reading", 5, ["group/week1"])
    assert [(n["author"], n["body"]) for n in shown["notes"]] == [("ann", "bring questions")]
    assert json.loads(_cli(location, "show", key, "--json", user="bob").output)["status"] == "unread"
    assert _cli(location, "list", "status:reading").output.split()[0] == key
    assert key in _cli(location, "sql", "SELECT key FROM papers WHERE rating = 5").output
    refused = _cli(location, "sql", "DELETE FROM paper")
    assert refused.exit_code != 0 and "read-only" in refused.stderr
    assert "@misc{" in _cli(location, "export", "-f", "bibtex", "tag:group").output
    from catalog.store.schema import SCHEMA_REVISION

    assert _cli(location, "db", "current").output.strip() == SCHEMA_REVISION
    assert _cli(location, "doctor").exit_code == 0
    backup = tmp_path / "backup.db"
    assert _cli(location, "backup", str(backup)).exit_code == 0
    assert _cli(backup, "show", key, "--json").exit_code == 0
    assert json.loads(_cli(backup, "show", key, "--json").output)["rating"] == 5


def test_copy_moves_everything_between_backends(seeded_any, tmp_path, pg_server):
    key = key_of(seeded_any, "sparse attention")
    seeded_any.tag([key], add=["lab/reading"])
    seeded_any.set_status([key], "read")
    seeded_any.add_note(key, "our notes")
    seeded_any.saved.save_search("lab", "tag:lab")
    seeded_any.words.add_acronym("ZQA", "attention sink")
    file_copy = tmp_path / "copy.db"
    server_copy = pg_server.create()
    try:
        counts = seeded_any.admin.copy_to(file_copy)
        assert counts["paper"] == 90 and counts["paper_reader"] == 1
        Catalog.open(file_copy).admin.copy_to(server_copy)  # and back onto a server
        for where in (file_copy, server_copy):
            copy = Catalog.open(where)
            try:
                assert [p.key for p in copy.search("tag:lab status:read our")] == [key]
                assert [(n.author, n.body) for n in copy.get(key).notes] == [(copy.get(key).notes[0].author, "our notes")]
                assert [s.query for s in copy.saved.saved_searches()] == ["tag:lab"]
                assert sorted(p.key for p in copy.search("", limit=-1)) == sorted(
                    p.key for p in seeded_any.search("", limit=-1))
                # What the import learned comes along: acronyms widen searches as before (the
                # same papers; the ranking is each backend's).
                assert sorted(p.key for p in copy.search("SAE", limit=-1)) == sorted(
                    p.key for p in seeded_any.search("SAE", limit=-1))
                assert copy.highlight_terms("SAE") == seeded_any.highlight_terms("SAE")
                assert [a.short for a in copy.words.acronyms()] == ["ZQA"]  # and what users added
                copy.add_note(key, "written in the copy")  # new ids do not collide
                copy.import_paths([SEEDS])
            finally:
                copy.close()
        with pytest.raises(CatalogError, match="already holds papers"):
            seeded_any.admin.copy_to(file_copy)
    finally:
        pg_server.drop(server_copy)


def test_doctor_and_hand_edits_on_a_server(pg_server, pg_seeded_template):
    """psql edits: an abstract changed by hand is derived again by the next command; a copy of
    tags edited wrong is found by doctor and recomputed by doctor --fix."""
    import psycopg

    from catalog.parts import doctor

    url = pg_server.create(template=pg_seeded_template)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("UPDATE paper SET abstract = 'Quokkas on Rottnest island' WHERE id = 1")
            conn.execute("UPDATE paper SET tags_text = 'bogus' WHERE id = 2")
        catalog = Catalog.open(url)
        try:
            assert len(catalog.search("quokkas rottnest")) == 1  # its text was derived again
            found = doctor.run(catalog.store)
            assert not found.healthy and any("tags_text" in str(f) for f in found.found), found.found
            said = CliRunner().invoke(main, ["--db", url, "doctor"]).output  # no file to copy there
            assert "Run `catalog doctor --fix` to repair (every repair runs in one transaction)." in said
            fixed = doctor.run(catalog.store, fix=True)
            assert fixed.remaining == [] and fixed.backup is None
            assert catalog.search("bogus") == []
        finally:
            catalog.close()
    finally:
        pg_server.drop(url)


def test_a_large_import_vacuums_the_papers_on_a_server(pg_server, monkeypatch):
    # The visibility map lets filtered listings read ids from an index alone (docs/benchmarks.md).
    import psycopg

    from catalog.store.postgres.store import PostgresStore

    monkeypatch.setattr(PostgresStore, "VACUUM_AFTER", 50)
    url = pg_server.create()
    catalog = Catalog.open(url)
    try:
        assert catalog.import_paths([SEEDS]).files
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT last_vacuum FROM pg_stat_user_tables WHERE relname = 'paper'").fetchone()[0]
    finally:
        catalog.close()
        pg_server.drop(url)


def test_a_large_load_on_a_server_changes_settings_for_its_transaction_only(pg_server):
    """An import's GIN pending list and commit settings are SET LOCAL: the next transaction on
    the same pooled connection has the server's own."""
    url = pg_server.create()
    try:
        catalog = Catalog.open(url)
        with catalog.store.write() as tx:
            default = tx.conn.execute("SHOW gin_pending_list_limit").scalar()
            with tx.imports.bulk_load():
                assert tx.conn.execute("SHOW gin_pending_list_limit").scalar() == "64MB"
                assert tx.conn.execute("SHOW synchronous_commit").scalar() == "off"
        with catalog.store.write() as tx:
            assert tx.conn.execute("SHOW gin_pending_list_limit").scalar() == default != "64MB"
        assert not catalog.import_paths([SEEDS]).errors
        catalog.close()
    finally:
        pg_server.drop(url)


def test_venue_counts_join_spellings_and_order_alike(empty_any, tmp_path):
    """The venue facet counts `ICML` and `icml` as one venue, newest year first, venues
    alphabetically without regard to case, papers without a year last; on both backends, for
    the whole catalog and for a search."""
    import json

    rows = [{"title": f"Paper {n} on graph learning", "abstract": f"Graph learning, take {n}.", "venue": venue}
            | ({"year": year} if year else {})
            for n, (venue, year) in enumerate([("icml", 2025), ("ICML", 2025), ("arXiv", 2025), ("ICML", 2024),
                                               ("Zeta", None)])]
    (tmp_path / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert empty_any.import_paths([tmp_path / "papers.jsonl"]).new == 5
    for query in ("", "graph"):
        venues = empty_any.facets(query).venues
        assert [(v.lower(), y, n) for v, y, n in venues] == [
            ("arxiv", 2025, 1), ("icml", 2025, 2), ("icml", 2024, 1), ("zeta", None, 1)], query


def test_opening_a_server_catalog_and_searching_connects_once(pg_server, pg_seeded_template, monkeypatch):
    """The connection that checks the schema serves the first search too (the TUI's start:
    one server process started, not two)."""
    import psycopg

    url = pg_server.create(template=pg_seeded_template)
    connects = []
    original = psycopg.Connection.connect.__func__
    monkeypatch.setattr(psycopg.Connection, "connect",
                        classmethod(lambda cls, *a, **k: connects.append(a) or original(cls, *a, **k)))
    monkeypatch.setattr(psycopg, "connect", psycopg.Connection.connect)
    catalog = Catalog.open(url)
    try:
        assert len(catalog.search("", limit=50)) == 50 and catalog.search("sparse attention")
        assert len(connects) == 1
    finally:
        catalog.close()
        pg_server.drop(url)


def test_server_sessions_compile_nothing_before_a_search(pg_server, pg_seeded_template):
    """No JIT: a search whose statement the planner costs high (tiers that never run add up)
    was compiled for ~120 ms before its 90 ms of work."""
    from tests.pg_server import as_role

    url = pg_server.create(template=pg_seeded_template)
    catalog = Catalog.open(as_role(url, "ann"))
    try:
        assert catalog.store.run_sql("SELECT current_setting('jit') AS jit") == (["jit"], [("off",)])
        with catalog.store.read() as tx:
            assert tx.conn.execute("SHOW jit").scalar() == "off"
    finally:
        catalog.close()
        pg_server.drop(url)


def test_facets_count_people_and_files_alike(empty_any):
    """The TUI's Authors and Files facets (issue 31), for the whole catalog and for a search."""
    repo = Path(__file__).resolve().parents[1]
    assert not empty_any.import_paths([repo / "tests/data/libraries/dblp.bib"]).errors
    keys = [p.key for p in empty_any.search("", limit=2)]
    empty_any.files.attach_file(keys[0], repo / "tests/data/pdf/tracemonkey-page1.pdf", link=True)
    empty_any.files.attach_file(keys[1], repo / "README.md", link=True)
    for query in ("", "year:1900.."):
        facets = empty_any.facets(query)
        people = {a.name: a.papers for a in facets.authors}
        assert people == {a.name: a.papers for a in empty_any.authors(query, limit=100_000)}, query
        assert people and max(people.values()) >= 1
        assert (facets.with_pdf, facets.with_files) == (1, 2), query


def test_a_streamed_files_warnings_are_kept_with_it_alike(empty_any, tmp_path):
    """A JSON Lines file's warnings are found as it is read, after its source was added: kept
    with it all the same, so importing the same bytes again says them again, on both backends."""
    import json

    lines = [json.dumps({"title": f"Paper {n} on streams", "abstract": f"Streams, take {n}."}) for n in range(3)]
    path = tmp_path / "streamed.jsonl"
    path.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    first = empty_any.import_paths([path])
    assert first.new == 3 and [w.split(":")[1] for w in first.warnings] == ["2"]
    again = empty_any.import_paths([path])
    assert again.new == 0 and again.said_before == first.warnings
