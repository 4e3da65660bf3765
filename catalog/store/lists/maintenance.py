"""What benchmarks, tests and doctor ask of a transaction's lists (the ListMaintenance role),
answered by its backend's list builder: one class for both backends."""

from __future__ import annotations

from collections.abc import Callable

from catalog.store.base import ListMaintenance


class BuilderMaintenance(ListMaintenance):
    """`builder`: sqlite_build.ListBuilder or postgres_build.PostgresListBuilder; `words`: its
    vocabulary with each word's papers (named differently on each)."""

    def __init__(self, builder, words: Callable[[], list[tuple[str, int]]]):
        self.builder = builder
        self._words = words

    def keys(self) -> list[str]:
        return self.builder.keys()

    def words(self) -> list[tuple[str, int]]:
        return self._words()

    def stale(self, keys: list[str] | None = None, *, rescored: bool = True) -> list[str]:
        return self.builder.stale(keys, rescored=rescored)

    def build(self, key: str) -> int:
        return self.builder.build(key)

    def several(self) -> tuple[list[str], list[str]]:
        return self.builder.several()

    def drop(self, keys: list[str]) -> None:
        self.builder.drop(keys)
