"""Issue 32, item 3: typos one edit away for words of up to 7 letters, two for longer ones,
corrected as a whole query when every other word is found (`watermarkng` -> watermarking),
two at once too (`atention sinkz` -> attention sink).

Typos are made at random (seeded) from the seed catalog's own words: a letter dropped, two
swapped or one replaced, never the first. A typo is recovered when `correction` gives the word
it was made from; the only misses allowed are typos at least as close to another word."""

from __future__ import annotations

import random

import pytest
from rapidfuzz.distance import OSA


def _typo(rng: random.Random, word: str, edits: int) -> str:
    for _ in range(edits):
        i = rng.randrange(1, len(word) - 1)
        op = rng.choice("dts")
        if op == "d":
            word = word[:i] + word[i + 1:]
        elif op == "t":
            word = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        else:
            word = word[:i] + rng.choice("aeinorst") + word[i + 1:]
    return word


@pytest.fixture(scope="module")
def typo_catalog(tmp_path_factory):
    from catalog.library import Catalog
    from tests.conftest import SEEDS

    catalog = Catalog.open(tmp_path_factory.mktemp("typos") / "catalog.db")
    assert not catalog.import_paths([SEEDS]).errors
    yield catalog
    catalog.close()


def test_typos_within_their_distance_are_recovered(typo_catalog):
    with typo_catalog.store.read() as tx:
        vocabulary = sorted((w, n) for w, n in tx.search.vocabulary() if w.isalpha() and len(w) >= 5 and n >= 3)
    rng = random.Random(32)
    recovered, tried = 0, 0
    for word, _ in rng.sample(vocabulary, 120):
        edits = 2 if len(word) >= 8 else 1
        typo = _typo(rng, word, edits)
        if not 0 < OSA.distance(typo, word) <= edits or typo_catalog.search(typo, limit=1):
            continue  # two changes that make more (or fewer) edits, or a word some paper holds
        tried += 1
        got = typo_catalog.words.correction(typo)
        if got == word:
            recovered += 1
        else:  # only a typo at least as close to a word as common
            assert got is not None and OSA.distance(typo, got) <= OSA.distance(typo, word), (word, typo, got)
    assert tried >= 90 and recovered / tried >= 0.9


@pytest.mark.parametrize("typed, meant", [
    ("watermarkng", "watermarking"),  # the issue's: one edit, 11 letters
    ("dificut", "difficult"),  # two edits from a 9-letter word, though the typo has 7
    ("atention sink", "attention sink"),
    ("Hessain eigenvalues", "hessian eigenvalues"),
    ("atention sinkz", "attention sink"),  # two typos at once: both corrected
    ("interpretabilty of atention", "interpretability of attention"),
])
def test_the_whole_query_is_corrected(typo_catalog, typed, meant):
    assert typo_catalog.words.correction(typed) == meant


def test_no_correction_for_three_unknown_words_an_uncorrectable_one_a_known_one_or_this_form(typo_catalog):
    assert typo_catalog.words.correction("interpretabilty of atention sinkz") is None  # three unknown words
    assert typo_catalog.words.correction("atention qqzxwv") is None  # one of the two has no correction
    assert typo_catalog.words.correction("attention") is None
    assert typo_catalog.words.correction("=watermarkng") is None  # `=word`: as typed, on purpose
    assert typo_catalog.words.correction("mech interp") is None  # an acronym covers it


def test_a_short_word_gets_one_edit_only(typo_catalog):
    assert typo_catalog.words.correction("modle") == "model"  # one edit
    assert "model" not in {w for s in typo_catalog.words.suggest("mdle") for w in s.alternatives}  # two


def test_cli_searches_the_corrected_query_and_says_so(seeded, run_cli):
    import json

    result = run_cli("search", "watermarkng")
    assert result.exit_code == 0 and result.stdout.strip()
    assert "No paper matches 'watermarkng': showing watermarking." in result.stderr
    data = json.loads(run_cli("search", "--json", "watermarkng").stdout)
    assert data["corrected"] == "watermarking" and data["papers"]
    assert json.loads(run_cli("search", "--json", "watermarking").stdout)["corrected"] is None
