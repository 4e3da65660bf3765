"""The ranked lists of frequent words (catalog/store/lists/): in a transaction (`tx.lists`)
and across transactions (`store.lists`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from catalog.store.rows import ListProblems
from catalog.store.base.role import Role


class ListMaintenance(ABC):
    """The ranked lists of one transaction as benchmarks and tests handle them: which are kept
    and which a search would not read, the words that could have lists, ranking or dropping
    one by hand. Kept apart from RankedLists (its `maintenance()`): the product reads pages,
    doctor asks `problems`, and each backend's upkeep ranks its lists its own way. A list's
    key is the backend's own text of its words."""

    @abstractmethod
    def keys(self) -> list[str]:
        """Every list kept."""

    @abstractmethod
    def words(self) -> list[tuple[str, int]]:
        """(word, papers holding it) of the words that could have lists."""

    @abstractmethod
    def stale(self, keys: list[str] | None = None, *, rescored: bool = True) -> list[str]:
        """The lists (of `keys`, or all of words) a search would not read."""

    @abstractmethod
    def build(self, key: str) -> int:
        """Rank one list again from the full ranking; how many papers it matches."""

    @abstractmethod
    def several(self) -> tuple[list[str], list[str]]:
        """(the lists of several words kept, those a search would rank again)."""

    @abstractmethod
    def drop(self, keys: list[str]) -> None:
        """Forget these lists."""


class RankedLists(Role):
    """The ranked lists of frequent words in a transaction (catalog/store/lists/): pages
    served from them, and what doctor asks of them."""

    @abstractmethod
    def page(self, compiled, tier: str, limit: int, offset: int, with_text: bool, sort) -> list | None:
        """A tier's page (rows as the compiler's search_sql's), or None when no list proves
        it: then the search ranks every match."""

    @abstractmethod
    def may_serve(self, compiled, tier: str) -> bool:
        """Whether a list may serve this tier's page (then it is walked alone)."""

    @abstractmethod
    def to_keep(self) -> list:
        """The lists this transaction's searches ranked of their own, for the caller to keep
        after it (store.lists.keep): a read never writes them itself."""

    @abstractmethod
    def maintenance(self) -> ListMaintenance:
        """What benchmarks and tests ask of the lists in this transaction (ListMaintenance):
        never the product's searches, doctor or upkeep."""

    @abstractmethod
    def problems(self) -> ListProblems:
        """What doctor reports."""

    @abstractmethod
    def repair(self) -> tuple[int, int]:
        """What doctor --fix does in its transaction (store.lists.refresh ranks the rest after
        it): (lists whose head differs ranked again, stale lists of several words dropped)."""

    @abstractmethod
    def note(self) -> str | None:
        """What doctor says about the lists kept, beside its checks (None: nothing)."""



class RankedListUpkeep(ABC):
    """A store's ranked lists across transactions: ranking again those searches cannot read,
    and keeping those searches ranked."""

    @abstractmethod
    def refresh(self, *, budget: float | None, rescored: bool | None = None,
                progress: Callable[[int, int], None] | None = None, typed: bool = False) -> tuple[int, int]:
        """Rank again the lists searches cannot read (`rescored`, the default with a budget;
        else also those following changes) for at most `budget` seconds (None: all, the
        frequent words chosen again first): (built, still stale). Each list is ranked in a
        transaction of its own; one another writer holds up is tried again, and what is done
        stays done. `progress(done, of)` after each list. `typed` (an import's): the lists
        searches as you type read (scoring.typed) first; each backend says which others it
        leaves (SQLite: the one- and two-letter prefixes' past scoring.SHORT_AT_IMPORT papers)."""

    @abstractmethod
    def behind(self) -> bool:
        """Whether refresh has work (cheap: what an import asks)."""

    @abstractmethod
    def left(self) -> int:
        """How many lists of words and prefixes searches cannot read now (at least 1 while the
        words of a catalog big enough are still to be chosen; 0 for a catalog too small to keep
        any). Cheap: a search asks, to say so."""

    @abstractmethod
    def keep(self, made: list) -> None:
        """Write the lists a read ranked (its tx.lists.to_keep()), in a short write that never
        waits for another writer: skipped when one holds the catalog."""
