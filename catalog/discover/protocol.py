"""What the discovery engine needs from storage: the whole seam, in one Protocol.

The engine holds no SQL: source.py implements this over a catalog's store.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from catalog.discover.results import CatalogVersion, PaperText, TopicRecord


@runtime_checkable
class DiscoverStore(Protocol):
    def version(self) -> CatalogVersion:
        """Cheap (it runs on every call): count of papers, max paper id, and the store's data
        version, which changes whenever the text of a paper it already has changes."""

    def paper_texts(self, ids: Collection[int] | None = None, *, after_id: int = 0
                    ) -> Iterable[PaperText]:
        """Papers' texts in ascending id order: those in `ids` (None: all) with an id above
        `after_id`. Read in one snapshot; streamed (a whole catalog's texts need not fit in memory)."""

    def acronyms(self) -> Mapping[str, str]:
        """Short form as written, singular ("SAE") -> its long form, for the acronyms the
        catalog's abstracts define: spelled out where a paper uses one (tokens.with_long_forms)."""

    def tagged(self, tag: str) -> list[int]:
        """Ids of the papers carrying `tag` or a tag below it (`project` takes `project/x`)."""

    def liked(self) -> list[int]:
        """Ids of the papers rated 4 or 5 or marked read: what `recommend` without a tag uses."""

    def cache_dir(self) -> Path:
        """A folder of this catalog's own for derived files, outside the database (see
        engine.py for why); the same folder every time for the same catalog."""

    def save_topics(self, scope: str, records: Sequence[TopicRecord]) -> None:
        """Replace the stored topics of `scope` with `records` (one row per paper)."""
