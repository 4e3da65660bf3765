"""Authors as people: the catalog's "First von Last, First Last, et al." string as one row per
person, in order, with the parts a search compares (accents and case folded away), and the
short form lists show ("Vaswani et al."). Pure functions; store/ keeps the rows (paper_author),
the importer writes them when a paper gets its authors."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

from catalog.ingest.fields import is_organisation, name_parts, split_people

ET_AL = "et al."


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
