"""The discovery engine on the seeds: quality, determinism, caching, and what it must never do
(open a socket; import scikit-learn or numpy on the cached path of `similar`)."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from catalog.discover import CatalogVersion, DiscoverStore, Discovery, PaperText, topic_records
from catalog.discover.source import StoreSource
from catalog.store import open_store
from catalog.library import Catalog

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"

# The seven papers about sparse autoencoders, found by reading the seeds (every abstract that
# names sparse autoencoders / SAEs), by the opening of the abstract:
SAE_OPENINGS = (
    "The diversity of post-training data is critical",  # FAC: an SAE finds missing features
    "Sparse Autoencoders (SAEs) are widely used to interpret",  # C^2R: feature splitting
    "Despite the growing reasoning capabilities of recent large language models (LLMs), their internal",  # RISE
    "Vision–language models (VLMs) align images and text",  # Aligned SAE, iso-energy
    "A central aim of interpretability tools applied to language models",  # Temporal SAE
    "Polysemy has long been a major challenge",  # LocA-SAE
    "Despite their impressive performance, generative image models",  # RA-SAE blindspots
)


def sae_keys_in(db: Path) -> list[str]:
    """The keys of the seven SAE papers in a catalog of the seeds, in id order."""
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT key, abstract_text FROM paper ORDER BY id").fetchall()
    conn.close()
    keys = [key for key, text in rows if text.startswith(SAE_OPENINGS)]
    assert len(keys) == 7
    return keys


@pytest.fixture(scope="module")
def seeds_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("discover") / "catalog.db"
    catalog = Catalog.open(path)
    assert not catalog.import_paths([SEEDS]).errors
    catalog.close()
    return path


@pytest.fixture(scope="module")
def sae(seeds_db) -> list[int]:
    conn = sqlite3.connect(seeds_db)
    rows = conn.execute("SELECT id, abstract_text FROM paper").fetchall()
    conn.close()
    ids = [pid for pid, text in rows if text.startswith(SAE_OPENINGS)]
    assert len(ids) == 7
    return sorted(ids)


@pytest.fixture(scope="module")
def engine(seeds_db, tmp_path_factory) -> Discovery:
    return Discovery(StoreSource(open_store(seeds_db), tmp_path_factory.mktemp("cache")))


def fresh_engine(db: Path, cache: Path) -> Discovery:
    return Discovery(StoreSource(open_store(db), cache))


# --- quality on the seeds ---------------------------------------------------------------------


def test_sae_papers_find_each_other_among_their_nearest(engine, sae):
    shared = {pid: sum(s.paper_id in sae for s in engine.similar(pid, 5)) for pid in sae}
    # Random neighbours would give 5 x 6/89 = 0.34 SAE papers per top 5. Measured: 29 of 35
    # (15 before the acronyms the abstracts define were spelled out: a paper's "SAE"s now
    # count as "sparse autoencoder", tokens.with_long_forms); 4 or 5 of 5 for six papers, 1
    # for FAC
    # (an SAE as a tool for data diversity: that topic is nearest).
    assert sum(shared.values()) >= 25, shared
    assert sum(n >= 3 for n in shared.values()) >= 5, shared
    assert all(n >= 1 for n in shared.values()), shared


def test_similar_explains_itself_with_shared_terms(engine, sae):
    results = engine.similar(sae[1], 5)
    assert len(results) == 5 and sae[1] not in {r.paper_id for r in results}
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    assert all(0 < r.score <= 1 for r in results)
    top = results[0]
    assert top.paper_id in sae and top.why and "latent" in top.why


def test_recommend_ranks_the_other_sae_papers_high(engine, sae):
    for positives in (sae[:3], sae[1:4], sae[3:6]):
        ranked = [r.paper_id for r in engine.recommend(positives, limit=100)]
        assert not set(positives) & set(ranked) and len(ranked) == 90 - 3
        ranks = sorted(ranked.index(pid) + 1 for pid in sae if pid not in positives)
        # 4 papers among 87 candidates: all in the top 15, half of them in the top 5.
        assert ranks[-1] <= 15 and ranks[1] <= 5, ranks


def test_recommend_says_why_and_respects_candidates(engine, sae):
    candidates = [pid for pid in range(1, 91) if pid % 2 == 0] + sae
    results = engine.recommend(sae[:3], candidates, limit=10)
    assert {r.paper_id for r in results} <= set(candidates) - set(sae[:3])
    assert results[0].paper_id in sae and "sae" in results[0].why
    assert engine.recommend([], limit=5) == []


def test_topics_keep_the_sae_papers_together_with_readable_labels(engine, sae):
    from catalog.discover.tokens import STOP_WORDS

    topics = engine.topics()
    assert 4 <= len(topics) <= 20
    papers = [pid for t in topics for pid in t.paper_ids]
    assert sorted(papers) == list(range(1, 91))  # each paper in exactly one topic
    largest_share = max(sum(pid in sae for pid in t.paper_ids) for t in topics)
    assert largest_share >= 5
    sae_topic = max(topics, key=lambda t: sum(pid in sae for pid in t.paper_ids))
    assert "sae" in sae_topic.label and "sparse autoencoder" in sae_topic.terms
    assert sae_topic.size <= 15  # a topic, not the whole catalog
    for topic in topics:
        phrases = topic.label.split(", ")
        assert 1 <= len(phrases) <= 3 and all(phrases)
        assert not any(word in STOP_WORDS or word.isdigit() for p in phrases for word in p.split())
    assert sum(" " in t.label.replace(", ", ",") for t in topics) >= len(topics) - 1  # phrases
    assert [t.size for t in topics] == sorted((t.size for t in topics), reverse=True)
    records = topic_records("", topics)
    assert len(records) == 90 and {r.paper_id for r in records} == set(range(1, 91))


def test_topics_of_a_list(engine, sae):
    chosen = sae + list(range(1, 30))
    topics = engine.topics(chosen)
    assert sorted(p for t in topics for p in t.paper_ids) == sorted(set(chosen))
    assert 2 <= len(topics) <= 10
    assert len(engine.topics([sae[0]])) == 1


def test_results_are_deterministic(seeds_db, engine, sae, tmp_path):
    other = fresh_engine(seeds_db, tmp_path / "other")
    assert other.similar(sae[2], 10) == engine.similar(sae[2], 10)
    assert other.recommend(sae[:3], limit=20) == engine.recommend(sae[:3], limit=20)
    assert other.topics() == engine.topics()


# --- the features -------------------------------------------------------------------------------


def seed_texts() -> list[str]:
    texts = []
    for path in sorted(SEEDS.glob("*.txt")):
        texts += [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()]
    return texts



def test_equal_weights_keep_their_order_on_any_cpu():
    """Which of a paper's equal-weight terms make its TOP (and which papers a term's postings)
    must not depend on the CPU: numpy's default sort orders ties by its SIMD path."""
    import numpy as np

    from catalog.discover.index import _strongest

    rng = np.random.default_rng(1)
    indptr = np.arange(0, 2001, 400)  # 5 rows of 400 entries, weights in three values only
    indices = np.tile(np.arange(400, dtype=np.int32), 5)
    data = rng.choice(np.array([0.1, 0.2, 0.3], np.float32), 2000)
    kept, picked, _ = _strongest(indptr, indices, data, 32)
    assert kept.tolist() == [32] * 5
    for row in range(5):
        weights = data[indptr[row]:indptr[row + 1]]
        strongest = sorted(range(400), key=lambda i: (-weights[i], i))[:32]  # ties: lower index first
        assert picked[row * 32:(row + 1) * 32].tolist() == strongest

