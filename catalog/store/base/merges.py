"""The merges role (`tx.merges`): the records that joined a paper (an import's merges), where
each of its records came from, and moving one to another paper (`catalog split`)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable

from catalog.store.base.role import Role
from catalog.store.rows import MergeRecord, Place


class Merges(Role):
    """Merges and splits: the record of each merge an import made, what `catalog split` reads
    and undoes, and where a paper's records came from."""

    @abstractmethod
    def add_merges(self, merges: Iterable[tuple]) -> None: ...

    @abstractmethod
    def merges_into(self, paper_id: int) -> list[MergeRecord]: ...

    @abstractmethod
    def set_merge(self, merge_id: int, *, record: str | None = None, filled: str | None = None) -> None: ...

    @abstractmethod
    def delete_merges(self, ids: Iterable[int]) -> None: ...

    @abstractmethod
    def places_of(self, paper_id: int) -> list[Place]: ...

    @abstractmethod
    def move_record(self, source_id: int, position: int, *, from_paper: int, to_paper: int) -> None: ...
