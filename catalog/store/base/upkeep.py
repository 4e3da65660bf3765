"""The upkeep role (`tx.upkeep`): doctor's checks and repairs."""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Iterable

from catalog.store.rows import DanglingRow, SchemaObject
from catalog.store.base.role import Role


class Upkeep(Role):
    """What `catalog doctor` checks and repairs inside the database (catalog/parts/doctor.py
    decides what to run and reports)."""

    @abstractmethod
    def integrity_problems(self) -> list[str]: ...

    @abstractmethod
    def reindex(self) -> None: ...

    @abstractmethod
    def missing_objects(self) -> list[SchemaObject]: ...

    @abstractmethod
    def create_objects(self, objects: Iterable[SchemaObject]) -> None: ...

    @abstractmethod
    def dangling_rows(self) -> list[DanglingRow]: ...

    @abstractmethod
    def delete_dangling(self) -> Counter: ...

    @abstractmethod
    def empty_sources(self) -> int: ...

    @abstractmethod
    def delete_empty_sources(self) -> int: ...

    @abstractmethod
    def stale_copies(self) -> dict[str, int]: ...

    @abstractmethod
    def recompute_copies(self) -> dict[str, int]: ...

    @abstractmethod
    def search_index_problem(self) -> str | None: ...

    @abstractmethod
    def rebuild_search_index(self) -> None: ...
