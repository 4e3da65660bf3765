"""Group a list of papers into labelled topics: NMF over tf-idf rows (scikit-learn).

Every paper lands in exactly one topic: the NMF component that weighs most in it. The number
of topics grows with the logarithm of the list's size, bounded both ways (n_topics): a reader
takes in a dozen topics of a conference list, not thirty. The same list gives the same topics
each run (a fixed seed, an SVD start, ties broken by paper id), and `renumber` gives them the
numbers the list's earlier topics had where their papers stayed together. Each label is two or three
phrases frequent in the topic and rare in the rest of the list, bigrams preferred (tokens
hold no stop words).

NMF rather than MiniBatchKMeans: on the seeds NMF puts 5 of the 7 SAE papers in one topic of
10 labelled "sae, latent, sparse autoencoder", whatever the random state (nndsvda starts from
an SVD); k-means on the same rows makes one catch-all topic of about half the papers, and its
SAE topic moves with the random state (3 to 6 of 7). The factorisation runs over the list's
CLUSTER_TERMS most frequent terms (rare terms barely move the topics and make NMF ten times
slower); the labels are read from all terms.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from catalog.discover.results import Topic
from catalog.discover.tokens import distinct_phrases

SEED = 0
LABEL_PHRASES = 3
TERMS = 8
MIN_TOPICS = 2
MAX_TOPICS = 20
CLUSTER_TERMS = 3000
FIT_SAMPLE = 20_000
NMF_ITERATIONS = 50  # scikit-learn's 200 cost far more time and give the seeds the same topics
BIGRAM_BONUS = 2.0  # a phrase says more than either of its words


def n_topics(n: int) -> int:
    """1.5 log2(n) - 3, between MIN_TOPICS and MAX_TOPICS (and at most n/2): 7 for 90 papers,
    9 for 300, 12 for 1,000, 13 for 2,000, 15 for 5,000, 20 from 25,000 papers on.

    The square root of n/2 it replaces gave 30 topics from 1,800 papers on (and 16 for 500):
    more than a reader scans, and on a conference list many of them split one theme in two
    (on a 2,000-paper generated list, 30 topics left 9 under 20 papers). A logarithm keeps
    the seeds' 7 and grows slowly; each topic of a 5,000-paper list holds ~330 papers."""
    if n < 4:
        return 1
    return max(MIN_TOPICS, min(MAX_TOPICS, round(1.5 * math.log2(n) - 3), n // 2))


def topics(matrix, terms: Sequence[str], ids: np.ndarray, k: int | None = None,
           method: str = "nmf") -> list[Topic]:
    """`matrix`: the tf-idf rows of the list's papers; `ids`: their paper ids, same order."""
    n = matrix.shape[0]
    if n == 0:
        return []
    k = min(k or n_topics(n), n)
    if k == 1:
        assignment = np.zeros(n, np.int64)
    elif method == "nmf":
        assignment = _nmf(_frequent_terms(matrix), k)
    elif method == "kmeans":  # kept for the comparison in benchmarks/discover.py
        assignment = _kmeans(matrix, k)
    else:
        raise ValueError(f"unknown method {method!r}")
    return _describe(matrix, terms, ids, assignment)


def renumber(found: Sequence[Topic], previous: dict[int, int]) -> list[Topic]:
    """`found` (numbered 1.. largest first) with the numbers of the list's earlier topics where
    their papers mostly stayed together, so that a `topic:3` a user wrote down keeps its
    meaning after a small import. `previous`: paper id -> its earlier topic's number.

    An earlier topic keeps its number when more than half of its papers still in the list are
    in one new topic; when two earlier topics would give their numbers to the same new topic
    (they merged), the one sharing more papers does (then the smaller number). The new topics
    left take the smallest numbers no earlier topic had, so an old number never comes back
    meaning something else in the same run. The order stays largest first."""
    if not previous:
        return list(found)
    listed = {pid for topic in found for pid in topic.paper_ids}
    old_sizes: dict[int, int] = {}
    for pid, number in previous.items():
        if pid in listed:
            old_sizes[number] = old_sizes.get(number, 0) + 1
    pairs = []
    for index, topic in enumerate(found):
        shared: dict[int, int] = {}
        for pid in topic.paper_ids:
            number = previous.get(pid)
            if number is not None:
                shared[number] = shared.get(number, 0) + 1
        pairs += [(-count, number, index) for number, count in shared.items()
                  if 2 * count > old_sizes[number]]
    numbers: dict[int, int] = {}  # index in found -> number
    for _, number, index in sorted(pairs):
        if index not in numbers and number not in numbers.values():
            numbers[index] = number
    taken = set(previous.values()) | set(numbers.values())
    free = (n for n in range(1, len(found) + len(taken) + 1) if n not in taken)
    return [Topic(numbers[i] if i in numbers else next(free), t.label, t.terms, t.paper_ids)
            for i, t in enumerate(found)]


def _kmeans(matrix, k: int) -> np.ndarray:
    from sklearn.cluster import MiniBatchKMeans

    model = MiniBatchKMeans(n_clusters=k, random_state=SEED, n_init=3,
                            batch_size=min(4096, matrix.shape[0]))
    return model.fit_predict(matrix)


def _frequent_terms(matrix):
    """The rows over the list's CLUSTER_TERMS most frequent terms, l2-normalised again."""
    from sklearn.preprocessing import normalize

    df = np.bincount(matrix.indices, minlength=matrix.shape[1])
    if np.count_nonzero(df) <= CLUSTER_TERMS:
        return matrix
    columns = np.sort(np.argsort(-df, kind="stable")[:CLUSTER_TERMS])
    return normalize(matrix[:, columns])


def _nmf(matrix, k: int) -> np.ndarray:
    """Each paper's topic: the NMF component weighing most in it. Lists over FIT_SAMPLE papers
    fit on a fixed random sample of that size (NMF's time grows with the papers) and place
    every paper by its nearest topic centre (one sparse product)."""
    import warnings

    from sklearn.decomposition import NMF
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import normalize

    n = matrix.shape[0]
    sample = None
    if n > FIT_SAMPLE:
        sample = np.sort(np.random.default_rng(SEED).choice(n, FIT_SAMPLE, replace=False))
    model = NMF(n_components=k, init="nndsvda", random_state=SEED, max_iter=NMF_ITERATIONS,
                tol=1e-3)
    with warnings.catch_warnings():  # an assignment to topics needs no tight convergence
        warnings.simplefilter("ignore", ConvergenceWarning)
        weights = model.fit_transform(matrix if sample is None else matrix[sample])
    # A paper with none of the terms (an empty row) goes to the largest topic.
    best = np.argmax(weights, axis=1)
    best = np.where(weights.any(axis=1), best, np.bincount(best).argmax())
    if sample is None:
        return best
    # The rest go to the topic whose centre (the mean row of its papers in the sample) is
    # nearest by cosine: a k-means assignment step (scoring them against the components
    # instead puts over 40% of the papers in the broadest topic).
    members = sp.csr_matrix((np.ones(len(best), np.float32), (best, np.arange(len(best)))),
                            shape=(k, len(best)))
    centres = normalize(members @ matrix[sample])
    return np.asarray((matrix @ centres.T).argmax(axis=1)).ravel()


def _describe(matrix, terms: Sequence[str], ids: np.ndarray, assignment: np.ndarray) -> list[Topic]:
    """Topics from an assignment: labels, papers closest to the centre first, largest first."""
    n = matrix.shape[0]
    total = np.asarray(matrix.sum(axis=0)).ravel()
    groups = [np.flatnonzero(assignment == c) for c in np.unique(assignment)]
    groups.sort(key=lambda rows: (-len(rows), int(ids[rows].min())))
    result = []
    for number, rows in enumerate(groups, 1):
        inside = np.asarray(matrix[rows].sum(axis=0)).ravel()
        outside = total - inside
        # Mean weight inside the topic over mean weight outside it (plus one paper's worth,
        # so a term of a single topic does not win on rarity alone), times how much it weighs.
        mean_in = inside / len(rows)
        mean_out = outside / max(n - len(rows), 1)
        score = mean_in * mean_in / (mean_out + 1.0 / n)
        best = [(float(score[t]), terms[t]) for t in np.argsort(-score, kind="stable")[:TERMS * 4]
                if score[t] > 0]
        ranked = sorted(best, key=lambda st: -st[0] * (BIGRAM_BONUS if " " in st[1] else 1.0))
        phrases = distinct_phrases([term for _, term in ranked], TERMS)
        centre = mean_in / (np.linalg.norm(mean_in) or 1.0)
        closeness = matrix[rows] @ centre
        order = rows[np.lexsort((ids[rows], -closeness))]
        result.append(Topic(number, ", ".join(phrases[:LABEL_PHRASES]) or "(no words)",
                            tuple(phrases), tuple(int(i) for i in ids[order])))
    return result
