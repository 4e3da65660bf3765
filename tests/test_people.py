"""People on one catalog: reading status and rating are each person's own (CATALOG_USER, else
the login name, else on SQLite the catalog's owner); tags, titles, notes and saved searches are
shared, and each note is signed. A single user sees no difference (the `papers` view too)."""

from __future__ import annotations

import sqlite3

import pytest

from catalog.library import Catalog
from tests.conftest import SEEDS, key_of


@pytest.fixture
def shared(db_path, monkeypatch):
    """The seeded catalog, created by ann (its owner); `as_(name)` opens it as someone else."""
    monkeypatch.setenv("CATALOG_USER", "ann")
    ann = Catalog.open(db_path)
    assert not ann.import_paths([SEEDS]).errors
    opened = [ann]

    def as_(name: str) -> Catalog:
        monkeypatch.setenv("CATALOG_USER", name)
        catalog = Catalog.open(db_path)
        opened.append(catalog)
        return catalog

    yield ann, as_
    for catalog in opened:
        catalog.close()


def test_status_and_rating_are_each_persons_own(shared):
    ann, as_ = shared
    bob = as_("bob")
    key = key_of(ann, "sparse")
    ann.set_status([key], "read")
    ann.set_rating([key], 5)
    bob.set_status([key], "queued")

    assert (ann.get(key).summary.status, ann.get(key).summary.rating) == ("read", 5)
    assert (bob.get(key).summary.status, bob.get(key).summary.rating) == ("queued", None)
    assert [p.key for p in ann.search("status:read")] == [key]
    assert [p.key for p in bob.search("status:read")] == []
    assert [p.key for p in bob.search("status:queued")] == [key]
    assert [p.key for p in ann.search("rating:>=4")] == [key]
    assert bob.search("has:rating") == []
    assert key not in {p.key for p in ann.search("status:unread", limit=-1)}
    assert key not in {p.key for p in bob.search("status:unread", limit=-1)}
    assert dict(ann.stats().by_status)["read"] == 1
    assert "read" not in dict(bob.stats().by_status)


def test_tags_titles_and_notes_are_shared_and_notes_signed(shared):
    ann, as_ = shared
    bob = as_("bob")
    key = key_of(ann, "sparse")
    ann.tag([key], add=["group/reading"])
    ann.add_note(key, "Read for Thursday.")
    bob.set_title(key, "Bob's name for it")
    bob.add_note(key, "Section 3 is the key part.")

    for catalog in (ann, bob):
        detail = catalog.get(key)
        assert detail.summary.tags == ("group/reading",)
        assert detail.summary.title == "Bob's name for it"
        assert [(n.author, n.body) for n in detail.notes] == [
            ("ann", "Read for Thursday."), ("bob", "Section 3 is the key part.")]


def test_undo_is_exact_for_each_person(shared):
    ann, as_ = shared
    bob = as_("bob")
    key = key_of(ann, "sparse")
    ann.set_rating([key], 4)
    edit = bob.set_rating([key], 2)
    bob.undo(edit)
    assert bob.get(key).summary.rating is None
    assert ann.get(key).summary.rating == 4

    ann.add_note(key, "ann's thought")
    deleted = bob.delete_note(key, 1)  # notes are shared: bob may delete ann's
    assert bob.get(key).notes == ()
    bob.undo(deleted)
    assert [(n.author, n.body) for n in ann.get(key).notes] == [("ann", "ann's thought")]


def test_an_unmarked_paper_leaves_no_row_behind(shared, db_path):
    ann, _ = shared
    key = key_of(ann, "sparse")
    ann.set_status([key], "reading")
    ann.set_rating([key], 3)
    ann.set_rating([key], None)
    ann.set_status([key], "unread")
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM paper_reader").fetchone() == (0,)


def test_the_papers_view_shows_the_owners_status(shared, db_path):
    ann, as_ = shared
    bob = as_("bob")
    key = key_of(ann, "sparse")
    ann.set_status([key], "read")
    ann.set_rating([key], 5)
    bob.set_status([key], "skipped")
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT status, rating FROM papers WHERE key = ?", (key,)).fetchone() == ("read", 5)
        assert conn.execute("SELECT count(*) FROM papers WHERE status = 'unread'").fetchone()[0] == (
            conn.execute("SELECT count(*) FROM paper").fetchone()[0] - 1)


def test_without_catalog_user_a_sqlite_catalog_takes_you_for_its_owner(shared, db_path, monkeypatch):
    ann, _ = shared
    key = key_of(ann, "sparse")
    ann.set_status([key], "read")
    monkeypatch.delenv("CATALOG_USER")
    again = Catalog.open(db_path)
    try:
        assert again.store.user == "ann"
        assert again.get(key).summary.status == "read"
    finally:
        again.close()


def test_a_new_catalog_belongs_to_the_login_name(db_path, monkeypatch):
    import getpass

    monkeypatch.delenv("CATALOG_USER", raising=False)
    catalog = Catalog.open(db_path)
    try:
        assert catalog.store.user == getpass.getuser()
    finally:
        catalog.close()


def test_cli_show_names_the_notes_author(run_cli, monkeypatch):
    monkeypatch.setenv("CATALOG_USER", "ann")
    assert run_cli("import", str(SEEDS)).exit_code == 0
    key = run_cli("search", "sparse", "--limit", "1").output.split()[0]
    assert run_cli("note", key, "worth", "it").exit_code == 0
    monkeypatch.setenv("CATALOG_USER", "bob")
    shown = run_cli("show", key).output
    assert "Note 1 by ann" in shown



def test_triage_and_discovery_read_only_your_own_marks(shared):
    ann, as_ = shared
    bob = as_("bob")
    keys = [p.key for p in ann.search("", limit=4)]
    before = ann.triage.triage_count("")
    bob.set_rating(keys[:2], 5)
    bob.set_status(keys[2:], "read")
    # Bob's marks triage the papers for bob, not for ann.
    assert ann.triage.triage_count("") == before
    assert bob.triage.triage_count("").triaged == before.triaged + 4
    assert set(keys) <= {p.key for p in ann.triage.untriaged("", limit=1000)}
    assert not set(keys) & {p.key for p in bob.triage.untriaged("", limit=1000)}
    # What recommend and triage learn from, and what recommend leaves out, are each person's.
    with ann.store.read() as tx:
        ids = [tx.papers.paper_id(k) for k in keys]
        assert tx.discovery.liked_papers() == [] and not tx.discovery.ids_with_status(("read", "skipped"))
        assert not set(tx.discovery.promising_papers()) & set(ids)
    with bob.store.read() as tx:
        assert tx.discovery.liked_papers() == sorted(ids) and set(ids) <= set(tx.discovery.promising_papers())
        assert tx.discovery.ids_with_status(("read", "skipped")) == set(ids[2:])


@pytest.mark.parametrize("query", ["", "model"])
def test_facets_and_the_rating_order_are_your_own(shared, query):
    ann, as_ = shared
    bob = as_("bob")
    keys = [p.key for p in ann.search(query, limit=3)]
    bob.set_rating(keys, 5)
    bob.set_status(keys, "queued")
    ann.set_rating([keys[2]], 2)
    assert dict(ann.facets(query).ratings) == {2: 1} and "queued" not in dict(ann.facets(query).statuses)
    assert dict(bob.facets(query).ratings) == {5: 3} and dict(bob.facets(query).statuses)["queued"] == 3
    assert [p.key for p in ann.search(query, sort="rating", limit=1)] == [keys[2]]
    assert [p.rating for p in bob.search(query, sort="rating", limit=3)] == [5, 5, 5]
