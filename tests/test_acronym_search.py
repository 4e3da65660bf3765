"""Issue 12 item 3: acronyms the abstracts define widen searches, ranked below literal matches."""

from __future__ import annotations

import sqlite3

from catalog.searching.acronyms import winners


def keys(catalog, query: str) -> list[str]:
    return [p.key for p in catalog.search(query, limit=200, snippets=False) if p.match == "all"]


def test_import_stores_the_pairs(seeded, db_path):
    conn = sqlite3.connect(db_path)
    try:
        rows = dict(((s, k), n) for s, k, n in conn.execute("SELECT short, long_key, papers FROM acronym"))
    finally:
        conn.close()
    assert rows[("LLM", "largelanguagemodel")] >= 10 and rows[("SAE", "sparseautoencoder")] >= 3
    assert not {s for s, _ in rows} & {"it", "IT", "US", "us"}


def test_an_acronym_finds_its_long_form_ranked_below_literal_matches(seeded_any):
    literal = set(keys(seeded_any, "=LLM")) | set(keys(seeded_any, "=LLMs"))
    widened = keys(seeded_any, "LLM")
    assert set(widened) > literal  # also papers saying only "large language model(s)"
    assert set(widened[:len(literal)]) == literal
    assert set(keys(seeded_any, '"large language models"')) <= set(widened)
    assert set(keys(seeded_any, '"sparse autoencoder"')) <= set(keys(seeded_any, "SAE"))


def test_a_long_form_finds_its_acronym(seeded_any):
    found = set(keys(seeded_any, "large language model"))
    assert set(keys(seeded_any, "=LLM")) <= found
    assert set(keys(seeded_any, "=LLMs -language")) & found  # papers that only say LLMs
    assert set(keys(seeded_any, '"large language models"')) == found  # quoted, and plural


def test_prefixes_and_exact_words_are_not_widened(seeded_any):
    assert set(keys(seeded_any, "=LLM")) < set(keys(seeded_any, "LLM"))
    assert set(keys(seeded_any, "LLM*")) < set(keys(seeded_any, "LLM"))


def test_the_long_form_most_papers_use_wins_and_ties_or_ordinary_words_never_expand():
    rows = [("CCA", "canonicalcorrelationanalysis", "canonical correlation analysis", 1, False),
            ("CCA", "counterfactualcreditattribution", "counterfactual credit attribution", 1, False),
            ("SAE", "sparseautoencoder", "sparse autoencoders", 4, False),
            ("SAE", "stackedautoencoder", "stacked autoencoder", 1, False),
            ("IT", "informationtheory", "information theory", 3, True)]
    assert winners(rows) == {"sae": ("sparseautoencoder", "sparse autoencoders")}


def _marked(snippet: str | None) -> list[str]:
    return [part.split("\x03")[0].lower() for part in (snippet or "").split("\x02")[1:]]


def test_snippets_mark_the_long_and_short_forms_an_acronym_matched_through(seeded):
    marked = [w for p in seeded.search("SAE", limit=50) for w in _marked(p.snippet)]
    assert any(w.startswith("sparse autoencoder") for w in marked)
    marked = [w for p in seeded.search("large language model", limit=50) for w in _marked(p.snippet)]
    assert "llms" in marked or "llm" in marked
    # An exact form asks for that form only: no expansion is marked.
    assert not any(w.startswith("sparse") for p in seeded.search("=SAE", limit=50) for w in _marked(p.snippet))
