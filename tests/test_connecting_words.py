"""Connecting words (`versus`, `via`, `using`; catalog/searching/connecting.py): a query of
other words does not require them, so the one paper that happens to say "versus" no longer
outranks the paper on exactly the query's topics; typed `=versus` they are required."""

from __future__ import annotations

from pathlib import Path

from catalog.library import Catalog

QUERY = "chain-of-thought versus latent reasoning"
ON_TOPIC = "v4fsw48"  # "Chain of thought (CoT) ... In contrast, latent thought reasoning ..."
SAYS_VERSUS = "49gs5cx"  # RISE: reasoning vectors; says "versus" once, "latent" once


def test_the_paper_on_the_topics_comes_before_the_one_saying_versus(seeded_any):
    papers = seeded_any.search(QUERY, limit=5, snippets=False)
    assert [p.key for p in papers[:2]] == [ON_TOPIC, SAYS_VERSUS]
    assert [p.match for p in papers] == ["all", "all", "some", "some", "some"]


def test_an_exact_connecting_word_is_required(seeded_any):
    papers = seeded_any.search("chain-of-thought =versus latent reasoning", limit=5, snippets=False)
    assert papers[0].key == SAYS_VERSUS and [p.key for p in papers if p.match == "all"] == [SAYS_VERSUS]


def test_a_connecting_word_alone_lists_no_paper(seeded_any):
    """`via` is in 20 seed papers; none of them is listed for `via` beside a word no paper holds."""
    attention = {p.key for p in seeded_any.search("attention", limit=200, snippets=False)}
    papers = seeded_any.search("subquadratic via attention", limit=200, snippets=False)
    assert papers and {p.key for p in papers} <= attention
    assert seeded_any.search("via", limit=200, snippets=False)  # alone, it is a word like any
    assert seeded_any.words.missing_words("latent reasoning amongst") is None  # never named missing


def _paper_list(folder: Path, abstracts: list[str]) -> Path:
    path = folder / "list.txt"
    path.write_text("ICML 2026 Papers\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


def test_a_connecting_word_never_outweighs_a_word_naming_a_topic(tmp_path):
    """No paper holds both `zeugma` and `rhetoric`: the one on zeugma (a rare word) comes before
    the one holding the commoner `rhetoric` and the rarest word of all, `versus`."""
    abstracts = [f"Classical rhetoric in setting number {n}, studied with care." for n in range(9)]
    abstracts += ["Rhetoric versus logic: which persuades, studied with care.",
                  "The zeugma appears in poems, and we catalogue its uses.",
                  "A survey of unrelated matters, nothing more than that."]
    catalog = Catalog.open(tmp_path / "c.db")
    assert not catalog.import_paths([_paper_list(tmp_path, abstracts)]).errors
    papers = catalog.search("zeugma versus rhetoric", limit=20, snippets=False)
    assert "zeugma" in catalog.get(papers[0].key).abstract_text
    assert "versus" in catalog.get(papers[1].key).abstract_text
    assert len(papers) == 11  # the survey holds none of the words
    catalog.close()
