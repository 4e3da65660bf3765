"""What spelling out acronyms costs a discovery build: `features.fit` over generated abstracts
(benchmarks/corpus.py) as they are and with `tokens.with_long_forms`, alternated in one run.

    python -m benchmarks.similar_build --size 100000 [--repeats 2]

The acronyms are learned from the first 5,000 abstracts, as an import would have learned them
(outside the timing: the build reads them from the store).
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000, help="abstracts")
    parser.add_argument("--repeats", type=int, default=2, help="rounds, each timing both")
    args = parser.parse_args()

    from benchmarks.corpus import abstracts
    from catalog.discover import features
    from catalog.discover.tokens import spellings, with_long_forms
    from catalog.searching.acronyms import learn

    texts = [abstract for _, _, abstract in abstracts(args.size)]
    spelled = spellings(learn(texts[:5_000]))
    times: dict[str, list[float]] = {"plain": [], "with long forms": []}
    for _ in range(args.repeats):
        for name, series in times.items():
            start = time.perf_counter()
            features.fit(texts if name == "plain" else (with_long_forms(t, spelled) for t in texts))
            series.append(time.perf_counter() - start)
    for name, series in times.items():
        print(f"{name}: " + ", ".join(f"{s:.1f} s" for s in series))


if __name__ == "__main__":
    main()
