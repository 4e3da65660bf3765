"""A new paper's identity: a fingerprint no other paper has, and a short key derived from it
(the same on every machine), longer only when two papers would collide."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime

from catalog.importing import dedupe, prepare

KEY_LENGTH = 7
# Crockford's base32 alphabet in lower case: no i, l, o or u to misread or mistype.
_KEY_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def key_candidates(fp: str) -> Iterator[str]:
    """Short keys from the fingerprint, longer ones after a collision."""
    number = int(fp, 16)  # 128 bits: 25 base32 digits, from the top
    for length in range(KEY_LENGTH, 26):
        prefix = number >> (128 - 5 * length)
        yield "".join(_KEY_ALPHABET[(prefix >> shift) & 31] for shift in range(5 * length - 5, -1, -5))


def insert_papers(tx, papers: list[dedupe.Paper], rows: list[prepare.PaperRow], taken: set[str],
                  now: datetime) -> list[int]:
    """Insert new papers (their prepare.paper_fields rows) with free fingerprints and keys;
    their ids, in order. During an import the FTS insert trigger stands aside (the caller
    indexes them); otherwise it indexes them."""
    fps = unique_fingerprints(tx, [p.fp for p in papers], taken)
    keys = assign_keys(tx, fps, preferred=[p.record.extra.get("key") for p in papers])
    stamp = now.isoformat(" ")  # formatted once, not twice per row
    return tx.insert_papers([row._replace(fingerprint=fp) for fp, row in zip(fps, rows)],
                            [keys[fp] for fp in fps], stamp)


def unique_fingerprints(tx, fps: list[str], taken: set[str], keep: str | None = None) -> list[str]:
    """The fingerprints, each made distinct where two papers the rules keep apart hash alike
    (one placeholder abstract, one generic title): the fingerprint is the paper's unique id.
    `taken`: those catalog papers hold (dedupe.match looked them up); `keep`: the one the paper
    being changed holds, free for it."""
    out: list[str] = []
    seen: set[str] = set()
    for fp in fps:
        candidate, n = fp, 1
        while (candidate in taken or candidate in seen) and candidate != keep:
            n += 1
            candidate = hashlib.sha256(f"{fp}/{n}".encode()).hexdigest()[:32]
            if candidate != keep and tx.fingerprint_taken(candidate):
                taken.add(candidate)
        seen.add(candidate)
        out.append(candidate)
    return out


def assign_keys(tx, fingerprints: list[str], preferred: list[str | None] | None = None) -> dict[str, str]:
    """The shortest free key for each fingerprint; collisions take a longer prefix.

    A `preferred` key (one a catalog export carried) is kept when it is free, so a catalog
    rebuilt from its own export has the same keys."""
    candidates = {fp: key_candidates(fp) for fp in fingerprints}
    wanted = {fp: next(keys) for fp, keys in candidates.items()}
    asked = {fp: key for fp, key in zip(fingerprints, preferred or []) if key}
    taken = tx.existing_keys(list(wanted.values()) + list(asked.values()))
    keys: dict[str, str] = {}
    for fp, key in asked.items():
        if key not in taken:
            keys[fp] = key
            taken.add(key)
    for fp in fingerprints:
        if fp in keys:
            continue
        candidate = wanted[fp]
        while candidate in taken or (candidate != wanted[fp] and tx.existing_keys([candidate])):
            candidate = next(candidates[fp])
        keys[fp] = candidate
        taken.add(candidate)
    return keys
