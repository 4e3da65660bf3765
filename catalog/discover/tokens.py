"""How text becomes terms, in pure Python (no scikit-learn, no numpy).

The rules are scikit-learn's word analyzer with English stop words and unigrams + bigrams:
lowercase, tokens of two or more word characters, stop words removed, then bigrams of the
words left (so "rate of reduction" gives "rate reduction"). Two additions:

- tokens made of digits only (years, sizes) and pieces of web addresses (WEB_WORDS) are
  dropped: they name nothing a reader would call a topic or a reason;
- plurals are folded to the singular (`fold`: "SAEs" and "SAE", "autoencoders" and
  "autoencoder" are one term). On the seeds this lifts the SAE papers' share of each
  other's nearest neighbours by about a fifth; the terms shown stay readable words, which
  a full stemmer's ("autoencod") would not.

`with_long_forms` (applied by build.py before the terms are counted) spells out each use
of an acronym the catalog's abstracts define: a paper that says "SAE" twenty times after
"Sparse Autoencoders (SAEs)" weighs "sparse autoencoder" as one that writes it out does
(docs/benchmarks.md, "Same-topic neighbours": on the seeds 0.58 -> 0.63).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import filterfalse, repeat


from catalog.discover._stopwords import ENGLISH_STOP_WORDS

# `\w\w+` finds the same tokens as scikit-learn's `\b\w\w+\b`: a greedy match starts and ends
# at the edges of a run of word characters, and skips the two `\b` tests.
_TOKEN = re.compile(r"\w\w+")
STOP_WORDS = ENGLISH_STOP_WORDS
# Pieces of web addresses (abstracts end with "code at https://github.com/..."): they would
# make "github com" a topic.
WEB_WORDS = frozenset("http https www com org net io html github gitlab url".split())
# ASCII text (about 80% of abstracts) takes a path faster than the regular expression:
# every byte that is not a word character becomes a space, then split; a single character
# is dropped with the stop words. The same tokens (a test checks).
_ASCII_SPACES = bytes(b if chr(b).isalnum() or b == ord("_") or b >= 128 else 32 for b in range(256))
_DROPPED_WORDS = STOP_WORDS | WEB_WORDS
_DROP = _DROPPED_WORDS | frozenset(chr(b) for b in range(128) if chr(b).isalnum() or b == ord("_"))
_is_stop = _DROPPED_WORDS.__contains__
_is_dropped = _DROP.__contains__
_pair = "{} {}".format


def words(text: str) -> list[str]:
    """The unigrams of `text`, in order: lowercased, without stop words and digit-only tokens.
    (Filters and maps run in C: this is most of the cost of building features.)"""
    text = text.lower()
    if text.isascii():
        tokens = filterfalse(_is_dropped, text.encode().translate(_ASCII_SPACES).decode().split())
    else:
        tokens = filterfalse(_is_stop, _TOKEN.findall(text))
    return list(filterfalse(str.isdigit, tokens))


# Words ending in s that are not plurals (those ending in ss, us, is, ics, ias are kept anyway).
_NOT_PLURAL = frozenset("series species means news lens gas".split())


def fold(word: str) -> str:
    """A plural's singular, by suffix (an S-stemmer, after Harman 1991): "studies" -> "study",
    "losses" -> "loss", "approaches" -> "approach", "models" -> "model"."""
    if (len(word) <= 3 or word[-1] != "s" or word in _NOT_PLURAL
            or word.endswith(("ss", "us", "is", "ics", "ias"))):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1]


def folded_words(text: str) -> list[str]:
    return list(map(fold, words(text)))


def bigrams(words: list[str]) -> list[str]:
    return list(map(_pair, words, words[1:]))


def terms(text: str) -> list[str]:
    """Unigrams then bigrams of `text`, plurals folded, with repeats (a term's count is its
    term frequency). features.py gets the same terms faster, folding each distinct word once."""
    w = folded_words(text)
    return w + bigrams(w)


def spellings(acronyms: Mapping[str, str]) -> dict[str, str]:
    """Each short form as a word may spell it ("SAE", "SAEs") -> its long form."""
    out = {short + "s": long for short, long in acronyms.items()}
    out.update(acronyms)
    return out


def with_long_forms(text: str, spelled: Mapping[str, str]) -> str:
    """`text` followed by the long form of each use of an acronym (`spelled`: `spellings` of
    the catalog's); the words are counted in C (a Python loop over them would cost more than
    the terms themselves)."""
    words = list(map(str.strip, text.split(), repeat(_PUNCT)))
    used = spelled.keys() & set(words)
    if not used:
        return text
    return text + "\n" + " . ".join(spelled[w] for w in sorted(used) for _ in range(words.count(w)))


_PUNCT = ".,;:!?()[]{}\"'“”‘’"


def distinct_phrases(ranked: list[str], n: int) -> list[str]:
    """The first `n` of `ranked` (best first) that say something new. A term whose words all
    appear in terms already taken is skipped ("sparse" after "sparse autoencoders"); a phrase
    replaces the single words of it taken before ("sparse" then "sparse autoencoders")."""
    taken: list[str] = []
    for term in ranked:
        parts = term.split()
        if {w for t in taken for w in t.split()}.issuperset(parts):
            continue
        taken = [t for t in taken if " " in t or t not in parts] + [term]
        if len(taken) == n:
            break
    return taken
