"""Acronyms that abstracts define themselves: "Sparse Autoencoders (SAEs)", "GUDA (Group
Unlearning-based Data Attribution)".

The Schwartz-Hearst algorithm (Schwartz & Hearst, "A simple algorithm for identifying
abbreviation definitions in biomedical text", PSB 2003): a parenthesis holding a short form
follows its long form (or the reverse); the long form is the shortest run of words before it
in which the short form's letters appear in order, the first at the start of a word. Added
here: long forms whose words' initials spell the short form win over other alignments,
plural short forms are singular (SAEs -> SAE), common words and non-acronyms ("(i)",
"(2024)", "(e.g. ...)", "(see Fig. 3)") are never short forms, and `learn` aggregates over
many papers: a pair seen in several papers wins over a one-off definition.

Pure text in, pairs out: no database. Pass rendered text (catalog.text.tex.render), not TeX.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import cache
from itertools import chain, repeat

# A parenthesis holding no other parenthesis; longer contents are never a definition.
_PAREN = re.compile(r"\(([^()]{1,120})\)")
# Where a long form cannot reach across: sentence and clause ends, other brackets, dashes
# between words (an en dash inside a word, "Vision–language", is not one).
_BOUNDARIES = (*".;:!?()[]{}\n,—", " – ")
_EDGE_PUNCT = "\"'“”‘’`«»*_"
# Words a long form neither starts nor ends with, and skipped when spelling initials.
_MINOR = frozenset(
    "a an the of for and or to in on at by with via from into as is are be its their our this that".split()
)
# Common words never become short forms: in a case-insensitive index "IT" or "US" would
# otherwise expand every "it" and "us". `learn` also drops any short form that its texts
# use as an ordinary lowercase word.
_COMMON = frozenset(
    """a i an as at be by do go he if in is it me my no of on or so to up us we am are was
    all and any are but can did for get had has her him his how its let may new not now one
    our out own say see she the too two use way who why yes yet you also both each from have
    into just like more most much must only over same some such than that them then they this
    very what when will with fig figs tab eq eqs sec ref refs see cf viz etc ie eg al vs""".split()
)
_NOT_ALNUM = re.compile(r"[\W_]+")
_PARTS = re.compile(r"[-–/]")
_LONG_WORDS = re.compile(r"[\s\-–/]+")
_TOKEN_PUNCT = ".,;:!?()[]{}\"'“”‘’"
_SAFE_LONG = re.compile(r"^[^\\$={}<>|#@]+$")


def _short_form(candidate: str) -> str | None:
    """The short form a parenthesis or a word holds, singular; None if it is no acronym."""
    s = candidate.strip().strip(_EDGE_PUNCT)
    if not 2 <= len(s) <= 12 or " " in s or not s[0].isalnum():
        return None
    if s.endswith("s") and sum(c.isupper() for c in s[:-1]) >= 2:
        s = s[:-1]  # SAEs -> SAE, LLMs -> LLM, MoEs -> MoE
    upper = sum(c.isupper() for c in s)
    if upper < 2 and not (upper == 1 and any(c.isdigit() for c in s)):
        return None  # (i), (e.g.), (see), (Fig), (2024)
    if not any(c.isalpha() for c in s) or s.lower() in _COMMON:
        return None
    if not all(c.isalnum() or c in "-&/+." for c in s) or s.endswith("."):
        return None
    return s


def _letters(text: str) -> str:
    return _NOT_ALNUM.sub("", text).lower()


def _spellings(short: str) -> list[str]:
    """The letters a long form must spell: all of them, else without the digits, which
    often stand for a word or a power ("T2I" Text-to-Image, "L2M", "MCR²")."""
    letters = _letters(short)
    alpha = "".join(c for c in letters if not c.isdigit())
    return [letters, alpha] if alpha != letters and len(alpha) >= 2 else [letters]


def _word_starts(text: str) -> list[int]:
    return [i for i, c in enumerate(text) if c.isalnum() and (i == 0 or not text[i - 1].isalnum())]


def _initials_match(letters: str, words: list[str]) -> int | None:
    """How many trailing words spell the short form by their initials, or None.

    The parts of a hyphenated word count as words ("Leave-One-Group-Out"); minor words
    ("of", "with") and later parts of a hyphenated word ("Model-agnostic") may be skipped;
    the last word must spell the last letter."""
    parts: list[tuple[int, str, bool]] = []  # (word index, part, may be skipped)
    for i, w in enumerate(words):
        pieces = [p for p in _PARTS.split(w.strip(_EDGE_PUNCT)) if p]
        for j, piece in enumerate(pieces):
            parts.append((i, piece, j > 0 or piece.lower() in _MINOR))

    @cache
    def match(li: int, pi: int) -> int | None:  # the index of the first part used, or None
        if li < 0:
            return pi + 1
        if pi < 0:
            return None
        _, part, skippable = parts[pi]
        if part[0].lower() == letters[li] and (found := match(li - 1, pi - 1)) is not None:
            return found
        return match(li, pi - 1) if skippable and pi != len(parts) - 1 else None

    if not parts or len(parts) > 4 * len(letters):
        return None
    first = match(len(letters) - 1, len(parts) - 1)
    return None if first is None else len(words) - parts[first][0]


def _schwartz_hearst(letters: str, text: str) -> int | None:
    """The start of the shortest long form ending text that spells short, or None.

    Right to left: each letter of the short form matches the nearest character to its left;
    the first must also start a word."""
    li = len(text) - 1
    for si in range(len(letters) - 1, -1, -1):
        c = letters[si]
        while li >= 0 and (
            text[li].lower() != c or (si == 0 and li > 0 and text[li - 1].isalnum())
        ):
            li -= 1
        if li < 0:
            return None
        li -= 1
    return li + 1


def _best_long(short: str, before: str) -> str | None:
    """The long form ending `before` (the text up to the parenthesis) for `short`."""
    words = before.split()
    n_letters = len(_letters(short))
    if not words or n_letters < 2:
        return None
    window = words[-min(n_letters + 5, n_letters * 2):]
    joined = " ".join(window)
    for letters in _spellings(short):
        if (n := _initials_match(letters, window)) is not None:
            long = window[-n:]
            break
        if (start := _schwartz_hearst(letters, joined)) is not None:
            # Back up to the start of the word holding the first letter.
            start = max((s for s in _word_starts(joined) if s <= start), default=0)
            long = joined[start:].split()
            break
    else:
        return None
    return _clean_long(short, long)


def _clean_long(short: str, words: list[str]) -> str | None:
    while words and words[0].lower().strip(_EDGE_PUNCT) in _MINOR:
        words = words[1:]
    long = " ".join(words).strip(_EDGE_PUNCT + " -–")
    if not long or not _SAFE_LONG.match(long):
        return None
    letters, long_letters = _letters(short), _letters(long)
    if len(long_letters) <= len(letters) or long_letters.startswith(letters) and " " not in long:
        return None  # "SAE (SAE)", or a word that merely starts with the letters
    if short.lower() in _LONG_WORDS.split(long.lower()):
        return None  # the short form is one of the long form's words
    if long[-1:].isalnum() and long.split()[-1].lower() in _MINOR:
        return None
    return long


def definitions(text: str) -> list[tuple[str, str]]:
    """(short form, long form) for every acronym the text defines, in order of appearance.

    Both shapes count: "long form (SF)" and "SF (long form)". Short forms are singular
    ("SAEs" -> "SAE"); long forms are as written (see `long_key` to compare them).
    """
    out: list[tuple[str, str]] = []
    for m in _PAREN.finditer(text):
        inside = m.group(1).strip()
        # Cheap test first: a short form has a capital, inside or just before the parenthesis.
        if inside.islower() and text[max(0, m.start() - 13): m.start()].islower():
            continue
        # Only what the sentence holds before the parenthesis can be a long form.
        head = text[max(0, m.start() - 300): m.start()]
        before = head[max(head.rfind(c) + len(c) if c in head else 0 for c in _BOUNDARIES):]
        first = re.split(r"[,;]\s", inside, maxsplit=1)[0]
        short = _short_form(first) if len(first.split()) == 1 else None
        if short:
            if long := _best_long(short, before):
                out.append((short, long))
            continue
        # "SF (long form)": the word before the parenthesis, the parenthesis spelling it.
        words = before.split()
        if not words:
            continue
        short = _short_form(words[-1])
        long_words = first.split()
        if short and 2 <= len(long_words) <= len(_letters(short)) + 5:
            if any(_initials_match(letters, long_words) == len(long_words)
                   or _schwartz_hearst(letters, first) == 0 for letters in _spellings(short)):
                if long := _clean_long(short, long_words):
                    out.append((short, long))
    return out


def long_key(long: str) -> str:
    """A long form as compared: lowercase, hyphens and spaces ignored, last word singular
    ("Sparse auto-encoders" and "sparse autoencoder" are the same long form)."""
    words = _LONG_WORDS.split(long.lower().strip())
    last = words[-1] if words else ""
    if last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith("s") and not last.endswith(("ss", "us", "is")) and len(last) > 3:
        last = last[:-1]
    words[-1:] = [last]
    return "".join(c for c in "".join(words) if c.isalnum())


def learn(texts: Iterable[str], *, min_papers: int = 1) -> dict[str, str]:
    """Short form -> long form, learned from many texts (one per paper).

    Each text counts once per pair. A short form defined with several long forms takes the
    one most papers use; a tie leaves it out (CCA for "canonical correlation analysis" in one
    paper and "counterfactual credit attribution" in another stands for neither). It is kept
    only if at least `min_papers` papers define it so. The long form is shown as most papers
    write it. A short form that the texts also use as an ordinary lowercase word ("it", "us",
    "ii") is dropped; links do not count ("github.com/sony/guda" keeps GUDA).
    """
    texts = list(texts)
    papers: dict[str, Counter[str]] = defaultdict(Counter)  # short -> long_key -> papers
    spelled: dict[str, Counter[str]] = defaultdict(Counter)  # long_key -> surface -> papers
    for text in texts:
        pairs = {(s, long_key(lf)): lf for s, lf in definitions(text)}
        for (short, key), surface in pairs.items():
            papers[short][key] += 1
            spelled[key][surface] += 1
    ordinary = used_as_words({short.lower() for short in papers}, texts)
    out = {}
    for short, keys in papers.items():
        (key, count), *rest = keys.most_common(2)
        if count >= min_papers and not (rest and rest[0][1] == count) and short.lower() not in ordinary:
            out[short] = spelled[key].most_common(1)[0][0]
    return out


def used_as_words(words: set[str], texts: Iterable[str]) -> set[str]:
    """Which of these lowercase words the texts use as ordinary words. Text is split at
    whitespace, so a link ("github.com/sony/guda") is one token and never such a word."""
    # Each distinct token stripped once, with no Python code per token: this runs over every
    # paper an import adds and is nearly all that learning acronyms costs there (a word-by-word
    # loop took a third longer; docs/benchmarks.md).
    tokens = set(chain.from_iterable(map(str.split, texts)))
    return words.intersection(map(str.strip, tokens, repeat(_TOKEN_PUNCT)))


def reverse(learned: dict[str, str]) -> dict[str, str]:
    """long_key(long form) -> short form: which acronym a typed long form stands for."""
    return {long_key(long): short for short, long in learned.items()}


def short_form(word: str) -> str | None:
    """The acronym a typed word may be (singular: "SAEs" -> "SAE"), or None."""
    return _short_form(word)


def winners(rows: Iterable) -> dict[str, tuple[str, str]]:
    """short form (lowercase) -> (long_key, long form) from stored rows (short, long_key,
    long, papers, ordinary): the long form most papers define it with; none on a tie, or
    when texts use the short form as an ordinary word."""
    by_short: dict[str, list] = defaultdict(list)
    for row in rows:
        by_short[row[0].lower()].append(row)
    out = {}
    for short, found in by_short.items():
        if any(r[4] for r in found):
            continue
        found.sort(key=lambda r: -r[3])
        if len(found) > 1 and found[0][3] == found[1][3]:
            continue
        out[short] = (found[0][1], found[0][2])
    return out
