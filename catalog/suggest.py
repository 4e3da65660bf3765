"""Did you mean: the index's words closest to a query word that finds (almost) nothing.

`interpretabilty`, `atention sink`, `diffusoin` find nothing; the closest words of the index
(by optimal string alignment distance, which counts a swap of two letters as one edit, via
rapidfuzz) that many more papers hold are suggested instead. The word list is read from the
index once and cached, in memory and in the catalog's cache folder, until the index changes.
rapidfuzz is imported only when a word is rare enough to need suggestions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from catalog.highlight import fold
from catalog.query import Query, Text
from catalog.results import Suggestion
from catalog.text.cjk import has_cjk

RARE = 2  # a word in at most this many papers may be a typo
MIN_LENGTH = 4  # shorter words are too close to too many others
GAIN = 10  # an alternative must be in at least GAIN times as many papers
SHOWN = 3  # alternatives per word
_WORD = re.compile(r"\w+")


def max_edits(word: str) -> int:
    """Edits allowed between a word and its alternatives: 1 up to 7 letters, 2 up to 11, then 3."""
    return 1 if len(word) < 8 else 2 if len(word) < 12 else 3


def words_of(query: Query) -> list[tuple[str, str]]:
    """(as typed, folded as indexed) for each word the query looks for that may be a typo: not
    negated, not a prefix, no digits, not CJK, at least MIN_LENGTH letters."""
    out: dict[str, str] = {}
    for clause in query.clauses:
        if clause.negated:
            continue
        for option in clause.options:
            if not isinstance(option, Text) or option.prefix or has_cjk(option.text):
                continue
            for word in _WORD.findall(option.text):
                if len(word) >= MIN_LENGTH and word.isalpha():
                    out.setdefault(word, fold(word))
    return list(out.items())


class WordList:
    """The index's words, grouped by length, with how many papers hold each."""

    FORMAT = "catalog-vocabulary 1"

    def __init__(self, stamp: str, counts: dict[str, int]):
        self.stamp = stamp
        self.counts = counts
        self.by_length: dict[int, list[str]] = {}
        for word in counts:
            self.by_length.setdefault(len(word), []).append(word)

    @classmethod
    def build(cls, stamp: str, pairs) -> "WordList":
        """From (word, papers) pairs: only words of letters (numbers and ids are not typos
        worth fixing), of 3 letters or more."""
        return cls(stamp, {w: n for w, n in pairs if len(w) >= 3 and w.isalpha()})

    def save(self, path: Path) -> None:
        """Written beside and renamed: a reader never sees half a file. Failing to write (a
        read-only cache folder) only costs the next process the rebuild."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(".partial")
            with partial.open("w", encoding="utf-8") as f:
                f.write(f"{self.FORMAT}\t{self.stamp}\n")
                f.writelines(f"{w}\t{n}\n" for w, n in self.counts.items())
            partial.replace(path)
        except OSError:
            pass

    @classmethod
    def load(cls, path: Path, stamp: str) -> "WordList | None":
        """The list saved at `path` if it was made from the index as it is now (`stamp`)."""
        try:
            with path.open(encoding="utf-8") as f:
                if f.readline().rstrip("\n") != f"{cls.FORMAT}\t{stamp}":
                    return None
                pairs = (line.rstrip("\n").partition("\t") for line in f)
                return cls(stamp, {w: int(n) for w, _, n in pairs if n})
        except (OSError, ValueError, UnicodeDecodeError):
            return None


def closest(word: str, papers: int, words: WordList) -> tuple[str, ...]:
    """The words of `words` within max_edits of `word` that at least GAIN times as many papers
    hold (`papers`: how many hold `word`), nearest first, then the most used."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    edits = max_edits(word)
    choices = [w for n in range(len(word) - edits, len(word) + edits + 1) for w in words.by_length.get(n, ())]
    found = process.extract(word, choices, scorer=OSA.distance, score_cutoff=edits, limit=None)
    wanted = max(1, GAIN * papers)
    ranked = sorted((distance, -words.counts[w], w) for w, distance, _ in found
                    if w != word and words.counts[w] >= wanted)
    return tuple(w for _, _, w in ranked[:SHOWN])


def corrected(query: str, suggestions: list[Suggestion]) -> str:
    """`query` with each suggested word replaced by its first alternative."""
    for s in suggestions:
        query = re.sub(rf"(?<!\w){re.escape(s.word)}(?!\w)", s.alternatives[0], query)
    return query
