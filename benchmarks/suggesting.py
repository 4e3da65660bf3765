""""Did you mean" suggestions (catalog/searching/suggest.py): how long `catalog.words.suggest` takes for typed
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


def measure(db: Path, repeats: int = 10) -> dict:
    """Timings in a cache folder of its own, cold at first."""
    import os
    import tempfile

    before = os.environ.get("XDG_CACHE_HOME")
    try:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["XDG_CACHE_HOME"] = cache  # a cold cache of our own
            return _measure(db, repeats, Path(cache))
    finally:
        if before is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = before


def _measure(db: Path, repeats: int, cache: Path) -> dict:
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    catalog.words.suggest("warmup")  # rapidfuzz imported, SQLite pages cached
    times: dict[str, list[float]] = {"words the index holds (no suggestion needed)": [],
                                     "typo, word list read from the index": [],
                                     "typo, word list from the cache file (a new process)": [],
                                     "typo, word list in memory (the TUI)": []}
    for _ in range(max(1, repeats // 5)):
        for path in cache.rglob("vocabulary/stamp"):
            path.unlink()
        catalog.words._words = None
        times["typo, word list read from the index"].append(timed(lambda: catalog.words.suggest(TYPOS[0])))
    for typo in TYPOS * max(1, repeats // len(TYPOS)):
        catalog.words._words = None
        times["typo, word list from the cache file (a new process)"].append(timed(lambda: catalog.words.suggest(typo)))
        times["typo, word list in memory (the TUI)"].append(timed(lambda: catalog.words.suggest(typo)))
    for word in WORDS * max(1, repeats // len(WORDS)):
        times["words the index holds (no suggestion needed)"].append(timed(lambda: catalog.words.suggest(word)))
    sample = {typo: [s.alternatives[0] for s in catalog.words.suggest(typo)] for typo in TYPOS}
    words = sum(len(catalog.words._words.bucket(chr(c))) for c in range(ord("a"), ord("z") + 1))
    catalog.close()
    return {"times": times, "sample": sample, "words": words}


def large_list(size: int = 150_000, repeats: int = 10) -> dict[str, list[float]]:
    """The generated corpus has few distinct words (its sentences repeat); a real catalog of
    100k papers has 100k-200k. The same steps on a word list of `size` invented words (lengths
    as English words have them) plus the typos' real words: loading it from the cache file,
    and finding the closest words."""
    import random
    import tempfile

    from catalog.searching import suggest

    rng = random.Random(5)
    lengths = [4, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 11, 12, 13, 15]
    counts = {"".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.choice(lengths))):
              rng.randint(1, 50) for _ in range(size)}
    counts.update({w: 500 for w in ("interpretability", "attention", "diffusion", "transformer",
                                    "language", "autoencoder")})
    words = suggest.WordList.build("stamp", counts.items())
    times: dict[str, list[float]] = {"load and compare (the cache file, a new process)": [],
                                     "compare (in memory, the TUI)": []}
    typos = [t.split()[-1] for t in TYPOS] * max(1, repeats // len(TYPOS))
    with tempfile.TemporaryDirectory() as folder:
        words.save(Path(folder))
        for typo in typos:
            fresh = suggest.WordList.load(Path(folder), "stamp")
            times["load and compare (the cache file, a new process)"].append(
                timed(lambda: suggest.closest(typo, 0, fresh)))
            times["compare (in memory, the TUI)"].append(timed(lambda: suggest.closest(typo, 0, fresh)))
    return times


def report(db: Path, repeats: int = 10) -> list[str]:
    result = measure(db, repeats)
    lines = [f"### Did you mean: `catalog.words.suggest` ({result['words']:,} words of letters in the list)", "",
             "| | median | p95 |", "| --- | --- | --- |"]
    for label, samples in result["times"].items():
        median, p95 = percentiles(samples)
        lines.append(f"| {label} | {ms(median)} | {ms(p95)} |")
    shown = ", ".join(f"`{t}` → {' '.join(s) or '(none)'}" for t, s in result["sample"].items())
    words = result["words"]
    lines += ["", f"Suggested: {shown}.", "", "With a word list of 150,000 words (a real catalog's size):", "",
              "| | median | p95 |", "| --- | --- | --- |"]
    for label, samples in large_list(repeats=repeats).items():
        median, p95 = percentiles(samples)
        lines.append(f"| {label} | {ms(median)} | {ms(p95)} |")
    return lines + [""]


if __name__ == "__main__":
    print("\n".join(report(Path(sys.argv[1]))))
