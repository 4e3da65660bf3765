"""The storage seam (catalog/store/base/): each backend's transaction is the same roles, each
an object implementing its declared interface and nothing more, so code above the store can
be read against base/ alone."""

from __future__ import annotations

import inspect

import pytest

from catalog.store import base

ROLES = {"papers": base.Papers, "edits": base.Edits, "imports": base.Imports, "search": base.Search,
         "discovery": base.Discovery, "upkeep": base.Upkeep, "lists": base.RankedLists}


def _public_methods(cls) -> set[str]:
    return {name for name, value in inspect.getmembers(cls, callable)
            if not name.startswith("_") and not inspect.isclass(value)}


@pytest.mark.parametrize("role", sorted(ROLES))
def test_each_role_is_its_interface_and_nothing_more(empty_any, role):
    interface = ROLES[role]
    with empty_any.store.read() as tx:
        assert isinstance(tx, base.Transaction)
        implementation = getattr(tx, role)
    assert isinstance(implementation, interface)
    assert _public_methods(type(implementation)) == _public_methods(interface)


def test_a_backend_missing_part_of_a_role_cannot_be_made():
    class Incomplete(base.Papers):
        def paper_id(self, key):
            return None

    with pytest.raises(TypeError, match="abstract"):
        Incomplete(None, "ann")


def test_the_store_is_its_interface_and_its_lists_theirs(empty_any):
    store = empty_any.store
    assert isinstance(store, base.Store) and isinstance(store.lists, base.RankedListUpkeep)
    assert _public_methods(type(store.lists)) == _public_methods(base.RankedListUpkeep)
