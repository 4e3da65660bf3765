"""Issue 32: a search never comes back empty-handed while one of its words is in a paper.
Papers holding some of the words follow those holding all, the rarest words counting most,
and the words no paper holds are named once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog.library import Catalog

# The issue's queries: each has a word no seed paper holds, and words that some do.
ISSUE_QUERIES = {
    "subquadratic attention": ["subquadratic"],
    "weight-based interpretability": ["weight-based"],
    "zeugmatic attention heads": ["zeugmatic"],
}


@pytest.mark.parametrize("query, missing", ISSUE_QUERIES.items())
def test_a_word_no_paper_holds_leaves_the_others_to_find(seeded_any, query, missing):
    papers = seeded_any.search(query, limit=20)
    assert papers and {p.match for p in papers} == {"some"}
    assert seeded_any.count(query) >= len(papers)
    found = seeded_any.words.missing_words(query)
    assert found is not None and list(found.missing) == missing
    assert found.held and not set(found.held) & set(missing)


def test_the_paper_the_other_words_name_comes_first(seeded_any):
    (first, *_) = seeded_any.search("GPT-2 without BatchNorm", limit=5, snippets=False)
    assert "GPT-2" in first.title  # "All LN layers can be removed from every GPT-2 model"
    assert seeded_any.words.missing_words("GPT-2 without BatchNorm").missing == ("BatchNorm",)


def test_a_compound_no_paper_holds_counts_its_parts_held_apart(seeded_any):
    """No paper says "weight-based": the papers on open-weight models "based" on their
    weights, and on interpretability, come before those on interpretability alone; the
    compound is still named as missing."""
    first = {p.key for p in seeded_any.search("weight-based interpretability", limit=5, snippets=False)}
    alone = seeded_any.search("interpretability -weight", limit=100, snippets=False)
    assert not first & {p.key for p in alone}
    found = seeded_any.words.missing_words("weight-based interpretability")
    assert found.missing == found.apart == ("weight-based",) and found.held == ("interpretability",)


def test_cli_says_a_compounds_words_are_found_apart(seeded, run_cli):
    result = run_cli("search", "weight-based", "interpretability")
    assert ('No paper has "weight-based"; showing papers with "interpretability" and papers with the'
            ' words of "weight-based" apart.') in result.stderr
    alone = run_cli("search", "weight-based", "zeugmatic")  # no other word is found
    assert alone.stdout.strip()
    assert 'No paper has "weight-based", "zeugmatic"; showing papers with the words of "weight-based" apart.' \
        in alone.stderr


def test_nothing_is_missing_when_every_word_or_no_word_is_found(seeded_any):
    assert seeded_any.words.missing_words("sparse autoencoder") is None
    assert seeded_any.words.missing_words("qqzx wwvy") is None  # nothing to show instead
    assert seeded_any.search("qqzx wwvy") == []
    assert seeded_any.words.missing_words("attention") is None  # one word: found or not


def test_filters_and_negated_words_hold_for_partial_matches(seeded_any):
    papers = seeded_any.search("subquadratic attention venue:ICML -mechanism", limit=50, snippets=False)
    assert papers and {p.venue for p in papers} == {"ICML"}
    assert not {p.key for p in papers} & {p.key for p in seeded_any.search("mechanism", limit=200)}


def _paper_list(folder: Path, abstracts: list[str]) -> Path:
    path = folder / "list.txt"
    path.write_text("ICML 2026 Papers\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


def test_a_rare_word_outweighs_two_common_ones(tmp_path):
    """No paper holds all three words: the one paper with the rare word comes before the ten
    holding both common words (by how many words they hold, it would come after them)."""
    abstracts = [f"We study a model of the data in setting number {n} with care." for n in range(10)]
    abstracts += [f"A survey of topic {n} in general terms, no more than that." for n in range(10)]
    abstracts.append("The zeugma appears in rhetoric, and we catalogue its uses.")
    catalog = Catalog.open(tmp_path / "c.db")
    assert not catalog.import_paths([_paper_list(tmp_path, abstracts)]).errors
    papers = catalog.search("zeugma model data", limit=20, snippets=False)
    assert len(papers) == 11 and {p.match for p in papers} == {"some"}
    assert "zeugma" in catalog.get(papers[0].key).abstract_text
    catalog.close()


def test_cli_names_the_missing_word_once_and_marks_partial_matches(seeded, run_cli):
    result = run_cli("search", "subquadratic", "attention")
    assert result.exit_code == 0 and result.stdout.strip()
    assert result.stderr.count("subquadratic") == 1
    assert 'No paper has "subquadratic"; showing papers with "attention".' in result.stderr
    out = json.loads(run_cli("search", "--json", "subquadratic", "attention").stdout)
    assert out["papers"] and {p["match"] for p in out["papers"]} == {"some"}
    assert out["missing_words"] == {"missing": ["subquadratic"], "held": ["attention"], "apart": []}
    assert json.loads(run_cli("search", "--json", "attention").stdout)["missing_words"] is None


def test_terminal_lines_of_partial_matches_start_with_an_approximately_sign(seeded, monkeypatch, capsys):
    from catalog.cli import output

    monkeypatch.setattr(output, "piped", lambda: False)
    papers = seeded.search("sparse autoencoder temporal", limit=5)
    output.print_summaries(papers)
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert not lines[0].startswith("≈") and any(line.startswith("≈ ") for line in lines)
