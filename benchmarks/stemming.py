"""Which stemmer, and which matching: measured on the judged queries.

    python -m benchmarks.stemming                # ranking on the seeds, stems of tricky words
    python -m benchmarks.stemming --size 100000  # and index size and build time at that size

Throwaway FTS5 indexes in a temporary folder, over the seeds as catalog stores them (headline,
rendered abstract, ASCII math), weighted as catalog weighs them (headline 6, the rest 1):

- unicode61: today's tokenizer, exact word forms;
- porter: FTS5's `porter unicode61 remove_diacritics 2` (the original Porter stemmer);
- snowball: Snowball English (PyStemmer) applied in Python when indexing and querying, into a
  column with today's tokenizer.

Each is tried with all-words matching (today), with "all words first, then papers matching
any word, by bm25", and with "all words first, then papers matching the most words, by bm25";
the stemmed ones also with exact-form boosting: the unstemmed index's bm25 added to the
stemmed one's, so a paper holding the typed form outranks one holding only another form.
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from benchmarks import relevance

TOKEN = re.compile(r"\w+")
WEIGHTS = (6.0, 1.0)  # headline, body (abstract text and search_extra)
TOKENIZERS = {
    "unicode61": "unicode61 remove_diacritics 2",
    "porter": "porter unicode61 remove_diacritics 2",
    "snowball": "unicode61 remove_diacritics 2",  # over text stemmed in Python
    "snowball+": "unicode61 remove_diacritics 2",  # the same, acronym plurals made singular first
}
TRICKY = ["LLM", "LLMs", "SAEs", "VLMs", "MoEs", "autoencoder", "autoencoders", "prune", "pruning",
          "pruned", "hallucinate", "hallucination", "hallucinating", "memorize", "memorization",
          "neuron", "neurons", "steer", "steering", "cluster", "clustering", "unlearn", "unlearning",
          "watermark", "watermarking", "explanation", "explainer", "explainability", "interpretability",
          "interpretable", "generalization", "generalisation", "general", "diffusion", "attention",
          "universal", "university", "organization", "organ", "policy", "police", "news", "new",
          "analysis", "analyses", "bias", "biases", "modeling", "modelling", "normalization", "norm",
          "Transformers", "transformer"]


# An acronym's plural (LLMs, VLMs, CNNs): Snowball keeps the s where no vowel precedes it.
ACRONYM_PLURAL = re.compile(r"\b([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)s\b")


def _snowball(acronym_plurals: bool = False):
    import Stemmer

    stem = Stemmer.Stemmer("english").stemWords
    if acronym_plurals:
        return lambda text: " ".join(stem(TOKEN.findall(ACRONYM_PLURAL.sub(r"\1", text).lower())))
    return lambda text: " ".join(stem(TOKEN.findall(text.lower())))


def build(db: Path, tokenizer: str, rows: Iterable[tuple[int, str, str]],
          prepare: Callable[[str], str] | None = None) -> None:
    conn = sqlite3.connect(db)
    conn.execute(f"CREATE VIRTUAL TABLE fts USING fts5(headline, body, tokenize='{tokenizer}')")
    if prepare:
        rows = ((i, prepare(h), prepare(b)) for i, h, b in rows)
    conn.executemany("INSERT INTO fts(rowid, headline, body) VALUES (?, ?, ?)", rows)
    conn.commit()
    conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


class Index:
    """One FTS5 index; `scores` maps rowid -> bm25 (higher is better) for a MATCH."""

    def __init__(self, db: Path, stem: Callable[[str], str] | None = None):
        self.conn = sqlite3.connect(db)
        self.stem = stem or str.lower

    def words(self, query: str) -> list[str]:
        return [w for w in (self.stem(t) for t in TOKEN.findall(query)) if w]

    def scores(self, words: list[str], op: str) -> dict[int, float]:
        if not words:
            return {}
        match = f" {op} ".join('"' + w.replace('"', '""') + '"' for w in words)
        return dict(self.conn.execute(
            f"SELECT rowid, -bm25(fts, {WEIGHTS[0]}, {WEIGHTS[1]}) FROM fts WHERE fts MATCH ?", (match,)))


def engine(index: Index, keys: dict[int, str], tail: str | None, exact: Index | None = None):
    """A search function: all words first; then (tail) 'any' word by bm25 or 'most' words."""

    def search(query: str) -> list[str]:
        words = index.words(query)
        typed = exact.words(query) if exact else []

        def ranked(ids: dict[int, float]) -> list[int]:
            boost = exact.scores(typed, "OR") if exact else {}
            return sorted(ids, key=lambda i: -(ids[i] + boost.get(i, 0.0)))

        first = ranked(index.scores(words, "AND"))
        if tail is None or len(first) >= relevance.K:
            return [keys[i] for i in first]
        rest = {i: s for i, s in index.scores(words, "OR").items() if i not in set(first)}
        order = ranked(rest)
        if tail == "most":
            per_word = [set(index.scores([w], "OR")) for w in set(words)]
            hits = {i: sum(i in found for found in per_word) for i in rest}
            order.sort(key=lambda i: -hits[i])  # stable: bm25 order within a count
        return [keys[i] for i in first + order]

    return search


def seed_rows(work: Path) -> tuple[list[tuple[int, str, str]], dict[int, str], Path]:
    from catalog.library import Catalog

    db = work / "seeds.db"
    catalog = Catalog.open(db)
    catalog.import_paths([Path(__file__).resolve().parent.parent / "seeds"])
    catalog.close()
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT id, key, headline, abstract_text || ' ' || search_extra FROM paper").fetchall()
    conn.close()
    return [(i, h, b) for i, _, h, b in rows], {i: k for i, k, _, _ in rows}, db


def ranking_report(work: Path) -> list[str]:
    stemmers = {"snowball": _snowball(), "snowball+": _snowball(acronym_plurals=True)}
    rows, keys, catalog_db = seed_rows(work)
    indexes = {}
    for name, tokenizer in TOKENIZERS.items():
        build(work / f"{name}.db", tokenizer, rows, stemmers.get(name))
        indexes[name] = Index(work / f"{name}.db", stemmers.get(name))
    exact = indexes["unicode61"]
    engines: dict[str, Callable[[str], list[str]]] = {}
    for name, index in indexes.items():
        engines[f"{name}, all words"] = engine(index, keys, None)
        engines[f"{name}, all then any"] = engine(index, keys, "any")
        engines[f"{name}, all then most"] = engine(index, keys, "most")
        if name != "unicode61":
            engines[f"{name}, all then any, exact boost"] = engine(index, keys, "any", exact)
            engines[f"{name}, all then most, exact boost"] = engine(index, keys, "most", exact)
    from benchmarks.bm25 import Baseline, documents

    engines["reference: Tantivy en_stem, any word"] = Baseline(documents(catalog_db)).search
    judged = relevance.load()
    overall, kinds, _ = relevance.compare(engines, judged)
    lines = ["### Ranking by stemmer and matching (judged queries on the seeds)", "",
             *relevance.table(overall), "", "By kind of query (recall@10 / nDCG@10):", "",
             "| variant | " + " | ".join(kinds) + " |", "| --- |" + " --- |" * len(kinds)]
    for name in engines:
        lines.append(f"| {name} | " + " | ".join(
            f"{kinds[k][name].recall:.2f} / {kinds[k][name].ndcg:.2f}" for k in kinds) + " |")
    return lines + [""] + stems_report(work, stemmers["snowball"])


def stems_report(work: Path, snowball: Callable[[str], str]) -> list[str]:
    """What each stemmer makes of words researchers type (porter's stems read from fts5vocab)."""
    db = work / "words.db"
    db.unlink(missing_ok=True)
    conn = sqlite3.connect(db)
    conn.execute(f"CREATE VIRTUAL TABLE w USING fts5(word, tokenize='{TOKENIZERS['porter']}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(w, 'instance')")
    conn.executemany("INSERT INTO w(rowid, word) VALUES (?, ?)", enumerate(TRICKY, 1))
    porter = dict(conn.execute("SELECT doc, term FROM v"))
    conn.close()
    lines = ["### Stems of words researchers type", "", "| word | porter | snowball |", "| --- | --- | --- |"]
    lines += [f"| {w} | {porter[i]} | {snowball(w)} |" for i, w in enumerate(TRICKY, 1)]
    return lines + [""]


def size_report(size: int, work: Path) -> list[str]:
    """Index size and build time at `size` generated abstracts, per tokenizer (and both columns)."""
    from benchmarks import corpus

    rows = [(i, "", text) for i, (_, _, text) in enumerate(corpus.abstracts(size), 1)]
    snowball = _snowball()
    lines = [f"### Index size and build time, {size:,} generated abstracts", "",
             "| index | build | of which stemming in Python | size |", "| --- | --- | --- | --- |"]
    start = time.perf_counter()
    stemmed = [(i, h, snowball(b)) for i, h, b in rows]
    stemming = time.perf_counter() - start
    variants = [("unicode61 (today)", "unicode61", rows, 0.0), ("porter", "porter", rows, 0.0),
                ("snowball (pre-stemmed column)", "snowball", stemmed, stemming),
                ("snowball + exact column", "snowball", [(i, b0, b) for (i, _, b0), (_, _, b) in zip(rows, stemmed)],
                 stemming)]
    for label, tokenizer, data, extra in variants:
        db = work / f"size-{tokenizer}-{len(lines)}.db"
        db.unlink(missing_ok=True)
        start = time.perf_counter()
        build(db, TOKENIZERS[tokenizer], data)
        took = time.perf_counter() - start + extra
        lines.append(f"| {label} | {took:.1f} s | {extra:.1f} s | {db.stat().st_size / 1e6:.0f} MB |")
        db.unlink()
    return lines + ["", "(porter with an exact column needs a second, unicode61 index: the two rows above added.)", ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=0, help="also measure index size and build time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        lines = ranking_report(Path(tmp))
        if args.size:
            lines += size_report(args.size, Path(tmp))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
