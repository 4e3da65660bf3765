"""Catalog's triage calls: what counts as triaged, and the order of what is left."""

from __future__ import annotations

import pytest

from tests.tui.test_tui_triage import _sae_keys


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def seeded(seeded_any):
    """On each backend."""
    return seeded_any


def test_triaged_means_a_status_other_than_unread_or_a_rating(seeded):
    keys = [p.key for p in seeded.triage.untriaged("", limit=4)]
    seeded.set_status(keys[:1], "queued")
    seeded.set_rating(keys[1:2], 2)
    seeded.tag(keys[2:3], ["maybe"])  # a tag alone does not triage
    assert seeded.triage.triage_count("").triaged == 2 and seeded.triage.triage_count("").total == 90
    left = {p.key for p in seeded.triage.untriaged("", limit=100)}
    assert len(left) == 88 and keys[2] in left and not {keys[0], keys[1]} & left
    assert seeded.triage.triage_count("") .triaged == 90 - seeded.count("status:unread -has:rating")


@pytest.mark.parametrize("query", ["", "year:2026"])
def test_the_order_puts_papers_like_the_liked_ones_first(seeded, query):
    assert seeded.triage.triage_order(query) is None  # nothing to learn from yet
    sae = sorted(_sae_keys(seeded))
    seeded.set_rating(sae[:2], 5)
    seeded.set_status(sae[2:3], "queued")
    skipped = [p.key for p in seeded.triage.untriaged(query, limit=3) if p.key not in sae][0]
    seeded.set_status([skipped], "skipped")
    order = seeded.triage.triage_order(query, limit=10)
    assert order.learnt_from == 3
    ranked = [p.key for p in order.papers]
    assert len(ranked) == 10 and not set(ranked) & {*sae[:3], skipped}  # untriaged ones only
    in_query = {p.key for p in seeded.triage.untriaged(query, limit=200)}
    assert set(ranked) <= in_query
    assert len(set(ranked[:5]) & set(sae[3:])) >= 3, ranked
