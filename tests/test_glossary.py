"""Issue 32, item 2: the field's common acronyms (catalog/searching/acronyms.tsv) are understood
though no abstract of the catalog defines them, both ways; the abstracts' own win."""

from __future__ import annotations

import pytest

from catalog.searching import glossary
from catalog.searching.glossary import Entry, Glossary


def test_the_bundled_file_reads_and_holds_the_issue_acronyms():
    g = glossary.curated()
    for short in ("RLHF", "SSM", "VLM", "TDA", "XAI", "GNN", "ViT", "LoRA", "MoE", "KV cache", "mech interp"):
        assert g.long_forms(short), short
    assert len(g.entries) >= 150
    assert len({(e.short, e.long) for e in g.entries}) == len(g.entries)  # no line twice


def test_either_form_any_case_singular_or_plural():
    g = Glossary([Entry("LoRA", "low-rank adaptation"), Entry("VLM", "vision-language model"),
                  Entry("LN", "layer normalization"), Entry("LayerNorm", "layer normalization"),
                  Entry("MAP", "maximum a posteriori", case=True)])
    assert g.long_forms("lora") == g.long_forms("LoRA") == ["low-rank adaptation"]
    assert g.long_forms("VLMs") == ["vision-language model"]
    assert g.short_forms("Vision Language Models") == ["VLM"]
    assert g.long_forms("LayerNorm") == ["layer normalization", "LN"]  # same long form: both
    # An ordinary word, or one or two letters: only in capitals.
    assert g.long_forms("map") == [] and g.long_forms("MAP") == ["maximum a posteriori"]
    assert g.long_forms("ln") == [] and g.long_forms("LN") == ["layer normalization", "LayerNorm"]


def test_a_bad_line_is_named():
    with pytest.raises(ValueError, match="line 2"):
        glossary.parse("# fine\nRLHF only one column\n")


def test_learned_acronyms_win_over_the_glossary():
    curated = Glossary([Entry("SAE", "structural adhesive engineering")])
    texts = {"SAE", "sparse autoencoder"}
    widened = glossary.widen(texts, {"SAE": ["Sparse Autoencoders"]}, {}, curated)
    assert widened["SAE"] == ["Sparse Autoencoders"]
    assert glossary.widen({"SAE"}, {}, {}, curated) == {"SAE": ["structural adhesive engineering"]}


@pytest.mark.parametrize("query, word", [
    ("RLHF", "reinforcement learning from human feedback"),
    ("mech interp circuits", "mechanistic interpretability"),
    ("TDA diffusion models", "data attribution"),
    ("GPT-2 without LayerNorm", "LN"),
    ("SSM", "state space model"),
])
def test_seed_papers_found_through_the_glossary(seeded_any, query, word):
    papers = seeded_any.search(query, limit=5)
    assert papers and papers[0].match == "all"
    assert word.lower() in seeded_any.get(papers[0].key).abstract_text.lower()
    assert seeded_any.words.missing_words(query) is None and seeded_any.words.suggest(query) == []


def test_the_long_form_finds_the_short_one(seeded_any):
    by_short = {p.key for p in seeded_any.search("SSM", limit=50) if p.match == "all"}
    assert by_short and by_short <= {p.key for p in seeded_any.search("state space model", limit=50)
                                     if p.match == "all"}
    rlhf = {p.key for p in seeded_any.search("reinforcement learning from human feedback", limit=50)
            if p.match == "all"}
    assert rlhf and {p.key for p in seeded_any.search("RLHF", limit=50) if p.match == "all"} <= rlhf


def test_added_acronyms_win_and_are_found_both_ways(seeded_any):
    assert seeded_any.search("ZQA") == []
    assert seeded_any.words.add_acronym("ZQA", "attention sink") is True
    assert seeded_any.words.add_acronym("zqa", "Attention  sinks") is False  # the same, again
    assert [a.as_json() for a in seeded_any.words.acronyms()] == [{"short": "ZQA", "long": "attention sink"}]
    sink = {p.key for p in seeded_any.search('"attention sink"', limit=50)}
    assert sink and {p.key for p in seeded_any.search("ZQA", limit=50)} == sink
    assert ("zqa",) in seeded_any.highlight_terms("attention sink").stems  # and the other way
    # An added meaning wins over the abstracts' own (SAE: sparse autoencoders).
    seeded_any.words.add_acronym("SAE", "attention sink")
    assert {p.key for p in seeded_any.search("SAE", limit=50) if p.match == "all"} \
        == {p.key for p in seeded_any.search("=SAE OR =SAEs", limit=50)} | sink
    assert seeded_any.words.remove_acronym("SAE") == 1 and seeded_any.words.remove_acronym("zqa") == 1
    assert seeded_any.words.acronyms() == []


@pytest.mark.parametrize("short, long, message", [
    ("  ", "something here", "no short form"),
    ("SAE", "s.a.e", "same words"),
    ("SAE", "!!", "no long form"),
])
def test_bad_acronyms_get_one_line(empty_catalog, short, long, message):
    from catalog.errors import CatalogError

    with pytest.raises(CatalogError, match=message):
        empty_catalog.words.add_acronym(short, long)


def test_cli_adds_lists_and_removes(seeded, run_cli):
    added = run_cli("acronyms", "add", "PLASH", "prototype", "linear", "attention")
    assert added.exit_code == 0 and "Added: PLASH = prototype linear attention" in added.stderr
    assert run_cli("acronyms").stdout.split() == ["PLASH", "prototype", "linear", "attention"]
    assert run_cli("acronyms", "remove", "PLASH").exit_code == 0
    again = run_cli("acronyms", "remove", "PLASH")
    assert again.exit_code == 1 and "no acronym PLASH was added" in again.stderr
