"""Which words of a text a query matched: highlighting and snippets, computed in Python.

FTS5's snippet() reruns the MATCH for every row it is asked about, which costs more than the
ranking itself on a page of results; the page's abstracts are at hand, so the words are found
here instead, folded the way the unicode61 tokenizer folds them (case, diacritics).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from catalog.searching.query import Query, Text
from catalog.text.cjk import has_cjk

START, END = "\x02", "\x03"  # around matched words; displays turn them into a style
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Terms:
    """What to mark: word sequences (one word, or a phrase), the last word perhaps a prefix."""

    phrases: frozenset[tuple[tuple[str, ...], bool]]  # (folded words, last one is a prefix)
    substrings: tuple[str, ...]  # CJK text, matched anywhere
    # Word sequences matched in any form (the stemmed index finds them): their words' stems.
    stems: frozenset[tuple[str, ...]] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.phrases or self.substrings)

    @property
    def ascii(self) -> bool:
        """Every word ASCII (no CJK text): spans() may search a letter-for-letter folding."""
        return (not self.substrings and all(w.isascii() for words, _ in self.phrases for w in words)
                and all(s and s.isascii() for words in self.stems for s in words))


@lru_cache(maxsize=65536)
def fold(word: str) -> str:
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def terms_of(query: Query, also: Mapping[str, Sequence[str]] | None = None) -> Terms:
    """The words and phrases a query looks for (negated ones are not marked). Like FTS5, a
    phrase, or a word with punctuation inside (`multi-agent`), matches as a sequence.
    `also`: what words or runs of words of the query also stand for, through the acronyms the
    store knows ("SAE" -> ["sparse autoencoders"]): those are marked in any form too."""
    phrases: set[tuple[tuple[str, ...], bool]] = set()
    substrings: list[str] = []
    stems: set[tuple[str, ...]] = set()
    for other in (o for others in (also or {}).values() for o in others):
        if words := tuple(fold(t) for t in _WORD.findall(other)):
            phrases.add((words, False))
            stems.add(tuple(stem(w) for w in words))
    for clause in query.clauses:
        if clause.negated:
            continue
        for option in clause.options:
            if not isinstance(option, Text):
                continue
            if has_cjk(option.text):
                substrings.append(option.text)
            elif words := tuple(fold(t) for t in _WORD.findall(option.text)):
                phrases.add((words, option.prefix))
                if not option.prefix and not option.exact:
                    stems.add(tuple(stem(w) for w in words))
    return Terms(frozenset(phrases), tuple(substrings), frozenset(stems))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A folded word's stem as the stemmed index (FTS5's porter) makes it."""
    return _porter().stemWord(word)


@lru_cache(maxsize=1)
def _porter():
    import Stemmer

    return Stemmer.Stemmer("porter")


def _stem_start(s: str) -> str:
    """What every word with stem `s` begins with, near enough to find candidates by regex
    (checked by stemming each): porter stems are prefixes of their words but for a last y/e."""
    return s[:-1] if len(s) > 3 and s[-1] in "ie" else s


@lru_cache(maxsize=256)
def _stem_patterns(stems: frozenset[tuple[str, ...]]) -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    return tuple((re.compile(r"\b" + r"\W+".join(_letters(_stem_start(s)) + r"\w*" for s in words), re.IGNORECASE),
                  words) for words in sorted(stems))


def _form_spans(text: str, terms: Terms) -> list[tuple[int, int]]:
    out = []
    for pattern, words in _stem_patterns(terms.stems):
        for m in pattern.finditer(text):
            found = _WORD.findall(m.group())
            if len(found) == len(words) and all(stem(fold(w)) == s for w, s in zip(found, words)):
                out.append(m.span())
    return out


# Characters that fold to a plain letter or digit: `e` also matches é, è, ê..., `2` matches ²
# and ₂ (the rendered `MCR²` is found by `MCR2`, as the index finds it).
_VARIANTS: dict[str, str] = {}
for _code in [*range(0xC0, 0x250), *range(0x2070, 0x208A), 0xB2, 0xB3, 0xB9]:
    _base = fold(chr(_code))
    if len(_base) == 1 and _base.isascii() and _base.isalnum():
        _VARIANTS[_base] = _VARIANTS.get(_base, "") + chr(_code)


# Lower-cased text folded one character for one: é to e, ² to 2; other characters (Greek, ß,
# CJK) stay as they are, and no ASCII word matches them. Only the few non-ASCII characters of
# an abstract are looked up (str.translate would look up every one: slower than the search).
_ONE_LETTER = {ch: base for base, chars in _VARIANTS.items() for ch in chars}
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _one_letter(m: re.Match[str]) -> str:
    return _ONE_LETTER.get(m.group(), m.group())


def _letters(word: str) -> str:
    return "".join(f"[{re.escape(c)}{_VARIANTS[c]}]" if c in _VARIANTS else re.escape(c) for c in word)


