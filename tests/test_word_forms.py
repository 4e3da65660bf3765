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
def test_a_word_finds_its_other_forms(seeded, word, other):
    one, two = set(keys(seeded, word)), set(keys(seeded, other))
    assert one == two
    assert len(one) > len(keys(seeded, f"={word}")) or len(one) > len(keys(seeded, f"={other}"))


def test_the_issue_examples(seeded):
    assert len(keys(seeded, "neuron")) == 7 and len(keys(seeded, "autoencoder")) == 7
    assert len(keys(seeded, "hallucinate")) == 3 and len(keys(seeded, "prune")) == 2
    assert keys(seeded, "sparse autoencoder temporal")  # "Sparse Autoencoders (SAEs) ... temporal"


def test_exact_forms_rank_first_and_can_be_asked_for_alone(seeded):
    exact = keys(seeded, "=LLM")
    assert exact and set(exact) < set(keys(seeded, "LLM"))
    assert keys(seeded, "LLM")[:len(exact)] == exact  # the typed form outranks other forms
    plural = keys(seeded, "=LLMs")
    assert keys(seeded, "LLMs")[:len(plural)] == plural


def test_phrases_match_across_forms(seeded):
    plural = set(keys(seeded, '"sparse autoencoders"'))
    assert set(keys(seeded, '"sparse autoencoder"')) == plural
    assert plural - set(keys(seeded, "=autoencoder"))


def test_negated_words_hold_in_every_form(seeded):
    for found in (keys(seeded, "attention -neurons", match=None), keys(seeded, "sparse attention -neuron", match=None)):
        assert found and not set(found) & set(keys(seeded, "neuron"))


def test_papers_holding_some_words_follow_marked(seeded):
    papers = seeded.search("sparse autoencoder temporal", limit=20)
    kinds = [p.match for p in papers]
    assert kinds[0] == "all" and "some" in kinds
    assert kinds == sorted(kinds)  # every "all" before every "some"
    assert seeded.count("sparse autoencoder temporal", partial=False) == kinds.count("all")
    assert seeded.count("sparse autoencoder temporal") > kinds.count("all")
    # Filters hold strictly, for partial matches too.
    venue = seeded.search("sparse autoencoder temporal venue:ICML", limit=50)
    assert venue and {p.venue for p in venue} == {"ICML"} and "some" in {p.match for p in venue}


def test_no_partial_matches_when_enough_papers_hold_every_word(seeded):
    assert {p.match for p in seeded.search("model we", limit=200)} == {"all"}  # 74 of 90 hold both
    assert {p.match for p in seeded.search("model", limit=200)} == {"all"}  # one word: all or nothing


def test_pages_continue_across_tiers(seeded):
    query = "sparse autoencoder temporal"
    whole = keys(seeded, query, match=None, limit=60)
    paged = [p.key for offset in range(0, 60, 7)
             for p in seeded.search(query, limit=7, offset=offset, snippets=False)]
    assert paged == whole and len(set(whole)) == len(whole)
    assert seeded.count(query) == len(keys(seeded, query, match=None, limit=1000))


def test_snippets_mark_the_forms_that_matched(seeded):
    paper = next(p for p in seeded.search("autoencoder hallucinate", limit=50) if "\x02" in (p.snippet or ""))
    marked = [part.split("\x03")[0].lower() for part in paper.snippet.split("\x02")[1:]]
    assert any(w != "autoencoder" and w.startswith("autoencoder") for w in marked + ["autoencoders"])


def test_tags_and_notes_match_in_any_form(seeded):
    key = key_of(seeded, "MCR2")
    seeded.add_note(key, "pruning heads helps")
    seeded.tag([key], add=["hallucinations"])
    assert key in keys(seeded, "prune") and key in keys(seeded, "hallucination")
    assert key in keys(seeded, "MCR^2") and key in keys(seeded, "MCR")


def test_cli_marks_partial_matches(seeded, run_cli):
    out = json.loads(run_cli("search", "--json", "sparse", "autoencoder", "temporal").stdout)["papers"]
    assert [p["match"] for p in out][:2] == ["all", "some"]
    text = run_cli("search", "sparse", "autoencoder", "temporal").stdout
    assert "papers hold every word" not in text.splitlines()[0]  # piped: one record per line


def test_separator_line(seeded):
    from catalog.output import partial_separator

    papers = seeded.search("sparse autoencoder temporal", limit=20)
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
    from catalog.query import Text, parse

    (clause,) = parse('="language models"').clauses
    assert clause.options == (Text("language models", phrase=True, exact=True),)
    (clause,) = parse('-="language models"').clauses
    assert clause.negated and clause.options[0].exact
