"""The form two texts are compared in, to tell whether they are the same paper."""

from __future__ import annotations

import unicodedata

# What str.split() splits ASCII text on, besides the space.
_ASCII_SPACES_BUT_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"


def normalize(text: str) -> str:
    """Key for deduplication: NFKC, casefolded, whitespace collapsed."""
    # Casefolding can produce text that is no longer NFKC, hence the second pass. ASCII is
    # already NFKC and casefolds to ASCII, so it skips both (most abstracts).
    if text.isascii():
        lowered = text.lower()
        # Without other whitespace or double spaces only the ends can need collapsing (most
        # abstracts): a few substring tests are several times faster than split and join.
        if "  " not in lowered and not any(ch in lowered for ch in _ASCII_SPACES_BUT_SPACE):
            return lowered.strip(" ")
        return " ".join(lowered.split())
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(folded.split())
