"""A whole query that names one paper: its key (or a key prefix), a DOI or an arXiv id.

    njzfydv  njzf          a key, or a unique prefix of 4+ characters (a trailing * is allowed)
    vaswani2017attention   a cite key (letters and a digit: looked up, else searched as text)
    10.1145/3580305.3599256, doi:10.1145/..., https://doi.org/10.1145/...
    2501.01234  arXiv:2501.01234v2  https://arxiv.org/abs/2501.01234  cs/0101001

Pure functions: what the text names, normalised as the store keeps it (DOIs and arXiv ids in
lower case, arXiv ids without their version). catalog/searching/lookup.py finds the paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KEY_PREFIX = 4  # the shortest key prefix that names a paper
# Keys are Crockford base32 in lower case (catalog/importing/identity.py): no i, l, o or u.
KEY_LETTERS = "0-9a-hjkmnp-tv-z"
_KEY = re.compile(rf"[{KEY_LETTERS}]{{{KEY_PREFIX},25}}")
_DOI = re.compile(r"(?:doi:\s*|(?:https?://)?(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)", re.IGNORECASE)
_ARXIV = re.compile(
    r"(?:arxiv:\s*|(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)?"
    r"(\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[a-z]{2})?/\d{7})(?:v\d+)?(?:\.pdf)?", re.IGNORECASE)


@dataclass(frozen=True)
class Identifier:
    kind: str  # "key", "doi", "arxiv" or "citekey"
    value: str  # as the store keeps it


def identify(query: str) -> Identifier | None:
    """What `query`, taken whole, names; None for anything else (words, filters, phrases)."""
    text = query.strip()
    if not text or any(ch.isspace() for ch in text):
        return None
    if m := _DOI.fullmatch(_unquoted(text)):
        doi = m[1].rstrip(".,;").lower()
        if (arxiv := _ARXIV.fullmatch(doi.removeprefix("10.48550/arxiv."))) and doi.startswith("10.48550/arxiv."):
            return Identifier("arxiv", arxiv[1])  # arXiv's DOI names the preprint: its arXiv id
        return Identifier("doi", doi)
    if m := _ARXIV.fullmatch(text):
        return Identifier("arxiv", m[1].lower())
    key = text.rstrip("*").lower()
    if _KEY.fullmatch(key):
        return Identifier("key", key)
    if _CITEKEY.fullmatch(text) and any(ch.isdigit() for ch in text):
        return Identifier("citekey", text)
    return None


# A cite key as people write them: vaswani2017attention, Smith2019-2, DBLP:conf/iclr/KingmaB14.
_CITEKEY = re.compile(r"[A-Za-z][\w:./+-]*")


def _unquoted(text: str) -> str:
    """A doi.org link percent-encodes (10.1000%2Fx)."""
    if "%" not in text:
        return text
    from urllib.parse import unquote

    return unquote(text)
