"""What the discovery engine takes and gives: small frozen dataclasses, no numpy inside."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CatalogVersion:
    """What the cache was built from, cheap for a store to read on every call.

    `data` is opaque to the engine: the store changes it whenever the text of a paper it
    already had may have changed (a merge filled in a title or an abstract, the user retitled
    a paper). Papers added or removed change `count` or `max_id`. Tags, ratings and statuses
    must not change it: they don't touch the features, and each change would cost an update.
    """

    count: int
    max_id: int
    data: str = ""


@dataclass(frozen=True)
class PaperText:
    """The text features are built from: the paper's title (the user's, the real one or the
    headline) and its rendered abstract, as one string."""

    id: int
    text: str


@dataclass(frozen=True)
class SimilarPaper:
    paper_id: int
    score: float  # 0..1: cosine over the query paper's most distinctive terms
    why: tuple[str, ...]  # shared distinctive terms, strongest first


@dataclass(frozen=True)
class Recommendation:
    paper_id: int
    score: float  # the classifier's margin: above 0 looks like the positives
    why: tuple[str, ...]  # the paper's terms that weigh most for the classifier


@dataclass(frozen=True)
class Topic:
    number: int  # 1-based: largest first, or the earlier topic's it continues (topics.renumber)
    label: str  # two or three distinctive phrases, "sparse autoencoders, feature splitting"
    terms: tuple[str, ...]  # the phrases the label was made from, and a few more
    paper_ids: tuple[int, ...]  # closest to the topic's centre first

    @property
    def size(self) -> int:
        return len(self.paper_ids)


@dataclass(frozen=True)
class TopicRecord:
    """One row of the topics table the wiring adds (one row per paper in a topic):

        topic(scope TEXT, number INTEGER, label TEXT, paper_id INTEGER REFERENCES paper(id)
              ON DELETE CASCADE, rank INTEGER, PRIMARY KEY (scope, paper_id))

    `scope` names the list grouped: "" for the whole catalog, else the query text. Grouping a
    list again replaces its rows; `rank` orders a topic's papers (closest to its centre first).
    """

    scope: str
    number: int
    label: str
    paper_id: int
    rank: int


@dataclass(frozen=True)
class CacheStatus:
    """What `catalog doctor` can say about the derived data."""

    state: str  # "missing", "stale" or "fresh"
    path: str
    papers: int  # papers in the cache
    terms: int
    bytes: int
    built: CatalogVersion | None


def topic_records(scope: str, topics: list[Topic]) -> list[TopicRecord]:
    return [TopicRecord(scope, t.number, t.label, pid, rank)
            for t in topics for rank, pid in enumerate(t.paper_ids, 1)]