def test_tokens_are_scikit_learns_word_analyzer_less_digits():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

    from catalog.discover import tokens

    assert tokens.STOP_WORDS == ENGLISH_STOP_WORDS
    theirs = CountVectorizer(stop_words="english").build_analyzer()
    for text in seed_texts() + ["C++ and x86-64 in 2026: ÉTÉ, naïve Bayes; 模型 论文 a_b 3d",
                                "code at https://github.com/a/b-c_d"]:
        assert tokens.words(text) == [t for t in theirs(text)
                                      if not t.isdigit() and t not in tokens.WEB_WORDS]


def test_plurals_fold_to_readable_singulars():
    from catalog.discover.tokens import fold

    cases = {"saes": "sae", "autoencoders": "autoencoder", "studies": "study", "losses": "loss",
             "approaches": "approach", "models": "model", "analysis": "analysis", "bias": "bias",
             "dynamics": "dynamics", "series": "series", "focus": "focus", "gas": "gas"}
    assert {w: fold(w) for w in cases} == cases


def test_features_are_what_tfidfvectorizer_gives():
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    from catalog.discover import features, tokens

    texts = seed_texts()
    mine = features.fit(texts)
    theirs = TfidfVectorizer(analyzer=tokens.terms, min_df=2, max_df=0.5, sublinear_tf=True)
    expected = theirs.fit_transform(texts)
    assert sorted(mine.terms) == sorted(theirs.vocabulary_)
    columns = [theirs.vocabulary_[t] for t in mine.terms]
    assert abs(expected[:, columns] - mine.matrix).max() < 1e-6
    assert np.allclose(mine.idf, theirs.idf_[columns])
    projected = features.project(texts[:3], mine.vocabulary(), mine.idf)
    assert abs(projected - mine.matrix[:3]).max() < 1e-6


