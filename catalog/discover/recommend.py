"""Rank papers by likeness to a set of positives, in the manner of arxiv-sanity-lite: a linear
SVM over the tf-idf features, the positives against the rest, classes balanced.

arxiv-sanity-lite trains on every paper; here the negatives are a fixed random sample of at
most NEGATIVES papers (positive-unlabelled learning: the sample stands for "the catalog at
large"), so training costs the same however large the catalog grows, with the same ranking
on the seeds. Each recommendation's reason is its terms with the largest weight x tf-idf.

Training (`train`) needs scikit-learn, whose import is most of a `catalog recommend`'s time;
scoring (`rank`) needs numpy alone, over the cache's mapped arrays. So the engine keeps each
trained model beside the cache generation it was trained on (the weights: 4 bytes per term),
and the same positives on the same cache (`recommend TAG` again, with other filters) rank
without training and without importing scikit-learn or scipy.
"""

from __future__ import annotations

from collections.abc import Sequence

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


def train(matrix, positive: np.ndarray) -> np.ndarray | None:
    """The classifier of the rows where `positive` (a mask) is true against a sample of the
    others: its weights per term then its intercept (float64), or None with no negatives."""
    others = np.flatnonzero(~positive)
    if len(others) > NEGATIVES:
        others = np.sort(np.random.default_rng(SEED).choice(others, NEGATIVES, replace=False))
    if len(others) == 0 or not positive.any():
        return None
    from sklearn.svm import LinearSVC

    train_rows = np.concatenate([np.flatnonzero(positive), others])
    labels = positive[train_rows].astype(np.int8)
    model = LinearSVC(C=C, class_weight="balanced", tol=1e-6, max_iter=10_000, random_state=SEED)
    model.fit(matrix[train_rows], labels)
    return np.concatenate([model.coef_[0], model.intercept_[:1]]).astype(np.float64)


def rank(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, model: np.ndarray,
         terms: Sequence[str], ids: np.ndarray, positive: np.ndarray, candidate_rows: np.ndarray,
         limit: int) -> list[Recommendation]:
    """The candidates (not positive) ranked by the model's decision function, best first, from
    the matrix's CSR arrays (numpy only: one pass over the mapped matrix)."""
    candidates = np.asarray(candidate_rows, np.int64)
    candidates = candidates[~positive[candidates]]
    if len(candidates) == 0:
        return []
    weights = model[:-1].astype(np.float32)
    intercept = float(model[-1])
    scores = _scores(data, indices, indptr, weights)[candidates] + intercept
    # Highest score first; ties by paper id, so each run gives the same order.
    order = np.lexsort((ids[candidates], -np.round(scores, 6)))[:limit]
    result = []
    for i in order.tolist():
        row = int(candidates[i])
        start, end = int(indptr[row]), int(indptr[row + 1])
        result.append(Recommendation(int(ids[row]), round(float(scores[i]), 4),
                                     _why(data[start:end], indices[start:end], weights, terms)))
    return result


def recommend(matrix, terms: Sequence[str], ids: np.ndarray, positive_rows: np.ndarray,
              candidate_rows: np.ndarray, limit: int) -> list[Recommendation]:
    """Train and rank in one call (a scipy CSR `matrix`): what the engine does without a
    stored model."""
    positive = np.zeros(matrix.shape[0], bool)
    positive[positive_rows] = True
    model = train(matrix, positive)
    if model is None:
        return []
    return rank(matrix.data, matrix.indices, matrix.indptr, model, terms, ids, positive,
                candidate_rows, limit)


BLOCK = 1 << 21  # matrix entries scored at once (~25 MB of temporaries)


def _scores(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
            weights: np.ndarray) -> np.ndarray:
    """Every row's sum of weight x tf-idf, a block of rows at a time (half the time of a
    running sum; scipy's product would need scipy's import)."""
    n = len(indptr) - 1
    scores = np.zeros(n, np.float64)
    start = 0
    while start < n:
        end = int(np.searchsorted(indptr, indptr[start] + BLOCK, side="right")) - 1
        end = min(max(end, start + 1), n)
        lo, hi = int(indptr[start]), int(indptr[end])
        if hi > lo:
            products = data[lo:hi] * weights[indices[lo:hi]]
            # Over the rows with entries only: reduceat sums from one start to the next (an
            # empty row would get the next row's first entry instead of 0).
            filled = np.flatnonzero(indptr[start + 1:end + 1] > indptr[start:end])
            scores[start + filled] = np.add.reduceat(products, indptr[start + filled] - lo,
                                                     dtype=np.float64)
        start = end
    return scores


def _why(data: np.ndarray, indices: np.ndarray, weights: np.ndarray,
         terms: Sequence[str]) -> tuple[str, ...]:
    contribution = data * weights[indices]
    strongest = np.argsort(-contribution, kind="stable")[:WHY * 3]
    strong = [terms[indices[i]] for i in strongest if contribution[i] > 0]
    return tuple(distinct_phrases(strong, WHY))
