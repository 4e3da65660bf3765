"""Issue 32, item 5: are `similar`'s neighbours on the same topic, with the acronyms a text
defines spelled out (catalog/discover/tokens.py, `with_long_forms`) and without (plain tf-idf
cosine), measured in the same run on two labelled sets:

- the seeds: papers judged relevant to the same query of tests/data/judged_queries*.toml
  (groups of three or more) are on the same topic; the acronyms are the catalog's, as its
  import learned them;
- 993 real arXiv papers (tests/data/arxiv_categories): the same primary arXiv category; the
  acronyms learned from the texts by the same rules (searching/acronyms.py, `learn`).

The score is precision@5: the share of a paper's five nearest (by the cosine of the whole
tf-idf rows) on its topic, averaged over the labelled papers. docs/benchmarks.md has the
figures."""

from __future__ import annotations

import gzip
import json
import sqlite3
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("sklearn")

import numpy as np  # noqa: E402

from catalog.discover import features  # noqa: E402
from catalog.discover.source import StoreSource  # noqa: E402
from catalog.discover.tokens import spellings, with_long_forms  # noqa: E402
from catalog.searching import acronyms  # noqa: E402
from catalog.library import Catalog  # noqa: E402
from catalog.store import open_store  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
SEEDS = Path(__file__).resolve().parent.parent / "seeds"
K = 5


def precision_at_k(texts: list[str], topics: list[set], k: int = K) -> float:
    matrix = features.fit(texts).matrix
    similarity = (matrix @ matrix.T).toarray()
    np.fill_diagonal(similarity, -np.inf)
    shares = []
    for i, topic in enumerate(topics):
        if topic:
            nearest = np.argsort(-similarity[i], kind="stable")[:k]
            shares.append(np.mean([bool(topics[j] & topic) for j in nearest]))
    return float(np.mean(shares))


def _seeds(tmp_path_factory) -> tuple[list[str], list[set], dict[str, str]]:
    db = tmp_path_factory.mktemp("similar_quality") / "catalog.db"
    catalog = Catalog.open(db)
    assert not catalog.import_paths([SEEDS]).errors
    catalog.close()
    conn = sqlite3.connect(db)
    keys = dict(conn.execute("SELECT id, key FROM paper").fetchall())
    conn.close()
    groups = []
    for name in ("judged_queries.toml", "judged_queries_32.toml"):
        with (DATA / name).open("rb") as f:
            groups += [{k for k, grade in q["relevant"].items() if grade} for q in tomllib.load(f)["query"]]
    groups = [g for g in groups if len(g) >= 3]
    source = StoreSource(open_store(db))
    papers = list(source.paper_texts())
    return ([p.text for p in papers], [{i for i, g in enumerate(groups) if keys[p.id] in g} for p in papers],
            source.acronyms())


def _arxiv() -> tuple[list[str], list[set], dict[str, str]]:
    with gzip.open(DATA / "arxiv_categories" / "papers.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    texts = [f"{r['title']}\n{r['abstract']}" for r in rows]
    return texts, [{r["categories"][0]} for r in rows], acronyms.learn(texts)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    out = {}
    for name, (texts, topics, known) in (("seeds", _seeds(tmp_path_factory)), ("arXiv", _arxiv())):
        spelled = spellings(known)
        out[name] = {"tf-idf cosine": precision_at_k(texts, topics),
                     "with long forms": precision_at_k([with_long_forms(t, spelled) for t in texts], topics)}
    return out


def test_print_the_table(measured, summary_section):
    lines = ["| labelled set | tf-idf cosine | with long forms | precision@5 gained |", "| --- | --- | --- | --- |"]
    lines += [f"| {name} | {s['tf-idf cosine']:.3f} | {s['with long forms']:.3f} "
              f"| {s['with long forms'] - s['tf-idf cosine']:+.3f} |" for name, s in measured.items()]
    summary_section(["similar: same-topic share of the 5 nearest", *lines])


def test_long_forms_find_more_same_topic_neighbours_on_the_seeds(measured):
    # Measured when written: 0.582 -> 0.626.
    seeds = measured["seeds"]
    assert seeds["with long forms"] >= seeds["tf-idf cosine"] + 0.02


def test_long_forms_cost_nothing_noticeable_on_arxiv_categories(measured):
    # Broad categories (cs.CV, cs.LG, stat.ML) that few acronyms tell apart: measured when
    # written 0.738 -> 0.730, a small loss (about 45 of 4,965 neighbours) kept for the seeds'.
    arxiv = measured["arXiv"]
    assert arxiv["with long forms"] >= arxiv["tf-idf cosine"] - 0.015


def test_both_backends_give_the_acronyms_the_abstracts_define(seeded_any):
    known = StoreSource(seeded_any.store).acronyms()
    assert known["SAE"].lower().replace("-", "") in ("sparse autoencoder", "sparse autoencoders")
    assert known["VLM"].lower().startswith("vision")
