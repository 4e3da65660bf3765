"""Tf-idf features of the catalog: which terms each paper has, and how distinctive they are.

Counting is done here, the weighting by scikit-learn's TfidfTransformer (sublinear tf, smooth
idf, l2 rows). Why not TfidfVectorizer for the counting too: its analyzer and vocabulary loop
are pure Python on one core, the slowest part of a build on a large catalog, and hold every
distinct bigram as a Python string (millions on real text). Here each paper's words go
through C-level `map`/`filter` into unigram ids, and bigrams are counted as pairs of unigram
ids with numpy; only the bigrams kept (`min_df`) ever become strings. The result is the
matrix CountVectorizer(analyzer=tokens.terms, min_df, max_df) gives (a test checks).

Imports numpy, scipy and scikit-learn: only the build and update paths use this module.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from catalog.discover.tokens import fold, terms as text_terms, words as text_words

MIN_DF = 2  # a term in a single paper relates it to nothing
MAX_DF = 0.5  # a term in over half the papers tells them apart from nothing


@dataclass
class Features:
    matrix: sp.csr_matrix  # papers x terms, float32, rows l2-normalised (a row may be empty)
    terms: list[str]  # column -> term
    idf: np.ndarray  # float32, per column

    def vocabulary(self) -> dict[str, int]:
        return {term: i for i, term in enumerate(self.terms)}


def fit(texts: Iterable[str], *, min_df: int = MIN_DF, max_df: float = MAX_DF) -> Features:
    """Features of `texts` (one row per text, in order), the vocabulary learnt from them."""
    counts, terms = _count(texts, min_df, max_df)
    if counts.shape[0] == 0 or counts.shape[1] == 0:  # no papers, or no term in two of them
        return Features(sp.csr_matrix(counts.shape, dtype=np.float32), terms,
                        np.ones(len(terms), np.float32))
    from sklearn.feature_extraction.text import TfidfTransformer

    weighting = TfidfTransformer(sublinear_tf=True)
    matrix = weighting.fit_transform(counts).astype(np.float32, copy=False).tocsr()
    return Features(matrix, terms, weighting.idf_.astype(np.float32))


def project(texts: Iterable[str], vocabulary: dict[str, int], idf: np.ndarray) -> sp.csr_matrix:
    """Rows for new texts in an existing space: terms outside the vocabulary are ignored."""
    get = vocabulary.get
    indices = array("i")
    indptr = array("q", [0])
    for text in texts:
        indices.extend(c for c in map(get, text_terms(text)) if c is not None)
        indptr.append(len(indices))
    counts = sp.csr_matrix(
        (np.ones(len(indices), np.float32), np.frombuffer(indices, np.int32),
         np.frombuffer(indptr, np.int64)), shape=(len(indptr) - 1, len(idf)))
    counts.sum_duplicates()
    from sklearn.feature_extraction.text import TfidfTransformer

    weighting = TfidfTransformer(sublinear_tf=True)
    weighting.idf_ = idf.astype(np.float64)
    return weighting.transform(counts).astype(np.float32, copy=False).tocsr()


def _count(texts: Iterable[str], min_df: int, max_df: float) -> tuple[sp.csr_matrix, list[str]]:
    """Term counts (papers x kept terms, float32) and the kept terms, unigrams first."""
    unigram_ids: dict[str, int] = defaultdict()
    unigram_ids.default_factory = unigram_ids.__len__  # a new word gets the next id, in C
    lookup = unigram_ids.__getitem__
    ids = array("i")
    ends = array("q")
    for text in texts:
        ids.extend(map(lookup, text_words(text)))
        ends.append(len(ids))
    n_docs = len(ends)
    # Plurals folded once per distinct word, not once per token.
    folded_ids: dict[str, int] = {}
    word_to_folded = np.fromiter(
        (folded_ids.setdefault(fold(w), len(folded_ids)) for w in unigram_ids), np.int32,
        count=len(unigram_ids))
    unigrams = list(folded_ids)
    n_words = len(unigrams)
    del unigram_ids, lookup, folded_ids
    if n_docs == 0:
        return sp.csr_matrix((0, 0), dtype=np.float32), []

    tokens = word_to_folded[np.frombuffer(ids, np.int32)]
    del ids
    ends = np.frombuffer(ends, np.int64)
    lengths = np.diff(ends, prepend=0)
    # A bigram is a word and the next one in the same paper, coded as a pair of word ids;
    # the pairs seen become columns (np.unique), and only the bigrams kept become strings.
    follows = np.ones(len(tokens), bool)  # the token has a next one in its paper
    follows[ends[lengths > 0] - 1] = False
    follows = follows[:-1]
    pairs = tokens[:-1][follows].astype(np.int64) * n_words + tokens[1:][follows]
    del follows
    # Tokens are already grouped by paper: the counts are built as CSR rows directly (this
    # sorts `tokens` within each paper, in place: the bigrams are taken before).
    unigram_counts = _counts(tokens, np.concatenate([[0], ends]), n_words)
    del tokens
    distinct_pairs, column = np.unique(pairs, return_inverse=True)
    del pairs
    column = column.astype(np.int32)
    bigram_counts = _counts(column, np.concatenate([[0], np.cumsum(np.maximum(lengths - 1, 0))]),
                            len(distinct_pairs))
    del column

    limit = max(max_df * n_docs, min_df)
    kept_words = _kept(unigram_counts, min_df, limit)
    kept_pairs = _kept(bigram_counts, min_df, limit)
    unigram_counts = unigram_counts[:, kept_words]
    bigram_counts = bigram_counts[:, kept_pairs]
    counts = sp.hstack([unigram_counts, bigram_counts], format="csr")
    del unigram_counts, bigram_counts
    counts.sort_indices()
    terms = [unigrams[i] for i in kept_words]
    firsts, seconds = np.divmod(distinct_pairs[kept_pairs], n_words)
    terms += [f"{unigrams[a]} {unigrams[b]}" for a, b in zip(firsts.tolist(), seconds.tolist())]
    return counts, terms


def _counts(columns: np.ndarray, indptr: np.ndarray, n_columns: int) -> sp.csr_matrix:
    """Occurrences as a count matrix: a column seen k times in a row holds k."""
    counts = sp.csr_matrix((np.ones(len(columns), np.float32), columns, indptr),
                           shape=(len(indptr) - 1, n_columns))
    counts.sum_duplicates()
    return counts


def _kept(counts: sp.csr_matrix, min_df: int, max_df: float) -> np.ndarray:
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    return np.flatnonzero((df >= min_df) & (df <= max_df))
