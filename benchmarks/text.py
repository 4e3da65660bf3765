"""Text work on long and hostile input, each against a baseline measured in the same run.

The unit tests check what these functions return; how fast they are belongs here, as ratios,
so a loaded machine slows both sides alike instead of failing a test.

    python -m benchmarks.text
"""

from __future__ import annotations

import re

from benchmarks.measure import timed
from catalog.searching.acronyms import definitions
from catalog.searching.highlight import _unicode_spans, spans, terms_of
from catalog.searching.query import parse

# A long abstract: the literal search of highlight.spans against the general pattern (character
# classes for é, ², ...) that tries every position of the text.
ABSTRACT = ("We present a method that improves the results of prior work on several benchmarks. " * 6
            + "We study sparse autoencoders for language models, with temporal structure in neurons. "
            + "Experiments on three datasets show consistent gains over strong baselines. " * 6)
MARKED = 'sparse autoencoder temporal "language models" neurons'

# Two megabytes built to make a backtracking pattern quadratic: unclosed and nested parentheses
# and a million-letter word. One pass of a plain regex over it is the baseline.
HOSTILE = ("Sparse Autoencoders (SAEs) and (i) ((( words (2024) " * 20_000) + "x" * 1_000_000 + "(" * 50_000


def best(work, repeats: int) -> float:
    return min(timed(work) for _ in range(repeats))


def measure(repeats: int = 7) -> dict[str, tuple[float, float]]:
    """name -> (seconds, seconds of its baseline), each the best of `repeats`."""
    terms = terms_of(parse(MARKED))
    twenty = lambda f: (lambda: [f(ABSTRACT, terms) for _ in range(20)])  # noqa: E731
    return {
        "snippet marking, a long abstract x20 (against the general pattern)":
            (best(twenty(spans), repeats), best(twenty(_unicode_spans), repeats)),
        "acronym definitions, 2 MB of hostile text (against one regex pass)":
            (best(lambda: definitions(HOSTILE), max(1, repeats // 3)),
             best(lambda: re.findall(r"\w+|\(", HOSTILE), max(1, repeats // 3))),
    }


def report(repeats: int = 7) -> list[str]:
    lines = ["### Text on long and hostile input (best of runs, against a baseline in the same run)", "",
             "| work | catalog | baseline | ratio |", "| --- | --- | --- | --- |"]
    for name, (took, baseline) in measure(repeats).items():
        lines.append(f"| {name} | {took * 1000:.1f} ms | {baseline * 1000:.1f} ms | {took / baseline:.2f}x |")
    return lines + [""]


if __name__ == "__main__":
    print("\n".join(report()))
