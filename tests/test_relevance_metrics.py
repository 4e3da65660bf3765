"""The ranking metrics of benchmarks/relevance.py, on rankings made by hand."""

import math

import pytest

from benchmarks.relevance import (
    Judged,
    first_relevant_rank,
    ndcg_at,
    recall_at,
    reciprocal_rank,
    score,
)

JUDGED = {"a": 2, "b": 1, "c": 1}


@pytest.mark.parametrize(
    ("ranking", "recall"),
    [
        (["a", "b", "c"], 1.0),
        (["c", "x", "a"], 2 / 3),
        (["x", "y"], 0.0),
        ([], 0.0),
        (["x"] * 10 + ["a", "b", "c"], 0.0),  # found only after the first 10
    ],
)
def test_recall_at_10(ranking, recall):
    assert recall_at(ranking, JUDGED) == pytest.approx(recall)


def test_recall_is_out_of_at_most_k_relevant_papers():
    many = {f"p{i}": 1 for i in range(30)}
    assert recall_at([f"p{i}" for i in range(10)], many) == 1.0
    assert recall_at([f"p{i}" for i in range(5)], many) == 0.5
    assert recall_at(["a", "b"], many, k=2) == 0.0


def test_ndcg_perfect_and_reversed():
    assert ndcg_at(["a", "b", "c"], JUDGED) == pytest.approx(1.0)
    assert ndcg_at(["b", "c", "a"], JUDGED) < 1.0
    assert ndcg_at(["x", "y"], JUDGED) == 0.0
    assert ndcg_at([], {}) == 0.0


def test_ndcg_by_hand():
    # gains 2^g - 1: a=3, b=1, c=1; ranking x, a, b: 3/log2(3) + 1/log2(4)
    dcg = 3 / math.log2(3) + 1 / 2
    ideal = 3 + 1 / math.log2(3) + 1 / 2
    assert ndcg_at(["x", "a", "b"], JUDGED) == pytest.approx(dcg / ideal)


def test_ndcg_prefers_the_better_grade_first():
    assert ndcg_at(["a", "b"], JUDGED) > ndcg_at(["b", "a"], JUDGED)


def test_first_relevant_rank_and_reciprocal_rank():
    assert first_relevant_rank(["x", "y", "c"], JUDGED) == 3
    assert reciprocal_rank(["x", "y", "c"], JUDGED) == pytest.approx(1 / 3)
    assert first_relevant_rank(["x"], JUDGED) is None
    assert reciprocal_rank(["x"], JUDGED) == 0.0


def test_score_averages_over_queries():
    judged = [Judged("q1", "idea", {"a": 2}), Judged("q2", "idea", {"b": 1}), Judged("q3", "idea", {"c": 2})]
    s = score([["a"], ["x", "b"], []], judged)
    assert s.recall == pytest.approx(2 / 3)
    assert s.mrr == pytest.approx((1 + 1 / 2 + 0) / 3)
    assert s.median_first == 1.5
    assert (s.not_found, s.empty, s.queries) == (1, 1, 3)
