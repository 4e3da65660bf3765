"""Did you mean: the index's words closest to a query word that finds (almost) nothing.

`interpretabilty`, `atention sink`, `diffusoin` find nothing; the closest words of the index
(by optimal string alignment distance, which counts a swap of two letters as one edit, via
rapidfuzz) that many more papers hold are suggested instead. The word list is read from the
index once and cached, in memory and in the catalog's cache folder, until the index changes.
rapidfuzz is imported only when a word is rare enough to need suggestions.
"""

from __future__ import annotations

import re
from pathlib import Path

from catalog.searching.connecting import optional
from catalog.searching.highlight import fold
from catalog.searching.query import Query, Text
from catalog.results import Suggestion
from catalog.text.cjk import has_cjk

RARE = 2  # a word in at most this many papers may be a typo
MIN_LENGTH = 4  # shorter words are too close to too many others
GAIN = 10  # an alternative must be in at least GAIN times as many papers
SHOWN = 3  # alternatives per word
_WORD = re.compile(r"\w+")


def max_edits(word: str) -> int:
    """Edits allowed between an alternative (the word meant) and a typo of it: 1 up to 7
    letters, then 2 (more finds unrelated words as often as the one meant)."""
    return 1 if len(word) < 8 else 2


def words_of(query: Query, completing: bool = False) -> list[tuple[str, str]]:
    """(as typed, folded as indexed) for each word the query looks for that may be a typo: not
    negated, not a prefix, not `=word`, no digits, not CJK, at least MIN_LENGTH letters, not a
    connecting word the search does not require (`toward` in `graphs toward neural`: the search
    finds the papers on graphs and neural nets; rewriting it to `towards` changes nothing).
    `completing`: the query's last word is a prefix only because it is still being typed: it
    is checked too."""
    out: dict[str, str] = {}
    last = _last_option(query) if completing else None
    unneeded = optional(query.clauses)
    for place, clause in enumerate(query.clauses):
        if clause.negated or place in unneeded:
            continue
        for option in clause.options:
            if not isinstance(option, Text) or option.exact or (option.prefix and option is not last):
                continue  # `=word`: that form, as typed, on purpose
            if has_cjk(option.text):
                continue
            for word in _WORD.findall(option.text):
                if len(word) >= MIN_LENGTH and word.isalpha():
                    out.setdefault(word, fold(word))
    return list(out.items())


def _last_option(query: Query):
    return query.clauses[-1].options[-1] if query.clauses else None


class WordList:
    """The index's words, with how many papers hold each, in buckets by first letter: a typo
    is compared with the words that start as it does (spelling errors rarely change the first
    letter), and only that bucket is read from the cache folder."""

    FORMAT = "catalog-vocabulary 2"

    def __init__(self, stamp: str, buckets: dict[str, dict[str, int]] | None = None,
                 folder: Path | None = None):
        self.stamp = stamp
        self.folder = folder  # where buckets not in memory yet are read from
        self._buckets = buckets if buckets is not None else {}

    @classmethod
    def build(cls, stamp: str, pairs) -> "WordList":
        """From the index's words and their papers (the store's WordCounts): only words of letters (numbers and ids are not typos
        worth fixing), of 3 letters or more."""
        buckets: dict[str, dict[str, int]] = {}
        for word, papers in pairs:
            if len(word) >= 3 and word.isalpha():
                buckets.setdefault(word[0], {})[word] = papers
        return cls(stamp, buckets)

    def bucket(self, letter: str) -> dict[str, int]:
        """The words starting with `letter` (read from the folder the first time)."""
        found = self._buckets.get(letter)
        if found is None:
            found = self._read(letter) if self.folder is not None else {}
            self._buckets[letter] = found
        return found

    def _read(self, letter: str) -> dict[str, int]:
        try:
            with (self.folder / f"{ord(letter):x}.tsv").open(encoding="utf-8") as f:
                pairs = (line.rstrip("\n").partition("\t") for line in f)
                return {w: int(n) for w, _, n in pairs if n}
        except (OSError, ValueError, UnicodeDecodeError):
            return {}

    def save(self, folder: Path) -> None:
        """One file per first letter, then the stamp, each written beside and renamed: a
        reader that finds this stamp finds these words. Failing to write (a read-only cache
        folder) only costs the next process the rebuild."""
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for letter, words in self._buckets.items():
                _write(folder / f"{ord(letter):x}.tsv", "".join(f"{w}\t{n}\n" for w, n in words.items()))
            _write(folder / "stamp", f"{self.FORMAT}\t{self.stamp}\n")
        except OSError:
            pass

    @classmethod
    def load(cls, folder: Path, stamp: str) -> "WordList | None":
        """The list saved in `folder` if it was made from the index as it is now (`stamp`);
        its buckets are read when first needed."""
        try:
            saved = (folder / "stamp").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return cls(stamp, folder=folder) if saved == f"{cls.FORMAT}\t{stamp}\n" else None


def _write(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def closest(word: str, papers: int, words: WordList) -> tuple[str, ...]:
    """The words of `words` (those with `word`'s first letter) within their max_edits of `word` that
    at least GAIN times as many papers hold (`papers`: how many hold `word`), the most used
    first (a typo is likelier of a common word than of a rare one), then the nearest."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    # Edits allowed by the length of the word meant: `dificut` is two from `difficult`.
    edits = 2 if len(word) + 2 >= 8 else 1
    wanted = max(1, GAIN * papers)
    bucket = words.bucket(word[0])
    choices = [w for w, n in bucket.items() if abs(len(w) - len(word)) <= edits and n >= wanted and w != word]
    found = process.extract(word, choices, scorer=OSA.distance, score_cutoff=edits, limit=None)
    ranked = sorted((distance, -bucket[w], w) for w, distance, _ in found if distance <= max_edits(w))
    return tuple(w for _, _, w in ranked[:SHOWN])


def corrected(query: str, suggestions: list[Suggestion]) -> str:
    """`query` with each suggested word replaced by its first alternative."""
    for s in suggestions:
        query = re.sub(rf"(?<!\w){re.escape(s.word)}(?!\w)", lambda _, new=s.alternatives[0]: new, query)
    if query.count('"') % 2:  # a phrase left open runs to the end: say so with its quote
        query = query.rstrip() + '"'
    return query
