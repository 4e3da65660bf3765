"""Pure parts of SQLite's ranked lists: bm25 as FTS5 computes it, the bounds that prove a page,
which words and prefixes get a list and how deep, and the keys lists are kept under. Nothing
here touches a database (tests/test_ranked_list_scoring.py).

A list's key is the exact tier's MATCH expression of its word (`("model")`), prefix
(`("mod"*)`), AND (`("sparse") AND ("attention")`) or phrase (`("language models")`): a
word's key holds no space, a list of several words' always does.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate

from catalog.searching.query import Text
from catalog.store.compiler import CompiledQuery
from catalog.store.fts5 import fts_phrase

LIST_SIZE = 1000  # papers kept per word: pages, and room for filters to reject most of them
# Words and prefixes in at least DEEP_SHARE of the papers keep their best DEEP_LIST_SIZE: a filter
# passing a share s of a word's papers needs about 50 / s of its best to fill a page (at 1M
# papers `attention venue:ICML year:2016..2020` passes 4.5% of `attention`'s 230,901: ~1,100),
# and such a word is the slowest to rank in full when the list is short. Only a filtered page of
# the word alone walks past LIST_SIZE; whatever reads a list for a bound (the AND proofs, the
# few-papers path, doctor) reads its first LIST_SIZE, the LIST_SIZE-th score its bound, as if
# the list were LIST_SIZE long: their cost does not grow. A share, not a count, so the rule is
# the same at any catalog size.
DEEP_SHARE, DEEP_LIST_SIZE = 0.10, 2000
# A deep list's papers past LIST_SIZE are walked for a filtered page only when, at the rate its
# first LIST_SIZE passed the filters, the whole list would hold at least this share of the page
# (a filter few papers pass goes to the few-papers path at once).
DEEPER_HOPE = 0.75
# Which words and prefixes get a list: those matching at least this many papers, where bm25
# over every match takes ~14 ms or more (0.7 us a match): with a filter's join on each match,
# what is not listed still ranks in about 20 ms at 100k. Prefixes count the papers of their
# words (an upper bound of the papers they match). A smaller catalog: SMALL_SHARE.
MIN_MATCHES = 20_000
# A smaller catalog keeps lists for what matches a large share of it: at 16,373 papers (a real
# library, jgrey4296/bibliography's main/) `the*` ranks 5,433 matches in 5 ms warm and 16-25 ms the
# first time (its doclists not yet read), 60-90 ms under load in the TUI, its slowest key; a
# list answers in about 1 ms. From SMALL_FLOOR matches on (below it ranking every match takes
# a few milliseconds), and never more than MIN_MATCHES: from 100,000 papers on, as before.
SMALL_SHARE, SMALL_FLOOR = 0.2, 3_000
# In a big catalog a match costs more to rank (its doclists and rows no longer stay in cache):
# at 1M papers `hessian`, in 24,572 papers, took 65-100 ms in full (3-4 us a match), so there a
# list is kept from this many papers on.
BIG_CATALOG, MIN_MATCHES_BIG = 400_000, 10_000
# Searches as you type reach prefixes from this many letters on (the TUI's
# catalog/tui/querytext.PREFIX_FROM): shorter ones are searched only when typed with `*`. An
# import ranks the lists typing reads first; in a catalog of more than SHORT_AT_IMPORT papers
# it leaves the one- and two-letter prefixes' (they match nearly every paper: at 1M papers 284
# lists, 803 s) to the background refresher, and up to it ranks them too before it returns, so
# a wide 50k or a 100k library is ready for `a*` when the import returns. They cost a third
# more of the import's CPU at any size (0.24-0.3 ms a paper at 100k and 200k): up to 200k,
# about a minute (docs/benchmarks.md, Short prefixes before the import returns).
TYPED_FROM = 3
SHORT_AT_IMPORT = 200_000
K1, B = 1.2, 0.75  # FTS5's bm25 constants (fts5_aux.c)
SLACK = 1e-9  # relative margin on a bound: it must never be below a true score


# --- bm25 as FTS5 computes it ----------------------------------------------------------------

def idf(papers: int, matches: int) -> float:
    """FTS5's bm25 IDF, as fts5_aux.c computes it (in C doubles, same order)."""
    value = math.log((papers - matches + 0.5) / (matches + 0.5))
    return 1e-6 if value <= 0.0 else value


def saturation(freq: float, length: int, avgdl: float) -> float:
    """bm25's term part of one paper: increasing in `freq`, decreasing in `length`."""
    return (freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * length / avgdl))


def bm25(weight: float, freq: float, length: int, avgdl: float) -> float:
    """FTS5's bm25() of a one-phrase query, bit for bit (fts5Bm25Function): `weight` the IDF."""
    return -1.0 * (0.0 + weight * saturation(freq, length, avgdl))


def and_score(terms: Sequence[float]) -> float:
    """FTS5's bm25 of an AND from its phrases' terms (each the negated score of the phrase's
    own query), added in the same order (fts5_aux.c)."""
    total = 0.0
    for term in terms:
        total += term
    return -1.0 * total


