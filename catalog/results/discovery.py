"""What discovery answers: similar or recommended papers, and topics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from catalog.results.papers import PaperSummary


@dataclass(frozen=True)
class RelatedPaper:
    """A paper `similar` or `recommend` found, how strongly, and why.

    similar: `score` is the cosine (0..1) over the asked paper's most distinctive terms, `why`
    the terms both share. recommend: `score` is the classifier's margin (above 0 looks like the
    papers it learned from), `why` the paper's terms that weigh most for it."""

    key: str
    title: str
    venue: str | None
    year: int | None
    score: float
    why: tuple[str, ...]
    summary: PaperSummary  # status, rating and tags too, for lists

    def as_json(self) -> dict:
        return {**self.summary.as_json(), "score": self.score, "why": list(self.why)}


@dataclass(frozen=True)
class TopicGroup:
    """One topic of a list (`catalog topics`): its label, the phrases it was made from, and its
    papers, closest to the topic's centre first. Topic 1 is the largest."""

    number: int
    label: str
    terms: tuple[str, ...]
    papers: tuple[PaperSummary, ...]

    @property
    def size(self) -> int:
        return len(self.papers)

    def as_json(self) -> dict:
        return {"number": self.number, "label": self.label, "size": self.size,
                "terms": list(self.terms),
                "papers": [{"key": p.key, "title": p.title, "venue": p.venue, "year": p.year}
                           for p in self.papers]}


@dataclass(frozen=True)
class TopicCount:
    """A stored topic of the whole catalog, for the TUI's sidebar."""

    number: int
    label: str
    count: int


class StoredTopics(NamedTuple):
    topics: tuple[TopicCount, ...]
    stale: bool  # papers came or went since they were made (or there are none)
