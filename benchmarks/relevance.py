"""Ranking quality on the judged queries (tests/data/judged_queries.toml): plain-Python metrics.

A ranking is the list of paper keys an engine returns, best first; judgments map a key to
its grade (2 = about exactly this, 1 = relevant; absent = not relevant).

- recall@k: of the relevant papers, the share found in the first k, out of at most k (so a
  query with 30 relevant papers can still reach 1.0 with ten of them);
- nDCG@k: discounted cumulative gain with gain 2^grade - 1, over that of the ideal ranking;
- reciprocal rank: 1 / rank of the first relevant paper (0 when none is found); MRR is its mean;
- first relevant rank: that rank itself (None when none is found).
"""

from __future__ import annotations

import math
import statistics
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

JUDGED = Path(__file__).resolve().parent.parent / "tests" / "data" / "judged_queries.toml"
K = 10


@dataclass(frozen=True)
class Judged:
    text: str
    kind: str
    relevant: dict[str, int]


def load(path: Path = JUDGED) -> list[Judged]:
    with path.open("rb") as f:
        data = tomllib.load(f)
    return [Judged(q["text"], q["kind"], dict(q["relevant"])) for q in data["query"]]


def recall_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int = K) -> float:
    if not relevant:
        return 0.0
    found = sum(1 for key in ranking[:k] if relevant.get(key, 0) > 0)
    return found / min(k, sum(1 for g in relevant.values() if g > 0))


def _dcg(grades: Sequence[int]) -> float:
    return sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(grades))


def ndcg_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int = K) -> float:
    ideal = _dcg(sorted(relevant.values(), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return _dcg([relevant.get(key, 0) for key in ranking[:k]]) / ideal


def first_relevant_rank(ranking: Sequence[str], relevant: Mapping[str, int]) -> int | None:
    for rank, key in enumerate(ranking, 1):
        if relevant.get(key, 0) > 0:
            return rank
    return None


def reciprocal_rank(ranking: Sequence[str], relevant: Mapping[str, int]) -> float:
    rank = first_relevant_rank(ranking, relevant)
    return 1 / rank if rank else 0.0


@dataclass(frozen=True)
class Scores:
    """Mean scores of one engine over a set of judged queries."""

    recall: float
    ndcg: float
    mrr: float
    median_first: float | None  # over the queries where a relevant paper was found
    not_found: int  # queries with no relevant paper in the ranking
    empty: int  # queries for which the engine returned nothing at all
    queries: int


def score(rankings: Sequence[Sequence[str]], judged: Sequence[Judged], k: int = K) -> Scores:
    firsts = [first_relevant_rank(r[:k], j.relevant) for r, j in zip(rankings, judged, strict=True)]
    found = [f for f in firsts if f is not None]
    n = len(judged)
    return Scores(
        recall=sum(recall_at(r, j.relevant, k) for r, j in zip(rankings, judged)) / n,
        ndcg=sum(ndcg_at(r, j.relevant, k) for r, j in zip(rankings, judged)) / n,
        mrr=sum(1 / f for f in found) / n,
        median_first=statistics.median(found) if found else None,
        not_found=n - len(found),
        empty=sum(1 for r in rankings if not r),
        queries=n,
    )


def run(search: Callable[[str], Sequence[str]], judged: Sequence[Judged]) -> list[list[str]]:
    """Each query's ranking (first K keys) from `search`."""
    return [list(search(j.text))[:K] for j in judged]


def table(engines: Mapping[str, Scores], kinds: Mapping[str, Mapping[str, Scores]] | None = None) -> list[str]:
    """A Markdown table: one row per engine, then (if given) one row per engine and query kind."""
    lines = ["| engine | queries | recall@10 | nDCG@10 | MRR | median first relevant | none relevant | no results |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]

    def row(name: str, s: Scores) -> str:
        first = "–" if s.median_first is None else f"{s.median_first:g}"
        return (f"| {name} | {s.queries} | {s.recall:.2f} | {s.ndcg:.2f} | {s.mrr:.2f} | {first} | "
                f"{s.not_found} | {s.empty} |")

    lines += [row(name, s) for name, s in engines.items()]
    for kind, by_engine in (kinds or {}).items():
        lines += [row(f"{name}, {kind}", s) for name, s in by_engine.items()]
    return lines


def compare(engines: Mapping[str, Callable[[str], Sequence[str]]],
            judged: Sequence[Judged]) -> tuple[dict[str, Scores], dict[str, dict[str, Scores]], dict[str, list[list[str]]]]:
    """Scores per engine overall and per query kind, and the rankings themselves."""
    rankings = {name: run(search, judged) for name, search in engines.items()}
    overall = {name: score(r, judged) for name, r in rankings.items()}
    kinds: dict[str, dict[str, Scores]] = {}
    for kind in dict.fromkeys(j.kind for j in judged):
        idx = [i for i, j in enumerate(judged) if j.kind == kind]
        subset = [judged[i] for i in idx]
        kinds[kind] = {name: score([r[i] for i in idx], subset) for name, r in rankings.items()}
    return overall, kinds, rankings


def as_the_cli(catalog, text: str) -> list[str]:
    """The first K keys `catalog search` shows for `text`: its own results, or, when no paper
    holds every word and "did you mean" has a correction, the correction's."""
    papers = catalog.search(text, limit=K, snippets=False)
    if not any(p.match == "all" for p in papers) and (fixed := catalog.words.correction(text)):
        papers = catalog.search(fixed, limit=K, snippets=False)
    return [p.key for p in papers]


def evaluate(db: Path, judged: Sequence[Judged] | None = None):
    """`compare` for catalog's search on the catalog at `db` and the BM25 baseline over its papers."""
    from benchmarks.bm25 import Baseline, documents
    from catalog.library import Catalog

    judged = load() if judged is None else judged
    catalog = Catalog.open(db)
    try:
        engines = {
            "catalog": lambda q: [p.key for p in catalog.search(q, limit=K, snippets=False)],
            "BM25 en_stem, any word": Baseline(documents(db)).search,
        }
        return compare(engines, judged)
    finally:
        catalog.close()


def report(work: Path) -> list[str]:
    """The `python -m benchmarks` section: the judged queries on a catalog of the seeds."""
    from catalog.library import Catalog

    seeds = Path(__file__).resolve().parent.parent / "seeds"
    db = work / "judged-seeds.db"
    db.unlink(missing_ok=True)
    catalog = Catalog.open(db)
    catalog.import_paths([seeds])
    catalog.close()
    judged = load()
    overall, kinds, _ = evaluate(db, judged)
    return [f"### Ranking quality: {len(judged)} judged queries on the 90 seed papers", "",
            "Queries and grades: tests/data/judged_queries.toml. The baseline is Tantivy's BM25 with its "
            "English stemmer, ranking papers that match any word.", "",
            *table(overall, kinds), ""]
