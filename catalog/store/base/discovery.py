"""The discovery role (`tx.discovery`): texts for the discovery model, stored topics, the
papers it learns from."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Iterator, Sequence

from catalog.store.base.role import Role
from catalog.store.rows import AcronymRow, PaperText, TextVersion, TopicSize


class Discovery(Role):
    """What the discovery model reads and keeps: texts, stored topics, which papers it learns
    from and which it may not suggest."""

    @abstractmethod
    def text_version(self) -> TextVersion: ...

    @abstractmethod
    def paper_texts(self, ids=None, *, after_id: int = 0) -> Iterator[PaperText]: ...

    @abstractmethod
    def acronyms(self) -> list[AcronymRow]:
        """Every acronym the abstracts define (AcronymRow, rows.py): what the features spell
        out where a paper uses one."""

    @abstractmethod
    def save_topics(self, scope: str, records: Iterable) -> None: ...

    @abstractmethod
    def topic_counts(self, scope: str) -> list[TopicSize]: ...

    @abstractmethod
    def topic_numbers(self, scope: str) -> dict[int, int]: ...

    @abstractmethod
    def topic_paper_ids(self, scope: str, number: int) -> list[int]: ...

    @abstractmethod
    def ids_with_status(self, statuses: Sequence[str]) -> set[int]: ...

    @abstractmethod
    def tagged_papers(self, tag: str) -> list[int]: ...

    @abstractmethod
    def liked_papers(self) -> list[int]: ...

    @abstractmethod
    def promising_papers(self) -> list[int]: ...
