"""Library operations the TUI relies on: facets, saved searches, undo."""

from __future__ import annotations

import pytest

from catalog.db import CatalogError
from tests.conftest import key_of


def test_facets_count_the_catalog(seeded):
    key = key_of(seeded, "MCR2")
    seeded.tag([key], ["project/thesis"])
    seeded.set_rating([key], 5)
    facets = seeded.facets()
    assert facets.total == 90
    assert {(v, y): n for v, y, n in facets.venues} == {("ICML", 2026): 52, ("ICLR", 2026): 38}
    assert [(t.name, t.count) for t in facets.tags] == [("project/thesis", 1)]
    assert dict(facets.statuses) == {"unread": 90}
    assert facets.ratings == ((5, 1),)


def test_saved_searches_round_trip(seeded):
    seeded.save_search("theory", "venue:ICLR proof")
    seeded.save_search("theory", "venue:ICLR theorem")  # same name replaces
    seeded.save_search("mine", "has:notes")
    assert [(s.name, s.query) for s in seeded.saved_searches()] == [
        ("mine", "has:notes"), ("theory", "venue:ICLR theorem")]
    seeded.delete_saved_search("mine")
    assert [s.name for s in seeded.saved_searches()] == ["theory"]
    with pytest.raises(CatalogError):
        seeded.delete_saved_search("mine")
    with pytest.raises(Exception, match="year"):
        seeded.save_search("bad", "year:abc")


def test_restore_undoes_every_kind_of_change(seeded):
    key = key_of(seeded, "MCR2")
    seeded.tag([key], ["keep"])
    seeded.add_note(key, "original note")
    before = seeded.snapshot([key])
    seeded.tag([key], ["new"], ["keep"])
    seeded.set_status([key], "read")
    seeded.set_rating([key], 2)
    seeded.set_title(key, "Changed")
    seeded.edit_note(key, 1, "edited note")
    seeded.add_note(key, "quagga note")
    seeded.restore(before)
    assert seeded.snapshot([key]) == before
    detail = seeded.get(key)
    assert detail.summary.tags == ("keep",)
    assert [n.body for n in detail.notes] == ["original note"]
    assert [t.name for t in seeded.tags()] == ["keep"]
    assert seeded.search("tag:keep")[0].key == key and not seeded.search("quagga")


def test_restore_brings_back_a_deleted_note(seeded):
    key = key_of(seeded, "MCR2")
    seeded.add_note(key, "precious")
    before = seeded.snapshot([key])
    seeded.delete_note(key, 1)
    seeded.restore(before)
    assert [n.body for n in seeded.get(key).notes] == ["precious"]
    assert seeded.search("precious")[0].key == key
