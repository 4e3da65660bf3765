"""Judged queries with connecting words (tests/data/judged_queries_connecting.toml: `mixture of
experts versus dense networks`, `interpretability without training data`), graded from the
seed abstracts before either engine ran them: issue 32's leftover. Catalog as `catalog search`
runs them (connecting words optional beside topic words), the same queries with each
connecting word required (`=versus`: what catalog did before), and the stemming BM25
baseline, in the same run."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from benchmarks import relevance
from benchmarks.bm25 import Baseline, documents
from catalog.library import Catalog
from catalog.searching.connecting import CONNECTING

DATA = Path(__file__).resolve().parent / "data" / "judged_queries_connecting.toml"
SEEDS = Path(__file__).resolve().parent.parent / "seeds"
BM25 = "BM25 en_stem, any word"


def _load() -> list[relevance.Judged]:
    with DATA.open("rb") as f:
        return [relevance.Judged(q["text"], q["kind"], dict(q["relevant"])) for q in tomllib.load(f)["query"]]


def required(text: str) -> str:
    """`text` with each connecting word written `=word`: required, as every word was before."""
    return re.sub(r"\w+", lambda m: f"={m[0]}" if m[0].lower() in CONNECTING else m[0], text)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    db = tmp_path_factory.mktemp("connecting") / "catalog.db"
    catalog = Catalog.open(db)
    assert not catalog.import_paths([SEEDS]).errors

    def as_the_cli(text: str) -> list[str]:
        return relevance.as_the_cli(catalog, text)

    judged = _load()
    engines = {"catalog": as_the_cli, "catalog, connecting words required": lambda t: as_the_cli(required(t)),
               BM25: Baseline(documents(db)).search}
    rankings = {name: relevance.run(search, judged) for name, search in engines.items()}
    yield judged, rankings
    catalog.close()


def test_the_set_is_well_formed():
    judged = _load()
    assert len(judged) >= 8 and all(2 in j.relevant.values() for j in judged)
    assert all(required(j.text) != j.text for j in judged)  # each holds a connecting word


def test_print_the_table(measured, summary_section):
    judged, rankings = measured
    summary_section(relevance.table({f"{name} (connecting words set)": relevance.score(r, judged)
                                     for name, r in rankings.items()}))


def test_no_query_comes_back_empty(measured):
    judged, rankings = measured
    assert [j.text for j, r in zip(judged, rankings["catalog"]) if not r] == []


def test_per_query(measured, summary_section):
    judged, rankings = measured
    lines = ["| query | catalog recall / nDCG | BM25 recall / nDCG |", "| --- | --- | --- |"]
    for i, j in enumerate(judged):
        mine, base = rankings["catalog"][i], rankings[BM25][i]
        lines.append(f"| {j.text} | {relevance.recall_at(mine, j.relevant, 10):.2f} / {relevance.ndcg_at(mine, j.relevant, 10):.2f}"
                     f" | {relevance.recall_at(base, j.relevant, 10):.2f} / {relevance.ndcg_at(base, j.relevant, 10):.2f} |")
    summary_section(lines)


# Catalog when first run (2026-12-07, rounded down): recall@10 0.963, nDCG@10 0.90; BM25
# 1.00 / 0.87. Catalog missed one of three papers for `tracing circuits back to training data
# using influence functions` (g05yban, on influence functions alone, graded 1).
FLOOR = {"recall": 0.96, "ndcg": 0.89}


def test_catalog_keeps_its_first_measure_and_ranks_at_or_above_bm25(measured):
    judged, rankings = measured
    mine, base = relevance.score(rankings["catalog"], judged), relevance.score(rankings[BM25], judged)
    assert mine.recall >= FLOOR["recall"] and mine.ndcg >= FLOOR["ndcg"]
    assert mine.ndcg >= base.ndcg


def test_connecting_words_optional_beat_them_required(measured):
    """Required (`=without`), the papers that happen to say "without" come first, and
    `=versus`, which no seed paper says, finds nothing."""
    judged, rankings = measured
    optional = relevance.score(rankings["catalog"], judged)
    strict = relevance.score(rankings["catalog, connecting words required"], judged)
    assert optional.recall > strict.recall and optional.ndcg > strict.ndcg
