"""`citekey regen` and a split give suffixes as an import does (issue 33's note): each key
carries on from the last suffix it gave, and the suffixes are asked of the database in blocks,
so giving many papers one key's suffixes takes a few lookups, not one per suffix tried."""

from __future__ import annotations

import json

from catalog.ingest import citekeys
from catalog.store.imports import ImportQueries
from catalog.store.postgres.roles import PostgresImports


def _counting(monkeypatch) -> list[int]:
    asked: list[int] = []
    for role in (ImportQueries, PostgresImports):  # PostgreSQL asks with one array
        def counted(self, keys, real=role.citekeys_taken):
            keys = list(keys)
            asked.append(len(keys))
            return real(self, keys)

        monkeypatch.setattr(role, "citekeys_taken", counted)
    return asked


def test_regen_to_a_shared_key_gives_each_paper_the_next_suffix_in_few_lookups(empty_catalog, tmp_path,
                                                                               monkeypatch):
    source = tmp_path / "smith.json"
    source.write_text(json.dumps([{"title": f"Matrices of kind {n} and their rank {n * 17}", "author": "Ann Smith",
                                   "year": 2020, "abstract": f"We study kind {n}, rank {n * 17}."}
                                  for n in range(60)]))
    assert not empty_catalog.import_paths([source]).errors
    empty_catalog.citing.citekey_pattern("auth.lower+year")
    asked = _counting(monkeypatch)
    changes = empty_catalog.citing.regen_citekeys()
    keys = sorted(new for _, _, new in changes)
    assert len(changes) == 60
    assert keys == sorted(["smith2020"] + [f"smith2020{chr(ord('a') + n)}" for n in range(26)]
                          + [f"smith2020{n}" for n in range(27, 60)])
    assert len(asked) <= 8, asked  # one lookup per suffix tried: 1,830
    assert empty_catalog.citing.regen_citekeys() == []  # again: every paper keeps its key


def test_next_free_keeps_a_papers_own_key_and_reuses_none_given():
    held = {"smith2020", "smith2020a", "smith2020c"}
    keys = citekeys.NextFree(lambda wanted: {k.lower() for k in wanted} & held)
    assert keys.give("smith2020", True, current="smith2020") == "smith2020"
    assert keys.give("smith2020", True, current="smith2020c") == "smith2020b"  # a is another's
    keys.moved("smith2020c", "smith2020b")
    assert keys.give("smith2020", True) == "smith2020c"  # freed by the move
    assert keys.give("Lee2019", False) == "Lee2019"
    keys.moved(None, "Lee2019")
    assert keys.give("Lee2019", False) == "Lee2019-2"  # a file's key: -2, -3


def test_an_import_asks_a_shared_keys_suffixes_once_per_batch(empty_any, tmp_path, monkeypatch):
    """The papers of one batch that want one key: its suffixes are asked in one lookup (a
    lookup per doubling before: 9 for 300 papers), each paper the next suffix; a second file
    goes on past the suffixes the first one took (on both backends: PostgreSQL asks and
    writes them with arrays)."""
    empty_catalog = empty_any
    empty_catalog.citing.citekey_pattern("auth.lower+year")
    asked = _counting(monkeypatch)
    for name, papers in (("first", range(300)), ("second", range(300, 310))):
        source = tmp_path / f"{name}.json"
        source.write_text(json.dumps([{"title": f"Matrices of kind {n}", "author": "Ann Smith", "year": 2020,
                                       "abstract": f"We study kind {n}, rank {n * 17}."} for n in papers]))
        assert not empty_catalog.import_paths([source]).errors
        if name == "first":
            assert len(asked) <= 3, asked
    with empty_catalog.store.read() as tx:
        keys = set(tx.conn.execute("SELECT key FROM citekey").scalars())
    assert keys == {"smith2020"} | {f"smith2020{chr(ord('a') + n)}" for n in range(26)} | {
        f"smith2020{n}" for n in range(27, 310)}