@lru_cache(maxsize=256)
def _pattern(terms: Terms) -> re.Pattern[str] | None:
    """One regex for all the terms: the scan runs in C instead of a Python loop per word."""
    options = []
    for words, prefix in sorted(terms.phrases):
        body = r"\W+".join(_letters(w) for w in words)
        options.append(rf"\b{body}" + (r"\w*" if prefix else r"\b"))
    options += [re.escape(s) for s in terms.substrings]
    return re.compile("|".join(options), re.IGNORECASE) if options else None


def spans(text: str, terms: Terms) -> list[tuple[int, int]]:
    """(start, end) of every matched word or substring, in order, not overlapping."""
    if not terms.ascii:
        return _unicode_spans(text, terms)
    if text.isascii():
        return _literal_spans(text.lower(), terms)
    low = text.lower()
    if len(low) != len(text):  # a letter that lower-cases to two (İ): offsets would shift
        return _unicode_spans(text, terms)
    return _literal_spans(_NON_ASCII.sub(_one_letter, low), terms)


def _literal(words: tuple[str, ...], between: str, last: str) -> re.Pattern[str]:
    """Words in a row (case-sensitive), the first one at a word's start: `between` after each
    but the last, then `last`. The first letter comes before the word-start check
    (`h(?<=\\bh)essian`), so the regex engine searches for the literal text: `\\bhessian`,
    or several words in one alternation, try every position of the text instead (ten to
    forty times slower on an abstract)."""
    first = re.escape(words[0][0])
    body = (between + r"\W+").join(re.escape(w) for w in words)[len(first):]
    return re.compile(rf"{first}(?<=\b{first}){body}{last}")


@lru_cache(maxsize=256)
def _ascii_patterns(terms: Terms) -> tuple[tuple[re.Pattern[str], ...], tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]]:
    """spans()'s patterns for lower-cased ASCII text: one per exact word or phrase, and one
    per stemmed sequence with its words' stems."""
    forms = tuple((_literal(tuple(_stem_start(s) for s in words), r"\w*", r"\w*"), words)
                  for words in sorted(terms.stems))
    by_stems = dict((words, pattern) for pattern, words in forms)
    # A phrase its form's pattern finds as written needs no pass of its own (most words).
    exact = tuple(_literal(words, "", r"\w*" if prefix else r"\b") for words, prefix in sorted(terms.phrases)
                  if prefix or not _found_as_form(words, by_stems))
    return exact, forms


def _found_as_form(words: tuple[str, ...], by_stems: dict) -> bool:
    pattern = by_stems.get(tuple(stem(w) for w in words))
    return pattern is not None and pattern.fullmatch(" ".join(words)) is not None


def _literal_spans(low: str, terms: Terms) -> list[tuple[int, int]]:
    """spans() of a text folded letter for letter (every offset kept), each word searched for
    as literal text."""
    exact, forms = _ascii_patterns(terms)
    found = [m.span() for pattern in exact for m in pattern.finditer(low)]
    for pattern, words in forms:
        for m in pattern.finditer(low):
            seen = _WORD.findall(m.group())
            if len(seen) == len(words) and all(stem(w) == s for w, s in zip(seen, words)):
                found.append(m.span())
    return _merged(found)


def _unicode_spans(text: str, terms: Terms) -> list[tuple[int, int]]:
    pattern = _pattern(terms)
    found = [m.span() for m in pattern.finditer(text)] if pattern else []
    if terms.stems:
        found = _merged(found + _form_spans(text, terms))
    return found


def _merged(spans_: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans_):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def marked(text: str, found: list[tuple[int, int]]) -> str:
    out, last = [], 0
    for start, end in found:
        out += [text[last:start], START, text[start:end], END]
        last = end
    out.append(text[last:])
    return "".join(out)


def snippet(text: str, terms: Terms, width: int = 160) -> str:
    """About `width` characters around the densest run of matches, cut between words, marked,
    with … where cut."""
    if START in text or END in text:  # rendered text never has them; stay unambiguous anyway
        text = text.replace(START, "").replace(END, "")
    found = spans(text, terms)
    if len(text) <= width * 5 // 4:
        return marked(text, found)
    begin = 0
    if found:
        starts = [start for start, _ in found]
        counts = [bisect_left(starts, s + width) - i for i, s in enumerate(starts)]
        best = starts[counts.index(max(counts))]
        begin = max(0, min(best - width // 6, len(text) - width))
        begin = text.rfind(" ", 0, begin) + 1 if begin else 0  # back to a word's start
    end = begin + width
    if end >= len(text):
        end = len(text)
    else:
        cut = text.rfind(" ", begin, end)
        end = cut if cut > begin else end
    inside = [(s - begin, e - begin) for s, e in found if s >= begin and e <= end]
    body = marked(text[begin:end], inside)
    return ("…" if begin else "") + body + ("…" if end < len(text) else "")
