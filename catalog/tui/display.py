"""Small display helpers shared by the widgets: imported text made safe, stars, highlighting.

Imported text is only ever put into Text/Content objects as plain text; nothing here builds
markup, so `[bold]` or `[link=...]` in an abstract stays literal."""

from __future__ import annotations

import re
import unicodedata

from catalog.query import Text as Term
from catalog.text import has_cjk, strip_control

_WORD = re.compile(r"\w+")


def safe(value: object) -> str:
    """Text for the screen: control characters and escape sequences removed."""
    return strip_control(str(value)) if value is not None else ""


def one_line(value: object) -> str:
    return " ".join(safe(value).split())


def first_line(exc: BaseException) -> str:
    """An exception as one line for a notification (database errors run to several)."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def stars(rating: int | None) -> str:
    return "★" * rating + "☆" * (5 - rating) if rating else ""


def _fold(word: str) -> str:
    """Compare words the way the index does: no case, no accents; MCR² matches MCR2."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def highlight_spans(text: str, terms: list[Term]) -> list[tuple[int, int]]:
    """(start, end) of each place in `text` where one of the search terms occurs."""
    spans: list[tuple[int, int]] = []
    if not terms:
        return spans
    words = [(m.start(), m.end(), _fold(m.group())) for m in _WORD.finditer(text)]
    lowered = text.casefold()
    for term in terms:
        if has_cjk(term.text):
            needle = term.text.casefold()
            start = lowered.find(needle)
            while needle and start >= 0:
                spans.append((start, start + len(needle)))
                start = lowered.find(needle, start + len(needle))
            continue
        wanted = [_fold(w) for w in _WORD.findall(term.text)]
        n = len(wanted)
        for i in range(len(words) - n + 1) if n else ():
            *middle, last = (words[i + j][2] for j in range(n))
            if middle != wanted[:-1]:
                continue
            if last == wanted[-1] or (term.prefix and last.startswith(wanted[-1])):
                spans.append((words[i][0], words[i + n - 1][1]))
    return sorted(spans)