# --- the cache: stale, missing, updated -------------------------------------------------------


class MemoryStore:
    """A DiscoverStore over a dict, for the update rule."""

    def __init__(self, texts: dict[int, str], cache: Path):
        self.texts = dict(texts)
        self.data = "0"
        self.cache = cache
        self.reads = 0

    def version(self) -> CatalogVersion:
        return CatalogVersion(len(self.texts), max(self.texts, default=0), self.data)

    def paper_texts(self, ids=None, *, after_id=0):
        self.reads += 1
        for pid in sorted(self.texts):
            if pid > after_id and (ids is None or pid in ids):
                yield PaperText(pid, self.texts[pid])

    def acronyms(self):
        return {}

    def tagged(self, tag):
        return []

    def liked(self):
        return []

    def cache_dir(self):
        return self.cache

    def save_topics(self, scope, records):
        pass


def test_the_stores_implement_the_protocol(seeds_db, tmp_path):
    assert isinstance(StoreSource(open_store(seeds_db), tmp_path), DiscoverStore)
    assert isinstance(MemoryStore({}, tmp_path), DiscoverStore)


def test_update_rule_projects_small_changes_and_refits_large_ones(tmp_path, monkeypatch):
    from catalog.discover import build

    monkeypatch.setattr(build, "REFIT_BELOW", 10)
    monkeypatch.setattr(build, "REFIT_SHARE", 0.1)  # refit after 8 changes to the 80
    texts = dict(enumerate(seed_texts(), 1))
    store = MemoryStore({pid: t for pid, t in texts.items() if pid <= 80}, tmp_path / "c")
    engine = Discovery(store)
    engine.current()
    assert engine.last_update.kind == "rebuilt" and engine.last_update.papers == 80

    store.texts[81] = texts[81]  # one new paper: projected into the space, found at once
    engine.similar(81)
    assert (engine.last_update.kind, engine.last_update.added) == ("updated", 1)
    assert engine.status().state == "fresh" and engine.status().papers == 81

    store.data = "1"  # the store says texts may have changed; none did: restamped only
    engine.similar(5)
    assert engine.last_update.kind == "restamped"

    store.texts[3] = texts[3] + " sparse autoencoders"  # changed, and one removed
    del store.texts[4]
    store.data = "2"
    assert 4 not in {s.paper_id for s in engine.similar(3, 90)}
    assert (engine.last_update.kind, engine.last_update.changed, engine.last_update.removed) == (
        "updated", 1, 1)
    with pytest.raises(KeyError):
        engine.similar(4)

    for pid in range(82, 91):  # 9 + 3 changes since the full build of 80: over a tenth
        store.texts[pid] = texts[pid]
    engine.similar(90)
    assert engine.last_update.kind == "rebuilt" and engine.status().papers == 89

    # Only appended papers with the data version unchanged: the old ones are not read again.
    reads = store.reads
    store.texts[200] = texts[1]
    engine.similar(200)
    assert store.reads == reads + 1


def test_an_import_makes_the_cache_stale_and_it_is_updated(tmp_path):
    db = tmp_path / "c.db"
    catalog = Catalog.open(db)
    first, *rest = sorted(SEEDS.glob("*.txt"))
    catalog.import_paths([first])
    engine = fresh_engine(db, tmp_path / "cache")
    before = engine.current().rows
    assert engine.status().state == "fresh"
    catalog.import_paths(rest)
    assert engine.status().state == "stale"
    last = max(r[0] for r in sqlite3.connect(db).execute("SELECT id FROM paper"))
    assert engine.similar(last, 3)
    assert engine.status().state == "fresh" and engine.current().rows == 90 > before
    catalog.tag([catalog.search("", limit=1)[0].key], ["x"])
    assert engine.status().state == "fresh"  # tags don't touch the features
    catalog.close()


def test_a_missing_or_broken_cache_is_rebuilt_silently(seeds_db, tmp_path, sae):
    cache = tmp_path / "cache"
    engine = fresh_engine(seeds_db, cache)
    assert engine.status().state == "missing"
    expected = engine.similar(sae[0])
    (cache / "CURRENT").write_text("g-nonexistent")
    assert engine.similar(sae[0]) == expected
    manifest = next(cache.glob("g-*/manifest.json"))
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "format": 0}))
    assert engine.similar(sae[0]) == expected
    assert len(list(cache.glob("g-*"))) == 1  # old generations are cleaned up


