"""Rank papers by likeness to a set of positives, in the manner of arxiv-sanity-lite: a linear
SVM over the tf-idf features, the positives against the rest, classes balanced.

arxiv-sanity-lite trains on every paper; here the negatives are a fixed random sample of at
most NEGATIVES papers (positive-unlabelled learning: the sample stands for "the catalog at
large"), so training costs the same however large the catalog grows, with the same ranking
on the seeds. Each recommendation's reason is those of its TOP strongest terms (index.py) with
the largest weight x tf-idf.

Training (`train`) needs scikit-learn, whose import is most of a `catalog recommend`'s time;
scoring (`rank`, over index.row_scores: one pass over the cache's mapped columns) needs numpy
alone. So the engine keeps each
trained model beside the cache generation it was trained on (the weights: 4 bytes per term),
and the same positives on the same cache (`recommend TAG` again, with other filters) rank
without training and without importing scikit-learn or scipy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from catalog.discover.results import Recommendation
from catalog.discover.tokens import distinct_phrases

NEGATIVES = 5_000
C = 0.1  # arxiv-sanity-lite uses 0.01 on ~20k capped features; ranks on the seeds: see tests
WHY = 3
SEED = 0


def model_key(positive_ids: Sequence[int]) -> str:
    """What a trained model is stored under (with the cache generation it was trained on)."""
    import hashlib

    text = f"svc C={C} negatives={NEGATIVES} seed={SEED}: " + ",".join(map(str, sorted(positive_ids)))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def training_rows(positive: np.ndarray) -> np.ndarray | None:
    """The rows a classifier learns from: the positives (a mask), then a fixed sample of the
    others, ascending within each; None when either is missing."""
    others = np.flatnonzero(~positive)
    if len(others) > NEGATIVES:
        others = np.sort(np.random.default_rng(SEED).choice(others, NEGATIVES, replace=False))
    if len(others) == 0 or not positive.any():
        return None
    return np.concatenate([np.flatnonzero(positive), others])


def train(matrix, labels: np.ndarray) -> np.ndarray:
    """The classifier of the rows of `matrix` whose label is true against the others: its
    weights per term then its intercept (float64)."""
    from sklearn.svm import LinearSVC

    model = LinearSVC(C=C, class_weight="balanced", tol=1e-6, max_iter=10_000, random_state=SEED)
    model.fit(matrix, labels.astype(np.int8))
    return np.concatenate([model.coef_[0], model.intercept_[:1]]).astype(np.float64)


def rank(scores: np.ndarray, model: np.ndarray, top_terms: Callable[[int], list[tuple[int, float]]],
         terms: Sequence[str], ids: np.ndarray, positive: np.ndarray, candidate_rows: np.ndarray,
         limit: int) -> list[Recommendation]:
    """The candidates (not positive) ranked by the model's decision function, best first:
    `scores` is every row's sum of weight x tf-idf (index.row_scores), `top_terms` a row's
    strongest terms (what a recommendation's reason is drawn from)."""
    candidates = np.asarray(candidate_rows, np.int64)
    candidates = candidates[~positive[candidates]]
    if len(candidates) == 0:
        return []
    weights = model[:-1]
    chosen = scores[candidates] + float(model[-1])
    # Highest score first; ties by paper id, so each run gives the same order.
    order = np.lexsort((ids[candidates], -np.round(chosen, 6)))[:limit]
    return [Recommendation(int(ids[candidates[i]]), round(float(chosen[i]), 4),
                           _why(top_terms(int(candidates[i])), weights, terms))
            for i in order.tolist()]


def _why(top: list[tuple[int, float]], weights: np.ndarray, terms: Sequence[str]) -> tuple[str, ...]:
    """The paper's strong terms that count most for the classifier (its weight x tf-idf)."""
    contribution = [(weight * float(weights[term]), term) for term, weight in top]
    contribution.sort(key=lambda item: -item[0])  # stable: equal ones keep the paper's order
    strong = [terms[term] for value, term in contribution[:WHY * 3] if value > 0]
    return tuple(distinct_phrases(strong, WHY))
