"""The storage seam (catalog/store/base/): each backend's transaction is the same roles, each
an object implementing its declared interface and nothing more, so code above the store can
be read against base/ alone."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from catalog.store import base

ROLES = {"papers": base.Papers, "edits": base.Edits, "imports": base.Imports, "merges": base.Merges,
         "search": base.Search, "discovery": base.Discovery, "upkeep": base.Upkeep, "lists": base.RankedLists}


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


# Results the roles may still hand out as plain tuples, each for a reason: `catalog sql`'s rows
# are the user's own columns; the ranked lists' counts are (done, left) pairs their two callers
# unpack by name.
PLAIN = {"Store.run_sql", "ListMaintenance.words", "ListMaintenance.several", "RankedLists.repair",
         "RankedListUpkeep.refresh"}
# A tuple of values read by position: `tuple[int, str]`, `tuple` alone, or a list or iterator of them
# (`tuple[X, ...]` of named results is fine).
BY_POSITION = re.compile(r"^tuple$|tuple\[(?![^\]]*\.\.\.)[^\]]*,|tuple\]")


def _role_methods():
    """(file name, `Role.method`, its return annotation or None) of every method of the roles."""
    for path in sorted(Path(base.__file__).parent.glob("*.py")):
        for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(cls, ast.ClassDef):
                for method in cls.body:
                    if isinstance(method, ast.FunctionDef):
                        yield path.name, f"{cls.name}.{method.name}", method.returns


def test_the_roles_return_named_results():
    """Code above the store reads a result by its names (`row.papers`), never by position."""
    found = [f"{file}: {name} -> {ast.unparse(returns)}" for file, name, returns in _role_methods()
             if returns is not None and name not in PLAIN and BY_POSITION.search(ast.unparse(returns))]
    assert found == []


# A result whose shape is not declared: no annotation, a bare container (`list`, `dict`, ...),
# or values of any type (`object`, `Any`); each of these hides what the caller reads.
UNDECLARED = re.compile(r"\b(list|dict|tuple|set|Sequence|Iterable|Iterator|Any|object)\b(?!\[)")
# Undeclared on purpose: the annotations file's papers are the file's own JSON objects; the
# columns a caller names come back by those names; a ranked list's page is the search role's
# own rows, and the lists it ranked go back to store.lists.keep unread; `catalog sql` (PLAIN).
UNDECLARED_ON_PURPOSE = {"Edits.annotated_papers", "Imports.paper_columns", "Imports.missing_fields",
                         "RankedLists.page", "RankedLists.to_keep", "Store.run_sql"}


def test_the_roles_declare_what_they_return():
    """Every role method says what it hands back, down to the items of a list: a raw row
    (sqlite3.Row, a psycopg dict) read by a column name nothing declares cannot pass here."""
    found = []
    for file, name, returns in _role_methods():
        if name.split(".")[1].startswith("_") or name in UNDECLARED_ON_PURPOSE:
            continue
        said = ast.unparse(returns) if returns is not None else "(nothing said)"
        if returns is None or UNDECLARED.search(said) or "dict[str, object]" in said:
            found.append(f"{file}: {name} -> {said}")
    assert found == []


def test_derived_text_and_read_times_come_back_named_on_both_backends(seeded_any):
    """What `catalog doctor` checks derived text against, and when papers were read, leave
    the store as named rows and datetimes on either backend, not as the driver's rows."""
    from datetime import datetime

    from catalog.store.rows import DerivedRow

    key = seeded_any.search("")[0].key
    seeded_any.set_status([key], "read")
    with seeded_any.store.read() as tx:
        derived = tx.imports.derived_rows()
        some = tx.imports.derived_rows([derived[0].id])
        read = tx.papers.read_times()
    assert derived and all(type(row) is DerivedRow for row in derived)
    assert some == [derived[0]] and some[0].fingerprint
    assert len(read) == 1 and isinstance(read[0], datetime)
