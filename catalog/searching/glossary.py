"""Acronyms a catalog need not define itself: the field's common ones (acronyms.tsv beside this
module: RLHF, SSM, VLM, TDA, KV cache, mech interp ...), and those a user adds.

The catalog learns acronyms from its abstracts ("Sparse Autoencoders (SAEs)": acronyms.py),
but many papers never spell out RLHF or VLM. This glossary fills in what the abstracts leave
out: a short form's long forms (one or several: TDA is training data attribution or
topological data analysis) and, the other way, a long form's short forms. Short forms that
are ordinary words too (MAP, CLIP), and those of one or two letters (RL, LN), count only when
typed in capitals; the others in any case, singular or plural (`loras`, `VLMs`).

Pure: text in, forms out; the store merges these with what the abstracts taught it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from catalog.searching.acronyms import long_key

FILE = Path(__file__).with_name("acronyms.tsv")


@dataclass(frozen=True)
class Entry:
    short: str  # as written: LoRA, KV cache
    long: str
    case: bool = False  # only typed in capitals (an ordinary word too, or one or two letters)


class Glossary:
    """Short forms and long forms, looked up either way."""

    def __init__(self, entries: Iterable[Entry]):
        self.entries = tuple(entries)
        self._by_short: dict[str, list[Entry]] = {}
        self._by_long: dict[str, list[Entry]] = {}
        for e in self.entries:
            self._by_short.setdefault(_fold(e.short), []).append(e)
            self._by_long.setdefault(long_key(e.long), []).append(e)

    def long_forms(self, typed: str) -> list[str]:
        """What `typed`, as a short form, stands for (its long forms, then the other short
        forms of the same long form: LayerNorm -> layer normalization, LN); [] if nothing."""
        found = [e for e in self._entries_of(typed)]
        out = [e.long for e in found]
        for e in found:
            out += [other.short for other in self._by_long.get(long_key(e.long), ()) if other.short != e.short]
        return list(dict.fromkeys(out))

    def short_forms(self, typed: str) -> list[str]:
        """The short forms of `typed` as a long form (compared as acronyms.long_key does)."""
        return list(dict.fromkeys(e.short for e in self._by_long.get(long_key(typed), ())))

    def _entries_of(self, typed: str) -> list[Entry]:
        text = " ".join(typed.split())
        folded = _fold(text)
        for key in (folded, folded[:-1] if folded.endswith("s") and len(folded) > 3 else None):
            entries = self._by_short.get(key) if key else None
            if entries:
                plural = key != folded
                return [e for e in entries if _typed_as(e, text[:-1] if plural else text)]
        return []


def _typed_as(entry: Entry, text: str) -> bool:
    """Whether `text` may be this entry's short form: any case, unless the entry asks for
    capitals (then as written or all in capitals)."""
    if not (entry.case or len(entry.short) <= 2):
        return True
    return text == entry.short or text == entry.short.upper()


def _fold(text: str) -> str:
    return " ".join(text.lower().split())


def parse(text: str) -> list[Entry]:
    """The entries of a glossary file: `SHORT<tab>long form[<tab>case]` a line; `#` starts a
    comment line. ValueError names the first line that is not one."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split("\t")]
        if len(parts) not in (2, 3) or not parts[0] or not parts[1] or parts[2:] not in ([], ["case"]):
            raise ValueError(f"line {number} is not SHORT<tab>long form[<tab>case]: {line!r}")
        out.append(Entry(parts[0], parts[1], parts[2:] == ["case"]))
    return out


@cache
def curated() -> Glossary:
    """The bundled glossary (acronyms.tsv), read once a process."""
    return Glossary(parse(FILE.read_text(encoding="utf-8")))


def widen(texts: Iterable[str], as_short: dict[str, list[str]], as_long: dict[str, list[str]],
          curated: Glossary, added: Glossary | None = None) -> dict[str, list[str]]:
    """What each of a query's texts also stands for: as a short form, the long forms a user
    added, else those the abstracts define (`as_short`, learned), else the glossary's; as a
    long form (two words or more), every short form any of them knows (`as_long`, learned)."""
    out: dict[str, list[str]] = {}
    for text in texts:
        longs = (added.long_forms(text) if added else []) or as_short.get(text) or curated.long_forms(text)
        shorts = list(as_long.get(text, ()))
        if not text.isalnum():
            shorts += (added.short_forms(text) if added else []) + curated.short_forms(text)
        found = [form for form in dict.fromkeys([*longs, *shorts]) if form.lower() != text.lower()]
        if found:
            out[text] = found
    return out
