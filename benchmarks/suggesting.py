""""Did you mean" suggestions (catalog/suggest.py): how long `Catalog.suggest` takes for typed
typos, with the index's word list read from the index (the first time after a change), from
the cache file (each new process), and from memory (the TUI, every later time).

    python -m benchmarks.suggesting CATALOG.db
"""

from __future__ import annotations

import sys
from pathlib import Path

from benchmarks.measure import ms, percentiles, timed

TYPOS = ["interpretabilty", "atention sink", "diffusoin", "tranformer", "langauge models",
         "sparse atuoencoder"]
WORDS = ["attention sink", "language models"]  # found words: the check alone


def measure(db: Path, repeats: int = 10) -> dict[str, list[float]]:
    import tempfile

    from catalog.library import Catalog

    with tempfile.TemporaryDirectory() as cache:
        import os

        os.environ["XDG_CACHE_HOME"] = cache  # a cold cache of our own
        catalog = Catalog.open(db)
        catalog.suggest("warmup")  # rapidfuzz imported, SQLite pages cached
        times: dict[str, list[float]] = {"words the index holds (no suggestion needed)": [],
                                         "typo, word list read from the index": [],
                                         "typo, word list from the cache file (a new process)": [],
                                         "typo, word list in memory (the TUI)": []}
        for _ in range(max(1, repeats // 5)):
            for path in Path(cache).rglob("vocabulary.tsv"):
                path.unlink()
            catalog._words = None
            times["typo, word list read from the index"].append(timed(lambda: catalog.suggest(TYPOS[0])))
        for typo in TYPOS * max(1, repeats // len(TYPOS)):
            catalog._words = None
            times["typo, word list from the cache file (a new process)"].append(timed(lambda: catalog.suggest(typo)))
            times["typo, word list in memory (the TUI)"].append(timed(lambda: catalog.suggest(typo)))
        for word in WORDS * max(1, repeats // len(WORDS)):
            times["words the index holds (no suggestion needed)"].append(timed(lambda: catalog.suggest(word)))
        sample = {typo: [s.alternatives[0] for s in catalog.suggest(typo)] for typo in TYPOS}
        words = len(catalog._words.counts)
        catalog.close()
    return {"times": times, "sample": sample, "words": words}


def report(db: Path, repeats: int = 10) -> list[str]:
    result = measure(db, repeats)
    lines = [f"### Did you mean: `Catalog.suggest` ({result['words']:,} words of letters in the list)", "",
             "| | median | p95 |", "| --- | --- | --- |"]
    for label, samples in result["times"].items():
        median, p95 = percentiles(samples)
        lines.append(f"| {label} | {ms(median)} | {ms(p95)} |")
    shown = ", ".join(f"`{t}` → {' '.join(s) or '(none)'}" for t, s in result["sample"].items())
    return lines + ["", f"Suggested: {shown}.", ""]


if __name__ == "__main__":
    print("\n".join(report(Path(sys.argv[1]))))
