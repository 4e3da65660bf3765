"""Authors as people: the catalog's "First von Last, First Last, et al." string as one row per
person, in order, with the parts a search compares (accents and case folded away), and the
short form lists show ("Vaswani et al."). Pure functions; store/ keeps the rows (paper_author),
the importer writes them when a paper gets its authors."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

ET_AL = "et al."
# Lower-case words that begin a family name: "van der Maaten", "de la Torre".
PARTICLES = {"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "la", "le", "dos", "das", "ter", "ten", "al", "el", "bin", "ibn"}


def split_people(authors: str | None) -> list[str]:
    """The catalog's "First Last, First Last" string as a list of names."""
    return [n.strip() for n in (authors or "").split(",") if n.strip()]


_ORGANISATION_WORDS = frozenset(
    "university universität université universidad institute institut centre center centres centers "
    "council committee consortium association society organisation organization foundation agency "
    "department ministry group team project collaboration laboratory laboratories inc ltd llc gmbh "
    "corporation company office board network alliance initiative programme program commission "
    "administration service services bureau academy school hospital authority federation union "
    "bank fund forum panel".split())


def is_organisation(name: str) -> bool:
    """Whether a stored author is an organisation ("Centers for Disease Control and Prevention",
    "World Health Organization"): exports write these as one name, never as First/Last."""
    words = re.findall(r"\w+", name.lower())
    return " and " in f" {name.lower()} " or "&" in name or any(w in _ORGANISATION_WORDS for w in words)


def name_parts(name: str) -> tuple[str, str]:
    """(given, family) for a "First von Last" name; ('', name) when there is one word."""
    words = name.split()
    if len(words) < 2:
        return "", name
    family_start = len(words) - 1
    while family_start > 1 and words[family_start - 1].lower() in PARTICLES:
        family_start -= 1
    if words[-1].rstrip(".").lower() in {"jr", "sr", "ii", "iii", "iv"} and len(words) > 2:
        family_start = min(family_start, len(words) - 2)
    return " ".join(words[:family_start]), " ".join(words[family_start:])


class Person(NamedTuple):
    """One author of a paper, as the paper_author table holds them."""

    position: int  # 1 for the first author
    name: str  # as shown: "Laurens van der Maaten", "World Health Organization"
    family: str  # "van der Maaten"; an organisation's whole name
    folded: str  # the name as compared: "laurens van der maaten"
    folded_family: str  # "van der maaten"; "" for an organisation
    folded_short: str  # first given name and family: "laurens van der maaten", "geoffrey hinton"


_PUNCTUATION = re.compile(r"[^\w]+")


def fold(text: str) -> str:
    """Text as author searches compare it: accents dropped, case folded, punctuation as spaces
    (`Müller` = `muller`, `G.~W.` = `g w`)."""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text.replace("ß", "ss"))
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_PUNCTUATION.sub(" ", text.casefold()).split())


@lru_cache(maxsize=65536)  # a library names the same people again and again
def _parts(name: str) -> tuple[str, str, str, str]:
    """(family, folded name, folded family, folded first given name + family) of one name."""
    if is_organisation(name):  # found from its first word on, never by a word inside it
        folded = fold(name)
        return name, folded, "", folded
    given, family = name_parts(name)
    first = given.split()[0] if given.split() else ""
    folded_family = fold(family)
    return family, fold(name), folded_family, f"{fold(first)} {folded_family}".strip()


def people(authors: str | None) -> list[Person]:
    """The people of an authors string, in order ("et al." is not a person)."""
    out: list[Person] = []
    for name in split_people(authors):
        if name != ET_AL:
            out.append(Person(len(out) + 1, name, *_parts(name)))
    return out


def short(authors: str | None) -> str:
    """"Vaswani et al.", "Hinton & Salakhutdinov", "World Health Organization"; "" without authors."""
    found = people(authors)
    if not found:
        return ""
    names = [p.family for p in found]
    more = len(found) > 2 or ET_AL in split_people(authors)
    if more:
        return f"{names[0]} et al."
    return " & ".join(names)
