"""Acronyms the abstracts define: Schwartz-Hearst, plural and common-word handling, learning."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.searching.acronyms import _TOKEN_PUNCT, definitions, learn, long_key, reverse, used_as_words
from catalog.text.tex import render

SEEDS = Path(__file__).resolve().parents[1] / "seeds"


def seed_texts() -> list[str]:
    out = []
    for path in sorted(SEEDS.glob("*.txt")):
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")[1:]
        out += [render(p.strip()) for p in paragraphs if p.strip()]
    return out


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("Sparse Autoencoders (SAEs) are widely used to interpret models.",
         [("SAE", "Sparse Autoencoders")]),
        ("Despite the growing capabilities of recent large language models (LLMs), their",
         [("LLM", "large language models")]),
        ("We propose the local Bayesian influence function (BIF), an extension.",
         [("BIF", "Bayesian influence function")]),
        ("It remains unclear why Mixture of Experts (MoE) models can outperform",
         [("MoE", "Mixture of Experts")]),
        ("compared to a dense estimator, MoEs (mixture of experts) achieve lower error",
         [("MoE", "mixture of experts")]),
        ("A natural realization is Leave-One-Group-Out (LOGO) retraining, which",
         [("LOGO", "Leave-One-Group-Out")]),
        ("We propose GUDA (Group Unlearning-based Data Attribution) for diffusion models.",
         [("GUDA", "Group Unlearning-based Data Attribution")]),
        ("In-context learning (ICL) has demonstrated significant improvements.",
         [("ICL", "In-context learning")]),
        ("Vision–language models (VLMs) align images and text.", [("VLM", "Vision–language models")]),
        ("suffer from personality decay—termed \"Out-of-Character\" (OOC) behavior—during",
         [("OOC", "Out-of-Character")]),
        ("we introduce Robust Subspace Registration(RSR), a Top-k verifier",
         [("RSR", "Robust Subspace Registration")]),
        ("Text-to-Image (T2I) models have made strides", [("T2I", "Text-to-Image")]),
        ("The maximal coding rate reduction (MCR²) objective is proposed",
         [("MCR²", "maximal coding rate reduction")]),
        ("We further propose 3D Consistency (3D-C), a metric", [("3D-C", "3D Consistency")]),
        ("the activation of super neurons within Feed-Forward Network (FFN) layers",
         [("FFN", "Feed-Forward Network")]),
        ("We propose SAFER (Subspace-Aware FEature Reshaping), a novel framework",
         [("SAFER", "Subspace-Aware FEature Reshaping")]),
        ("the confidence gap (CG), which quantifies an LLM’s internal knowledge conflict",
         [("CG", "confidence gap")]),
        ("exposure of personally identifiable information (PII). Building on this",
         [("PII", "personally identifiable information")]),
        # Two in one sentence, and an acronym used again without a definition.
        ("Large language models (LLMs) often employ Retrieval-Augmented Generation (RAG) to "
         "improve factuality. LLMs and RAG are everywhere (see Fig. 3).",
         [("LLM", "Large language models"), ("RAG", "Retrieval-Augmented Generation")]),
    ],
)
def test_definitions_in_the_seeds_style(text, pairs):
    assert definitions(text) == pairs


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        # Initials win, with minor words and later parts of hyphenated words skipped as needed.
        ("a random walk with restart (RWR) is", [("RWR", "random walk with restart")]),
        ("the maximum a posteriori (MAP) estimate", [("MAP", "maximum a posteriori")]),
        ("Local Interpretable Model-agnostic Explanations (LIME) are",
         [("LIME", "Local Interpretable Model-agnostic Explanations")]),
        # No initials spell it: the shortest Schwartz-Hearst long form, from a word's start.
        ("their multiplayer game (MPG) setting", [("MPG", "multiplayer game")]),
        ("a study of Convolutional networks (CNNs) on images", [("CNN", "Convolutional networks")]),
        # Leading articles and prepositions are not part of the long form.
        ("as in the state space models (SSM) of", [("SSM", "state space models")]),
    ],
)
def test_long_form_choice(text, pairs):
    assert definitions(text) == pairs


@pytest.mark.parametrize(
    "text",
    [
        "the task decomposes into (i) recall of the component and (ii) prediction",
        "recently introduced by Livni, Moran, Nissim, and Pabbaraju (2024) who studied it",
        "repetitive structural data (e.g., LaTeX, XML) acts as a catalyst",
        "test accuracy improves (see Fig. 3) in every setting",
        "a matching lower bound (up to multiplicative constants), proving sharpness",
        "Attribution methods (18 of them) and models (7 architectures)",
        "information technology (IT) budgets",  # a common word never becomes an acronym
        "we use the Python Programming Language (Python) here",  # no capitals to spell
        "the rate (R) is",  # one letter
        "sparse coding scheme (SC)",  # the long form must end where the parenthesis starts
        "a likelihood-based scoring rule (ELBO) between",  # the letters are not there in order
        "an archetypal SAE (SAE) on features",  # the short form is one of the words
        "",
        "()",
        "(SAE)",
    ],
)
def test_no_definition(text):
    assert definitions(text) == []


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("Sparse Autoencoders (SAEs", []),  # unbalanced
        ("Sparse Autoencoders SAEs) and more", []),
        ("((Sparse Autoencoders (SAE)", [("SAE", "Sparse Autoencoders")]),
        ("Sparse Autoencoders ((SAE))", []),
        ("a) Sparse Autoencoders (SAE)", [("SAE", "Sparse Autoencoders")]),
        ("the $\\mathcal{O}$ notation (ON) of", []),  # TeX never becomes part of a long form
        ("大型语言模型 (LLM) 是", []),
        ("LLM (大型语言模型) 是", []),
        ("我们研究稀疏自编码器（SAE）。Sparse Autoencoders (SAEs) too", [("SAE", "Sparse Autoencoders")]),
        ("the naïve Bayes classifier (NBC) wins", [("NBC", "naïve Bayes classifier")]),
    ],
)
def test_hostile_text(text, pairs):
    assert definitions(text) == pairs


def test_huge_text_is_read_whole():
    # Unclosed and nested parentheses and a million-letter word: a pattern that backtracks
    # would hang here; how fast it is, against one regex pass, is in benchmarks/text.py.
    from benchmarks.text import HOSTILE

    found = definitions(HOSTILE)
    assert found[0] == ("SAE", "Sparse Autoencoders") and len(found) == 20_000


def test_long_key_ignores_case_hyphens_and_plural():
    assert long_key("Sparse auto-encoders") == long_key("sparse autoencoder") == "sparseautoencoder"
    assert long_key("Large Language Models") == long_key("large language model")
    assert long_key("Vision–language models") == long_key("vision language model")
    assert long_key("graph neural networks") == long_key("Graph Neural Network")
    assert long_key("stochastic differential equations") == "stochasticdifferentialequation"
    assert long_key("Slice Discovery Methodologies") == "slicediscoverymethodology"
    assert long_key("Canonical Correlation Analysis") == "canonicalcorrelationanalysis"  # not -analysi
    assert long_key("process") == "process"


def test_learn_counts_papers_and_normalises():
    texts = [
        "Sparse Autoencoders (SAEs) are used. SAEs are good.",
        "We train sparse auto-encoders (SAEs) on steps.",
        "an Aligned Sparse Autoencoder (SAE) that",
        "A Spectral Adaptive Estimator (SAE) is proposed.",  # a one-off loses to three papers
    ]
    assert learn(texts) == {"SAE": "Sparse Autoencoders"}
    assert reverse(learn(texts)) == {"sparseautoencoder": "SAE"}


def test_learn_drops_ties_and_rare_pairs():
    texts = ["canonical correlation analysis (CCA)", "counterfactual credit attribution (CCA)",
             "mixture of experts (MoE)"]
    assert learn(texts) == {"MoE": "mixture of experts"}
    assert learn(texts, min_papers=2) == {}
    assert learn(texts + ["Mixture of Experts (MoEs) again"], min_papers=2) == {"MoE": "mixture of experts"}


def test_learn_one_paper_counts_once():
    assert learn(["mixture of experts (MoE). Mixture of Experts (MoE)."] * 1, min_papers=2) == {}


def test_learn_drops_short_forms_used_as_ordinary_words():
    texts = ["Regular Integrated Search Engine (RISE) is new.", "With the rise of deep networks",
             "Group Unlearning-based Data Attribution (GUDA). Code: https://github.com/sony/guda"]
    assert learn(texts) == {"GUDA": "Group Unlearning-based Data Attribution"}


def test_learned_from_the_seeds():
    learned = learn(seed_texts())
    assert long_key(learned["SAE"]) == "sparseautoencoder"
    assert long_key(learned["LLM"]) == "largelanguagemodel"
    for short, long in {"ICL": "in-context learning", "OOD": "out-of-distribution", "CoT": "chain of thought",
                        "GNN": "graph neural network", "VLM": "vision language model", "MoE": "mixture of experts",
                        "DP": "differential privacy", "RL": "reinforcement learning"}.items():
        assert long_key(learned[short]) == long_key(long), short
    assert "CCA" not in learned  # two papers, two meanings
    assert "II" not in learned  # "(ii)" is an enumeration in other abstracts
    assert 60 <= len(learned) <= 100


def _spells(short: str, long: str) -> bool:
    letters = [c.lower() for c in short if c.isalpha()]
    rest = iter(long.lower())
    return all(any(c == x for x in rest) for c in letters)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("aAbBsSeE ()-.,;s1²") + ["Sparse ", "Auto ", "(SAE)", "of "]),
                max_size=40).map("".join))
def test_every_definition_spells_its_short_form(text):
    for short, long in definitions(text):
        assert _spells(short, long), (short, long)
        assert "(" not in long and ")" not in long
        assert short.lower() not in {"it", "us", "a", "of"}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_never_raises(text):
    definitions(text)
    learn([text, text])


def _used_as_words_word_by_word(words: set[str], texts: list[str]) -> set[str]:
    """The definition used_as_words keeps: each whitespace-separated token, punctuation
    stripped, compared with the words."""
    return {w.strip(_TOKEN_PUNCT) for text in texts for w in text.split()} & words


def test_used_as_words_finds_tokens_not_substrings():
    texts = ["We (gan) use it, and the organ began.", "An SAE is not sae-like; see (sae).", "x\u2003rl\u3000y"]
    assert used_as_words({"gan", "sae", "it", "an", "rl", "org"}, texts) == {"gan", "sae", "it", "rl"}
    assert used_as_words({"gan"}, iter(["began", "the GAN"])) == set()  # any iterable, case kept


@settings(max_examples=300, deadline=None)
@given(st.sets(st.text(alphabet="aIt.(s", min_size=1, max_size=3), max_size=5),
       st.lists(st.text(alphabet="aIt.(s) ,\n\u00a0\u2028", max_size=40), max_size=6))
def test_used_as_words_matches_word_by_word(words, texts):
    assert used_as_words(words, texts) == _used_as_words_word_by_word(words, texts)