def frequency_of(score: float, weight: float, length: int, avgdl: float) -> float | None:
    """The term frequency a paper of this `length` must have to score `score` on a word of IDF
    `weight` (bm25 solved for the frequency, rounded to the whole number it counts); None when
    no frequency gives it. The caller checks that bm25 gives the score back bit for bit."""
    g = -score / weight
    if g >= K1 + 1.0:
        return None
    k = K1 * (1 - B + B * length / avgdl)
    return float(round(g * k / (K1 + 1.0 - g)))


def matches_from_scores(rows: Sequence[tuple[float, int | None]], papers: int, avgdl: float,
                        most_frequency: int = 4096) -> int | None:
    """How many papers a one-word (or one-prefix) query matches, told by its ranking's own
    scores: (score, paper length) of some of its best papers, `papers` and `avgdl` the index's.
    bm25's IDF is the same for every paper, and each paper's weighted frequency a whole number,
    so the IDF that makes the first paper's score of some frequency, solved for the matches,
    must give every score back bit for bit (the caller checks the rest of the list the same
    way). None when no such count does (an IDF of a key in half the papers or more is a floor
    that tells nothing; a length unknown)."""
    if not rows or any(length is None for _, length in rows) or papers < 2:
        return None
    first, length = rows[0]
    for freq in range(1, most_frequency + 1):
        weight = -first / saturation(freq, length, avgdl)  # bm25 = -(weight * saturation)
        if weight <= 1e-6:
            return None  # larger frequencies only lower it
        ratio = math.exp(weight)  # idf: log((papers - n + 0.5) / (n + 0.5)) = weight
        estimate = (papers + 0.5 - 0.5 * ratio) / (ratio + 1.0)
        for matches in {math.floor(estimate), math.ceil(estimate)}:
            if not 0 < matches < papers or bm25(idf(papers, matches), freq, length, avgdl) != first:
                continue
            exact = idf(papers, matches)
            if exact > 1e-6 and all(_scores_back(score, exact, size, avgdl) for score, size in rows):
                return matches
    return None


def _scores_back(score: float, weight: float, length: int, avgdl: float) -> bool:
    freq = frequency_of(score, weight, length, avgdl)
    return freq is not None and bm25(weight, freq, length, avgdl) == score


def rescored_bound(weight: float, last: float, avgdl_then: float, avgdl_now: float) -> float:
    """The best score a paper outside a list can reach now, when the list's last paper had the
    term part `last` (saturation) at the average length `avgdl_then`: a paper not listed
    ranked at or below it then; its term part can grow only through the average length (bm25
    is antitone in length/avgdl), and its IDF is every paper's (`weight`, now)."""
    return -(weight * last * max(1.0, avgdl_now / avgdl_then) * (1 + SLACK))


def ranked(scores: dict[int, float]) -> list[tuple[int, float]]:
    """(paper id, score) in ranking order: best (lowest) score first, then the id."""
    return sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))


# --- which words get lists, and how deep -----------------------------------------------------

def min_matches(papers: int) -> int:
    """How many papers a word or prefix must match to get a list, in a catalog this big."""
    if papers >= BIG_CATALOG:
        return MIN_MATCHES_BIG
    return min(MIN_MATCHES, max(SMALL_FLOOR, int(SMALL_SHARE * papers)))


def keeps_lists(papers: int) -> bool:
    """Whether a catalog of `papers` keeps any list: a word could match as many as one needs."""
    return papers >= min_matches(papers)


def list_depth(matches: int, papers: int) -> int:
    """How many papers a word's or prefix's list keeps: DEEP_LIST_SIZE for those in DEEP_SHARE
    of the papers or more, else LIST_SIZE."""
    return DEEP_LIST_SIZE if papers and matches >= DEEP_SHARE * papers else LIST_SIZE


def worth_deeper(found: int, need: int, listed: int, complete: bool) -> bool:
    """Whether to walk a deep list past its first LIST_SIZE papers for a filtered page: it holds
    every match (the walk is the answer), or at the rate its first LIST_SIZE passed the filters
    (`found` of the `need` the page needs) the whole list would come near filling the page."""
    return complete or found * listed >= DEEPER_HOPE * need * LIST_SIZE


