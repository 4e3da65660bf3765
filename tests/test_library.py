"""Library operations the TUI relies on: facets, saved searches, undo."""

from __future__ import annotations

import pytest

from catalog.errors import CatalogError
from tests.conftest import key_of


# Every operation here on both backends.
@pytest.fixture
def seeded(seeded_any):
    return seeded_any


def test_facets_count_the_catalog(seeded):
    key = key_of(seeded, "MCR2")
    seeded.tag([key], ["project/thesis"])
    seeded.set_rating([key], 5)
    facets = seeded.facets()
    assert facets.total == 90
    assert {(v, y): n for v, y, n in facets.venues} == {("ICML", 2026): 52, ("ICLR", 2026): 38}
    assert [(t.name, t.count) for t in facets.tags] == [("project", 1), ("project/thesis", 1)]  # parents too
    assert dict(facets.statuses) == {"unread": 90}
    assert facets.ratings == ((5, 1),)


def test_saved_searches_round_trip(seeded):
    seeded.saved.save_search("theory", "venue:ICLR proof")
    seeded.saved.save_search("theory", "venue:ICLR theorem")  # same name replaces
    seeded.saved.save_search("mine", "has:notes")
    assert [(s.name, s.query) for s in seeded.saved.saved_searches()] == [
        ("mine", "has:notes"), ("theory", "venue:ICLR theorem")]
    seeded.saved.delete_saved_search("mine")
    assert [s.name for s in seeded.saved.saved_searches()] == ["theory"]
    with pytest.raises(CatalogError):
        seeded.saved.delete_saved_search("mine")
    with pytest.raises(Exception, match="year"):
        seeded.saved.save_search("bad", "year:abc")


def _other_shell(seeded):
    """Another process on the same file, as `catalog tag ...` from a shell would be."""
    from catalog.library import Catalog

    return Catalog.open(seeded.path or seeded.store.url)


def test_undo_takes_back_its_own_change_only(seeded):
    """The issue's case: tag in the TUI, then a shell tags, rates and notes; undo removes the
    TUI's tag and nothing else."""
    key = key_of(seeded, "MCR2")
    edit = seeded.tag([key], ["local"])
    shell = _other_shell(seeded)
    shell.tag([key], ["ext"])
    shell.set_rating([key], 2)
    shell.add_note(key, "external")
    shell.close()
    undone = seeded.undo(edit)
    detail = seeded.get(key)
    assert detail.summary.tags == ("ext",)
    assert detail.summary.rating == 2
    assert [n.body for n in detail.notes] == ["external"]
    assert not undone.conflicts
    assert [t.name for t in seeded.tags()] == ["ext"]  # the unused tag is gone from the list


def test_undo_leaves_a_value_changed_since_and_says_so(seeded):
    key = key_of(seeded, "MCR2")
    status = seeded.set_status([key], "reading")
    rating = seeded.set_rating([key], 4)
    title = seeded.set_title(key, "Mine")
    shell = _other_shell(seeded)
    shell.set_status([key], "read")
    shell.set_title(key, "Theirs")
    shell.close()
    undone = seeded.undo(status)
    assert seeded.get(key).summary.status == "read"
    assert undone.conflicts and "status" in undone.conflicts[0] and "'read'" in undone.conflicts[0]
    assert not seeded.undo(rating).conflicts  # the rating was not touched since: undone
    assert seeded.get(key).summary.rating is None
    assert "title" in seeded.undo(title).conflicts[0]
    assert seeded.get(key).user_title == "Theirs"


def test_undo_of_a_bulk_tag_keeps_what_others_did_to_each_paper(seeded):
    keys = [p.key for p in seeded.search("", limit=3)]
    seeded.tag(keys[:1], ["already"])
    edit = seeded.tag(keys, ["bulk", "already"])
    assert [c.added for c in edit.changes] == [("bulk",), ("bulk", "already"), ("bulk", "already")]
    shell = _other_shell(seeded)
    shell.tag([keys[1]], remove=["bulk"], add=["mine"])
    shell.close()
    seeded.undo(edit)
    assert [seeded.get(k).summary.tags for k in keys] == [("already",), ("mine",), ()]


def test_undo_and_redo_of_every_kind_of_change(seeded):
    key = key_of(seeded, "MCR2")
    seeded.add_note(key, "original note")
    seeded.tag([key], ["keep"])
    before = seeded.snapshot([key])
    edits = [
        seeded.tag([key], ["new"], ["keep"]),
        seeded.set_status([key], "read"),
        seeded.set_rating([key], 2),
        seeded.set_title(key, "Changed"),
        seeded.edit_note(key, 1, "edited note"),
        seeded.add_note(key, "quagga note"),
    ]
    after = seeded.snapshot([key])
    redos = [seeded.undo(edit) for edit in reversed(edits)]
    assert not any(r.conflicts for r in redos)
    state = seeded.snapshot([key])[0]
    assert (state.tags, state.status, state.rating, state.user_title) == (("keep",), "unread", None, None)
    assert [body for _, body in state.notes] == ["original note"]
    assert state == before[0]
    assert seeded.search("tag:keep")[0].key == key and not seeded.search("quagga")
    for redo in reversed(redos):
        seeded.undo(redo)
    assert [(s.tags, s.status, s.rating, s.user_title, [b for _, b in s.notes])
            for s in seeded.snapshot([key])] == [
        (s.tags, s.status, s.rating, s.user_title, [b for _, b in s.notes]) for s in after]
    assert seeded.search("quagga")[0].key == key


def test_undo_brings_back_a_deleted_note_in_its_place(seeded):
    key = key_of(seeded, "MCR2")
    seeded.add_note(key, "first")
    seeded.add_note(key, "precious")
    seeded.add_note(key, "third")
    edit = seeded.delete_note(key, 2)
    assert edit.note.body == "precious"
    seeded.undo(edit)
    assert [n.body for n in seeded.get(key).notes] == ["first", "precious", "third"]
    assert seeded.search("precious")[0].key == key


def test_undo_keeps_a_note_edited_since(seeded):
    key = key_of(seeded, "MCR2")
    edit = seeded.add_note(key, "mine")
    shell = _other_shell(seeded)
    shell.edit_note(key, 1, "mine, then theirs")
    shell.close()
    undone = seeded.undo(edit)
    assert [n.body for n in seeded.get(key).notes] == ["mine, then theirs"]
    assert "edited since" in undone.conflicts[0]


def test_undo_of_saved_searches(seeded):
    created = seeded.saved.save_search("theory", "venue:ICLR proof")
    replaced = seeded.saved.save_search("theory", "venue:ICLR theorem")
    assert replaced.changes[0].before == "venue:ICLR proof"
    seeded.undo(replaced)
    assert [(s.name, s.query) for s in seeded.saved.saved_searches()] == [("theory", "venue:ICLR proof")]
    deleted = seeded.saved.delete_saved_search("theory")
    seeded.undo(deleted)
    assert [(s.name, s.query) for s in seeded.saved.saved_searches()] == [("theory", "venue:ICLR proof")]
    seeded.undo(created)
    assert seeded.saved.saved_searches() == ()
