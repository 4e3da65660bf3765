"""Issue 12: word forms, exact forms, and partial matches listed after full ones."""

from __future__ import annotations

import json

import pytest

from tests.conftest import key_of


def keys(catalog, query: str, *, match: str | None = "all", limit: int = 200) -> list[str]:
    return [p.key for p in catalog.search(query, limit=limit, snippets=False)
            if match is None or p.match == match]


@pytest.mark.parametrize("word, other", [
    ("LLM", "LLMs"), ("neuron", "neurons"), ("autoencoder", "autoencoders"),
    ("hallucinate", "hallucination"), ("prune", "pruning"),
])
def test_a_word_finds_its_other_forms(seeded_any, word, other):
    one, two = set(keys(seeded_any, word)), set(keys(seeded_any, other))
    assert one == two
    assert len(one) > len(keys(seeded_any, f"={word}")) or len(one) > len(keys(seeded_any, f"={other}"))


def test_the_issue_examples(seeded_any):
    assert len(keys(seeded_any, "neuron")) == 7 and len(keys(seeded_any, "autoencoder")) == 7
    assert len(keys(seeded_any, "hallucinate")) == 3 and len(keys(seeded_any, "prune")) == 2
    assert keys(seeded_any, "sparse autoencoder temporal")  # "Sparse Autoencoders (SAEs) ... temporal"


def test_exact_forms_rank_first_and_can_be_asked_for_alone(seeded_any):
    exact = keys(seeded_any, "=LLM")
    assert exact and set(exact) < set(keys(seeded_any, "LLM"))
    assert keys(seeded_any, "LLM")[:len(exact)] == exact  # the typed form outranks other forms
    plural = keys(seeded_any, "=LLMs")
    assert keys(seeded_any, "LLMs")[:len(plural)] == plural


def test_phrases_match_across_forms(seeded_any):
    plural = set(keys(seeded_any, '"sparse autoencoders"'))
    assert set(keys(seeded_any, '"sparse autoencoder"')) == plural
    assert plural - set(keys(seeded_any, "=autoencoder"))


def test_negated_words_hold_in_every_form(seeded_any):
    for found in (keys(seeded_any, "attention -neurons", match=None), keys(seeded_any, "sparse attention -neuron", match=None)):
        assert found and not set(found) & set(keys(seeded_any, "neuron"))


def test_papers_holding_some_words_follow_marked(seeded_any):
    papers = seeded_any.search("sparse autoencoder temporal", limit=20)
    kinds = [p.match for p in papers]
    assert kinds[0] == "all" and "some" in kinds
    assert kinds == sorted(kinds)  # every "all" before every "some"
    assert seeded_any.count("sparse autoencoder temporal", partial=False) == kinds.count("all")
    assert seeded_any.count("sparse autoencoder temporal") > kinds.count("all")
    # Filters hold strictly, for partial matches too.
    venue = seeded_any.search("sparse autoencoder temporal venue:ICML", limit=50)
    assert venue and {p.venue for p in venue} == {"ICML"} and "some" in {p.match for p in venue}


def test_partial_matches_follow_however_many_hold_every_word(seeded_any):
    listed = seeded_any.search("model we", limit=200, snippets=False)  # 74 of 90 hold both
    kinds = [p.match for p in listed]
    assert kinds.count("all") == seeded_any.count("model we", partial=False) > 50
    assert "some" in kinds and kinds == sorted(kinds)
    assert seeded_any.count("model we") == len(listed)
    assert {p.match for p in seeded_any.search("model", limit=200)} == {"all"}  # one word: all or nothing


def test_pages_continue_across_tiers(seeded_any):
    query = "sparse autoencoder temporal"
    whole = keys(seeded_any, query, match=None, limit=60)
    paged = [p.key for offset in range(0, 60, 7)
             for p in seeded_any.search(query, limit=7, offset=offset, snippets=False)]
    assert paged == whole and len(set(whole)) == len(whole)
    assert seeded_any.count(query) == len(keys(seeded_any, query, match=None, limit=1000))


def test_snippets_mark_the_forms_that_matched(seeded_any):
    paper = next(p for p in seeded_any.search("autoencoder hallucinate", limit=50) if "\x02" in (p.snippet or ""))
    marked = [part.split("\x03")[0].lower() for part in paper.snippet.split("\x02")[1:]]
    assert any(w != "autoencoder" and w.startswith("autoencoder") for w in marked + ["autoencoders"])


def test_tags_and_notes_match_in_any_form(seeded_any):
    key = key_of(seeded_any, "MCR2")
    seeded_any.add_note(key, "pruning heads helps")
    seeded_any.tag([key], add=["hallucinations"])
    assert key in keys(seeded_any, "prune") and key in keys(seeded_any, "hallucination")
    assert key in keys(seeded_any, "MCR^2") and key in keys(seeded_any, "MCR")


def test_cli_marks_partial_matches(seeded, run_cli):
    out = json.loads(run_cli("search", "--json", "sparse", "autoencoder", "temporal").stdout)["papers"]
    assert [p["match"] for p in out][:2] == ["all", "some"]
    text = run_cli("search", "sparse", "autoencoder", "temporal").stdout
    assert "papers hold every word" not in text.splitlines()[0]  # piped: one record per line


def test_separator_line(seeded_any):
    from catalog.cli.output import partial_separator

    papers = seeded_any.search("sparse autoencoder temporal", limit=20)
    assert partial_separator(papers) == "── 1 paper holds every word; these hold some of them ──"


def test_an_exact_phrase_matches_only_that_form(seeded):
    exact = keys(seeded, '="sparse autoencoders"')
    assert exact and set(exact) == set(keys(seeded, '"sparse autoencoders"', match=None)) & set(exact)
    assert set(exact) < set(keys(seeded, '"sparse autoencoder"'))  # the singular finds more
    singular = keys(seeded, '="sparse autoencoder"')
    assert singular and set(singular) < set(keys(seeded, '"sparse autoencoder"')) and set(singular) != set(exact)
    # Negated: in that form only.
    without = keys(seeded, 'sparse -="sparse autoencoders"', match=None)
    assert without and not set(without) & set(exact)
    assert set(without) & set(keys(seeded, '"sparse autoencoder"'))  # other forms stay


def test_an_exact_phrase_is_parsed_as_one_phrase():
    from catalog.searching.query import Text, parse

    (clause,) = parse('="language models"').clauses
    assert clause.options == (Text("language models", phrase=True, exact=True),)
    (clause,) = parse('-="language models"').clauses
    assert clause.negated and clause.options[0].exact


@pytest.mark.parametrize("query", ["interpretab*", "language mod*", "neurons", "SAE", "sparse attention"])
@pytest.mark.parametrize("sort", ["year", "-year", "title", "rating", "added"])
def test_another_order_lists_the_papers_holding_every_word(seeded_any, query, sort):
    """Sorted otherwise than by relevance, the list holds the same papers as the relevance
    order's full matches (a prefix that is no prefix of its stem, interpretab*, included),
    as many as the count without partial matches says."""
    full = set(keys(seeded_any, query))
    listed = [p.key for p in seeded_any.search(query, limit=-1, snippets=False, sort=sort)]
    assert full and sorted(listed) == sorted(full)
    assert seeded_any.count(query, partial=False) == len(listed)