def candidates(words: list[tuple[str, int]], at_least: int) -> list[tuple[str, int]]:
    """(list key, papers it matches at most) of the words and prefixes (of any length) that get
    a list, most papers first: those matching at least `at_least` papers. A prefix counts the
    papers of the words it starts (the whole word as a prefix too: `model*`).

    A prefix counts no more than the prefix one letter shorter, so only the prefixes of
    those that qualify are looked at, each summed over its run of the sorted words: adding
    every prefix of every word up took seconds for a large catalog's vocabulary."""
    out = [(key_of(term), n) for term, n in words if n >= at_least]
    ordered = sorted(words)
    terms = [term for term, _ in ordered]
    before = list(accumulate((n for _, n in ordered), initial=0))  # papers of the words before each
    parents = [("", 0, len(terms))]  # (prefix, its run of `terms`)
    while parents:
        children = []
        for parent, first, last in parents:
            size, i = len(parent), first
            while i < last:
                if len(terms[i]) == size:  # the parent is a word too: no longer prefix of it
                    i += 1
                    continue
                child = terms[i][:size + 1]
                end = bisect_left(terms, after_prefix(child), i, last)
                if before[end] - before[i] >= at_least:
                    out.append((key_of(child, prefix=True), before[end] - before[i]))
                    children.append((child, i, end))
                i = end
        parents = children
    return sorted(out, key=lambda kn: (-kn[1], kn[0]))


def typed(key: str) -> bool:
    """Whether searches as you type read this list: a word's, a prefix's of TYPED_FROM letters
    or more, or one of several words (what a search made)."""
    if of_several(key):
        return True
    found = term(key)
    if found is None:  # not plain ASCII: its length in letters is FTS5's to say
        return True
    word, prefix = found
    return not prefix or len(word) >= TYPED_FROM


def leaves_short_prefixes(papers: int) -> bool:
    """Whether an import into a catalog of `papers` leaves the one- and two-letter prefixes'
    lists to the background refresher (see SHORT_AT_IMPORT)."""
    return papers > SHORT_AT_IMPORT


def catalog_resized(seen: int, papers: int) -> bool:
    """Whether a catalog of `papers` has grown or shrunk by a quarter since its lists' words
    were chosen at `seen` papers: then they are chosen again (both backends)."""
    return not 0.8 * seen <= papers <= 1.25 * seen


# --- keys --------------------------------------------------------------------------------------

def key_of(term: str, prefix: bool = False) -> str:
    """The key of a word's (or prefix's) list."""
    return "(" + fts_phrase(Text(term, prefix=prefix)) + ")"


def after_prefix(prefix: str) -> str:
    """The first string past every word starting with `prefix` (plain ASCII) in the index's
    byte order: the prefix with its last character one up."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def of_several(key: str) -> bool:
    """Whether a list's key is an AND's or a phrase's: a word's holds no space."""
    return " " in key


def term(key: str) -> tuple[str, bool] | None:
    """(word, is a prefix) of a word's key `("word")` / `("word"*)`, None unless plain ASCII
    (whose folding this program can redo; FTS5's own folding of the rest is FTS5's)."""
    prefix = key.endswith('"*)')
    word = key[2:-3] if prefix else key[2:-2]
    return (word, prefix) if word.isascii() and word.isalnum() else None


def word_key(compiled: CompiledQuery) -> str | None:
    """The list that could serve this query's exact tier: its MATCH expression for one plain
    word or prefix (lowercased when ASCII, as the index folds it); None for anything else."""
    match = compiled.match
    if match is None or compiled.exclude or " " in match.strip("()").strip('"*'):
        return None
    inner = match[1:-1] if match.startswith("(") and match.endswith(")") else None
    if inner is None or inner.count('"') != 2 or not inner.startswith('"'):
        return None  # ORs, several words, NOT, phrases, quotes inside
    return match.lower() if match.isascii() else match


def and_keys(compiled: CompiledQuery) -> list[str] | None:
    """The lists whose words an AND query's exact tier holds, in its order (two or more plain
    words or prefixes, each once); None for anything else (one word: word_key)."""
    match = compiled.match
    if match is None or compiled.exclude or " AND " not in match:
        return None
    keys = []
    for part in match.split(" AND "):
        key = word_key(CompiledQuery(match=part))
        if key is None or key in keys:
            return None  # a phrase, an OR, a NOT, a word twice: FTS5 scores it otherwise
        keys.append(key)
    return keys


def phrase_keys(compiled: CompiledQuery) -> list[str] | None:
    """The lists of the words of a phrase query's exact tier (`"language models"`: one
    phrase of two or more plain ASCII words, no prefix), each once; None for anything else."""
    match = compiled.match
    if match is None or compiled.exclude or not (match.startswith('("') and match.endswith('")')):
        return None
    inner = match[2:-2]
    words = inner.lower().split(" ")
    if '"' in inner or len(words) < 2 or not all(w.isascii() and w.isalnum() for w in words):
        return None
    return list(dict.fromkeys(key_of(w) for w in words))


def several_key(compiled: CompiledQuery, keys: list[str], phrase: bool) -> str | None:
    """The key of the list of its own an AND (`keys` its words') or a phrase of frequent words
    may have: the exact tier's MATCH expression, its words lowercased as their lists' keys;
    None with a prefix (typed as you go: sqlite_several keeps one only when ranked in full,
    for a word's first letters, not one at each letter)."""
    if phrase:
        return compiled.match.lower()  # phrase_keys: plain ASCII words, spaces, the quotes
    if any(key.endswith("*)") for key in keys):
        return None
    return " AND ".join(keys)