def test_an_empty_catalog(tmp_path):
    engine = Discovery(MemoryStore({}, tmp_path / "c"))
    assert engine.topics() == [] and engine.recommend([1]) == []
    with pytest.raises(KeyError):
        engine.similar(1)


# --- what the engine must never do ------------------------------------------------------------


def test_no_socket_is_opened(seeds_db, tmp_path, monkeypatch, sae):
    def refuse(*args, **kwargs):
        raise AssertionError("the discovery engine opened a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    engine = fresh_engine(seeds_db, tmp_path / "cache")
    assert engine.similar(sae[0])
    assert engine.recommend(sae[:2], limit=5)
    assert engine.topics()
    engine.refresh(full=True)


def test_cached_similar_imports_neither_sklearn_nor_numpy(seeds_db, tmp_path, sae):
    cache = tmp_path / "cache"
    fresh_engine(seeds_db, cache).current()
    code = (
        "import sys\n"
        "import catalog.discover\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('sklearn', 'numpy', 'scipy')]\n"
        "from catalog.discover import Discovery\n"
        "from catalog.discover.source import StoreSource\n"
        "from catalog.store import open_store\n"
        f"print(Discovery(StoreSource(open_store({str(seeds_db)!r}), {str(cache)!r})).similar({sae[0]}, 3))\n"
        "print('HEAVY', sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'numpy', 'scipy'}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr
    assert "SimilarPaper(" in out.stdout


def test_two_builders_at_once_leave_one_whole_cache(seeds_db, tmp_path, sae):
    import threading

    cache = tmp_path / "cache"
    engines = [fresh_engine(seeds_db, cache) for _ in range(2)]
    results, errors = [], []

    def ask(engine):
        try:
            results.append(engine.similar(sae[0], 3))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results[0] == results[1]
    assert sum(e.last_update is not None for e in engines) == 1  # the other found it fresh
    assert len(list(cache.glob("g-*"))) == 1 and not list(cache.glob(".partial-*"))


def test_topics_of_a_long_list_fit_on_a_sample(engine, monkeypatch):
    from catalog.discover import topics as topic_module

    monkeypatch.setattr(topic_module, "FIT_SAMPLE", 40)
    topics = engine.topics()
    assert sorted(p for t in topics for p in t.paper_ids) == list(range(1, 91))
    assert topics == engine.topics() and topics[0].size < 60


# --- how many topics, and their numbers -----------------------------------------------------------


def test_the_number_of_topics_fits_the_list():
    from catalog.discover.topics import n_topics

    assert n_topics(1) == n_topics(3) == 1
    assert 4 <= n_topics(90) <= 20  # the rule for the seeds
    sizes = [10, 90, 300, 1000, 2000, 5000, 100_000, 1_000_000]
    counts = [n_topics(n) for n in sizes]
    assert counts == sorted(counts)  # more papers, never fewer topics
    assert all(2 <= c <= 20 for c in counts)
    assert n_topics(500) <= 12 and n_topics(2000) <= 15 and n_topics(5000) <= 16  # was 16, 30, 30


def test_a_generated_list_of_2000_papers_gets_a_readable_number_of_topics(tmp_path):
    sys.path.insert(0, str(REPO))
    from benchmarks import corpus

    files = corpus.write_paper_lists(2000, tmp_path / "lists", per_file=1000)
    catalog = Catalog.open(tmp_path / "c.db")
    assert not catalog.import_paths(files).errors
    catalog.close()
    topics = fresh_engine(tmp_path / "c.db", tmp_path / "cache").topics()
    assert 8 <= len(topics) <= 15
    assert sorted(p for t in topics for p in t.paper_ids) == list(range(1, 2001))
    assert min(t.size for t in topics) >= 20  # no sliver topics of a handful of papers


def _topic(number: int, ids) -> "Topic":
    from catalog.discover import Topic

    return Topic(number, f"label {number}", (), tuple(ids))


def test_renumbering_keeps_the_numbers_of_topics_that_stayed_together():
    from catalog.discover.topics import renumber

    previous = {pid: 1 for pid in range(1, 11)} | {pid: 2 for pid in range(11, 17)} | {
        pid: 3 for pid in range(17, 21)}
    # Old topic 2 (11-16) grew and is now the largest; old 1 lost 3 papers to a new topic;
    # old 3 (17-20) was split in two halves: no topic holds most of it.
    found = [_topic(1, [*range(11, 17), 21, 22, 23, 24, 25]), _topic(2, range(1, 8)),
             _topic(3, [8, 9, 10, 17, 18]), _topic(4, [19, 20, 26])]
    numbers = [t.number for t in renumber(found, previous)]
    assert numbers[:2] == [2, 1]
    assert set(numbers[2:]) == {4, 5}  # new numbers, never 3: it meant the split topic
    assert [t.paper_ids for t in renumber(found, previous)] == [t.paper_ids for t in found]
    assert renumber(found, {}) == found
    # Two old topics merged into one: the one sharing more papers gives its number.
    merged = renumber([_topic(1, range(1, 17)), _topic(2, range(17, 21))], previous)
    assert [t.number for t in merged] == [1, 3]


# --- recommend: the trained classifier kept with the cache -----------------------------------------


def test_recommend_again_reuses_its_classifier_without_scikit_learn(seeds_db, tmp_path, sae):
    cache = tmp_path / "cache"
    engine = fresh_engine(seeds_db, cache)
    first = engine.recommend(sae[:3], limit=10)
    models = list(cache.glob("g-*/models/*.f64"))
    assert len(models) == 1
    assert engine.recommend(sae[:3], limit=10) == first
    everything = engine.recommend(sae[:3], limit=100)
    assert everything[:10] == first
    odd = [pid for pid in range(1, 91) if pid % 2]  # another list: the same model
    assert engine.recommend(sae[:3], odd, limit=5) == [r for r in everything if r.paper_id % 2][:5]
    assert engine.recommend(sae[:3], exclude_ids=odd, limit=5) == [
        r for r in everything if not r.paper_id % 2][:5]
    code = (
        "import sys\n"
        "from catalog.discover import Discovery\n"
        "from catalog.discover.source import StoreSource\n"
        "from catalog.store import open_store\n"
        f"engine = Discovery(StoreSource(open_store({str(seeds_db)!r}), {str(cache)!r}))\n"
        f"print([(r.paper_id, r.score, r.why) for r in engine.recommend({sae[:3]!r}, limit=10)])\n"
        "print('HEAVY', sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'scipy'}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr
    assert out.stdout.splitlines()[0] == str([(r.paper_id, r.score, r.why) for r in first])
    # Other positives train (and keep) another classifier.
    assert engine.recommend(sae[1:4], limit=10) != first
    assert len(list(cache.glob("g-*/models/*.f64"))) == 2


def test_a_stored_classifier_goes_with_its_cache(seeds_db, tmp_path, sae):
    cache = tmp_path / "cache"
    engine = fresh_engine(seeds_db, cache)
    first = engine.recommend(sae[:3], limit=10)
    engine.refresh(full=True)  # a new generation: its own classifiers
    assert not list(cache.glob("g-*/models/*.f64"))
    assert engine.recommend(sae[:3], limit=10) == first
    model = next(cache.glob("g-*/models/*.f64"))
    model.write_bytes(b"broken")  # an unreadable model is trained again
    assert engine.recommend(sae[:3], limit=10) == first
    assert model.stat().st_size > 100


def test_only_the_latest_classifiers_are_kept(seeds_db, tmp_path, sae, monkeypatch):
    from catalog.discover import engine as engine_module

    monkeypatch.setattr(engine_module, "MODELS_KEPT", 2)
    cache = tmp_path / "cache"
    engine = fresh_engine(seeds_db, cache)
    for positives in (sae[:2], sae[:3], sae[:4]):
        engine.recommend(positives, limit=3)
    assert len(list(cache.glob("g-*/models/*.f64"))) == 2


def test_scores_are_the_matrix_product_empty_rows_and_columns_included(tmp_path):
    import numpy as np
    import scipy.sparse as sp

    from catalog.discover import index as index_files

    dense = np.array([[0, 1, 0.5, 0], [0, 0, 0, 0], [0.25, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 0]], np.float32)
    folder = index_files.write(tmp_path, ids=np.arange(1, 6), hashes=np.zeros(5), matrix=sp.csr_matrix(dense),
                               terms=list("abcd"), idf=np.ones(4), version={}, counters={})
    manifest = json.loads((folder / "manifest.json").read_text())
    weights = np.array([0.5, -1, 2, 3], np.float32)
    for block in (1, 2, 1 << 21):
        index_files.BLOCK, saved = block, index_files.BLOCK
        try:
            scores = index_files.row_scores(folder, manifest, weights)
            rows = index_files.read_rows(folder, manifest, [0, 2, 4])
        finally:
            index_files.BLOCK = saved
        assert np.allclose(scores, dense @ weights), block  # these weights are codes exactly
        assert np.array_equal(rows.toarray(), dense[[0, 2, 4]]), block
