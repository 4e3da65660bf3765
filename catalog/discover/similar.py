"""Papers like a given one, from the cache alone (standard library only).

The query is the paper's TOP strongest terms (as Lucene's MoreLikeThis does); each term's
postings (the papers where it weighs most) add term weight x term weight to a paper's score.
The score is the cosine of the two tf-idf rows over the query's terms: the terms that make a
paper distinctive decide, and one call reads at most TOP x POSTINGS entries however large
the catalog.
"""

from __future__ import annotations

import heapq

from catalog.discover.index import WEIGHTS, Index
from catalog.discover.results import SimilarPaper
from catalog.discover.tokens import distinct_phrases

WHY = 3  # shared terms given as the reason


def similar(index: Index, paper_id: int, limit: int = 10) -> list[SimilarPaper]:
    row = index.row_of(paper_id)
    if row is None:
        raise KeyError(paper_id)
    query = index.top_terms(row)
    scores: dict[int, float] = {}
    get = scores.get
    for term, weight in query:
        rows, codes = index.postings(term)
        scaled = [weight * w for w in WEIGHTS]
        for other, code in zip(rows, codes):
            scores[other] = get(other, 0.0) + scaled[code]
    scores.pop(row, None)
    # Highest score first; equal scores by row (ascending paper id): the same answer each run.
    best = heapq.nsmallest(limit, scores.items(), key=lambda item: (-item[1], item[0]))
    return [SimilarPaper(index.paper_id(other), round(score, 4), _why(index, query, other))
            for other, score in best]


def _why(index: Index, query: list[tuple[int, float]], other: int) -> tuple[str, ...]:
    theirs = dict(index.top_terms(other))
    shared = sorted(((weight * theirs[term], term) for term, weight in query if term in theirs),
                    key=lambda item: (-item[0], item[1]))
    return tuple(distinct_phrases([index.term(term) for _, term in shared[:WHY * 3]], WHY))
