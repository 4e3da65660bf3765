"""Display text: what a reader sees and what search and deduplication compare."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.text.headlines import headline
from catalog.text.cjk import has_cjk
from catalog.text.normalize import normalize
from catalog.text.terminal import safe
from catalog.text.tex import render, search_extra

SEEDS = Path(__file__).resolve().parents[1] / "seeds"


def seed_abstracts() -> list[str]:
    """Every abstract in the bundled seeds: a header line, then one per paragraph."""
    out = []
    for path in sorted(SEEDS.glob("*.txt")):
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")[1:]
        out += [p.strip() for p in paragraphs if p.strip()]
    return out


# --- render: math --------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        (r"$\text{MCR}^2$", "MCR²"),
        (r"$\mathcal{O}$", "𝒪"),
        (r"$\mathbb{Z}$", "ℤ"),
        (r"$96\\%$", "96%"),
        (r"$\widetilde{O}({1}/{\varepsilon^7})$", "Õ(1/ε⁷)"),
        (r"$\varepsilon$", "ε"),
        (r"$x^2$", "x²"),
        (r"$W_1$", "W₁"),
        (r"$I^{-1}$", "I⁻¹"),
        (r"$a \to b$", "a → b"),
        (r"$2\times$", "2×"),
        (r"$G=(V,E^+ \cup E^-)$", "G=(V,E⁺ ∪ E⁻)"),
        (r"$M\in\mathbb{Z}_{>0}$", "M∈ℤ_{>0}"),
        (r"$\textbf{FAME}$", "FAME"),
        (r"$VERI{\large X}+$", "VERIX+"),
        (r"$\sum_{i=1}^I$", "∑ᵢ₌₁ᴵ"),
    ],
)
def test_render_math_span(source, shown):
    assert render(source) == shown


def test_render_math_inside_prose():
    text = r"inspired by the geometric insight of $\text{MCR}^2$, whose updates"
    assert render(text) == "inspired by the geometric insight of MCR², whose updates"


def test_script_without_unicode_form_stays_readable():
    # q has no Unicode subscript; the text must still say x-sub-q.
    assert render(r"$x_{\mathrm{q}}$") == "x_q"


@pytest.mark.parametrize(
    "text",
    ["costs $5 today", "between $5 and $10", "a lone $ sign", "ends with $", r"escaped \$x$"],
)
def test_unpaired_dollar_is_kept(text):
    assert "$" in render(text)


# --- render: emphasis and text-mode TeX ---------------------------------------------


def test_render_nested_markdown_emphasis():
    text = "we introduce ***Feature Activation Coverage* (FAC)** which measures"
    assert render(text) == "we introduce Feature Activation Coverage (FAC) which measures"


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("a *word* here", "a word here"),
        ("a **bold** here", "a bold here"),
        ("**R**easoning **H**allucination", "Reasoning Hallucination"),
        ("**(*i*)** sparse *bimodal* atoms", "(i) sparse bimodal atoms"),
        ("an _underscored_ word", "an underscored word"),
        (r"we introduce \emph{Contribution Weights}, a", "we introduce Contribution Weights, a"),
        (r"\textbf{SAFER} (\underline{S}ubspace-\underline{A}ware)", "SAFER (Subspace-Aware)"),
        (r"\textit{Patronus}", "Patronus"),
        (r"with 0.42\% sparsity", "with 0.42% sparsity"),
        ("architecture---Temporal SAE---with", "architecture—Temporal SAE—with"),
    ],
)
def test_render_emphasis_to_plain_text(source, shown):
    assert render(source) == shown


@pytest.mark.parametrize("text", ["2 * 3 * 4", "snake_case_name", "a * b", "file_name_here.py"])
def test_render_leaves_non_emphasis_alone(text):
    assert render(text) == text


def test_render_seed_abstracts_have_no_markup_left():
    for abstract in seed_abstracts():
        shown = render(abstract)
        assert "**" not in shown
        assert "\\emph" not in shown and "\\textbf" not in shown and "\\text{" not in shown
        assert "$" not in shown


def test_render_strips_terminal_escapes():
    assert render("bad \x1b[31mred\x1b[0m text\x07") == "bad red text"


# --- headline ----------------------------------------------------------------------


def test_headline_leads_with_introduced_name():
    abstract = (
        "Attention is costly. We introduce PLASH, an attention block whose cost grows "
        "linearly in the number of keys. Experiments show gains."
    )
    assert headline(abstract).startswith("PLASH")


def test_headline_uses_acronym_in_parentheses():
    abstract = (
        "Classical influence functions face challenges. We propose the local Bayesian "
        "influence function (BIF), an extension of classical influence functions."
    )
    assert headline(abstract).startswith(("BIF", "Local Bayesian influence function (BIF)"))


@pytest.mark.parametrize(
    ("abstract", "start"),
    [
        ("We propose a framework, named FAC Synthesis, that uses features.", "FAC Synthesis"),
        ("We study credit. We consider an approach which we call retrofitting.", "Retrofitting"),
        ("We propose $\\textbf{FAME}$ (Formal Abstract Minimal Explanations), a class.", "FAME"),
    ],
)
def test_headline_naming_patterns(abstract, start):
    assert headline(abstract).startswith(start)


def test_headline_falls_back_to_first_sentence():
    abstract = "Large models are hard to audit. Nobody knows why. It is hard."
    assert headline(abstract) == "Large models are hard to audit"


@pytest.mark.parametrize(
    ("abstract", "shown"),
    [
        # A finding: what follows "we show that", as a sentence of its own.
        ("Mixture of Experts models can outperform dense networks. We study a regime. We show that "
         "sparse expert activation acts as a noise filter: compared to a dense estimator, it wins.",
         "Sparse expert activation acts as a noise filter"),
        # What the paper proposes, without "a novel" and the like.
        ("Diffusion models memorize. We develop a novel pruning-based method that reduces "
         "memorization while maintaining quality.",
         "Pruning-based method that reduces memorization while maintaining quality"),
        ("Disempowerment matters. We present the first large-scale empirical analysis of "
         "disempowerment patterns in AI assistant interactions, analyzing 1.5 million consumer Claude.ai "
         "conversations using a privacy-preserving approach.",
         "Large-scale empirical analysis of disempowerment patterns in AI assistant interactions"),
        # What the paper studies, when it proposes and shows nothing.
        ("We study d-dimensional unbiased mean estimation in the single-message shuffle model, where "
         "each user sends a message.", "D-dimensional unbiased mean estimation in the single-message shuffle model"),
        ("Layer norm is everywhere. This paper studies a fundamental yet often overlooked premise in "
         "evolutionary multi-view classification (EMVC): the impact of label noise.",
         "Fundamental yet often overlooked premise in evolutionary multi-view classification"),
        ("In this work, we investigate the impact of FLS on generalization in deep networks. It matters.",
         "Impact of FLS on generalization in deep networks"),
    ],
)
def test_headline_from_the_contribution_sentence(abstract, shown):
    assert headline(abstract) == shown


def test_headline_prefers_a_finding_to_what_is_studied():
    abstract = ("We study an iso-parameter regime. We show that sparse activation acts as a filter. "
                "We introduce nothing else.")
    assert headline(abstract) == "Sparse activation acts as a filter"


def test_headline_keeps_the_method_name_over_a_contribution():
    abstract = "We show that attention is costly. We introduce PLASH, an attention block."
    assert headline(abstract) == "PLASH: an attention block"


def test_headline_ignores_contribution_sentences_that_say_too_little():
    # "we show that this holds" names nothing: the first sentence says more.
    abstract = "Large models are hard to audit in practice. We show that this holds."
    assert headline(abstract) == "Large models are hard to audit in practice"


def test_headline_is_short_and_cut_on_a_word():
    abstract = "word " * 100
    shown = headline(abstract)
    assert len(shown) <= 90 and shown == " ".join(["word"] * 12)  # at most 12 words, no "…"


@pytest.mark.parametrize(("abstract", "shown"), [
    # Issue 32's: each was a sentence cut mid-phrase with "…".
    ("Vision–language models (VLMs) align images and text with remarkable success, yet the "
     "geometry of their shared embedding space remains poorly understood.",
     "Vision–language models align images and text with remarkable success"),
    ("To address this, we introduce a systematic approach for identifying and characterizing "
     '"conceptual blindspots" -- concepts present in the training data but absent.',
     'Systematic approach for identifying and characterizing "conceptual blindspots"'),
    ("We propose HoloFair, a comprehensive benchmark framework for multidimensional demographic "
     "bias evaluation in text-to-image generation across many axes.",
     "HoloFair: a comprehensive benchmark framework"),  # the whole phrase is over 90 characters
])
def test_a_long_headline_ends_where_a_phrase_does(abstract, shown):
    assert headline(abstract) == shown


def test_seed_headlines_are_whole_short_phrases():
    """0 of the seeds' headlines end in "…"; each is 4-12 words, or a name and what it stands
    for ("L2M: Learning-to-Measure")."""
    for abstract in seed_abstracts():
        shown = headline(abstract)
        assert not shown.endswith(("…", "...")), shown
        assert len(shown.split()) <= 12 and len(shown) <= 90, shown
        assert len(shown.split()) >= 4 or ":" in shown or any(c.isupper() for c in shown[1:]), shown
        assert shown.split()[-1].lower() not in {"the", "a", "an", "of", "to", "for", "and", "with"}, shown


def test_headline_of_empty_text_is_empty():
    assert headline("") == ""
    assert headline("   \n ") == ""


def test_headline_renders_markup_on_every_seed():
    for abstract in seed_abstracts():
        shown = headline(abstract)
        assert 10 <= len(shown) <= 90, shown
        assert "$" not in shown and "*" not in shown and "\\" not in shown, shown


def test_headline_is_deterministic():
    abstracts = seed_abstracts()
    assert [headline(a) for a in abstracts] == [headline(a) for a in abstracts]


def test_headline_accepts_the_rendered_text():
    # The importer renders every abstract anyway and passes that along.
    for abstract in seed_abstracts():
        assert headline(abstract, rendered=render(abstract)) == headline(abstract)


def test_headline_reads_every_sentence_for_a_name():
    # Sentences are split lazily and most are skipped by cheap checks, but a
    # name coined late in a long abstract is still found.
    abstract = "Prior methods are slow and brittle in practice. " * 30
    abstract += "We introduce PLASH, an attention block. It is fast."
    assert headline(abstract) == "PLASH: an attention block"


@pytest.mark.parametrize(
    ("abstract", "shown"),
    [
        ("Prior work (e.g. Smith et al. Jones) is slow. We study why.",
         "Prior work (e.g. Smith et al. Jones) is slow"),
        ("Is attention costly? We study why! It is hard.", "Is attention costly?"),
        ("Is it costly! It is. We propose FOO-Net, a model.", "FOO-Net: a model"),
        ("Attention is costly.\nWe\tintroduce PLASH,\n an\tattention\n\nblock.",
         "PLASH: an attention block"),
    ],
)
def test_headline_sentence_boundaries_and_whitespace(abstract, shown):
    assert headline(abstract) == shown


# --- search_extra ------------------------------------------------------------------


def test_search_extra_spells_math_in_ascii():
    tokens = search_extra(r"the insight of $\text{MCR}^2$ helps").split()
    assert {"MCR2", "MCR", "2"} <= set(tokens)


def test_search_extra_names_greek_letters():
    tokens = search_extra(r"length-$\tau$ with $\varepsilon$ error").split()
    assert {"tau", "epsilon"} <= set(tokens)


def test_search_extra_subscripts():
    assert {"W1", "W", "1"} <= set(search_extra("the $W_1$ distance").split())


def test_search_extra_empty_without_math():
    assert search_extra("plain words only") == ""
    assert search_extra("costs $5 today") == ""


# --- normalize, has_cjk, strip_control ----------------------------------------------


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_normalize_fast_path_for_ascii_matches_collapsing_every_whitespace(text):
    # Dedupe fingerprints hash this: the fast path must give exactly the general answer.
    assert normalize(text) == " ".join(text.lower().split())


def test_normalize_nfkc_case_and_whitespace():
    assert normalize("  Ｆｕｌｌｗｉｄｔｈ\u00a0 TEXT\n\tHere ") == "fullwidth text here"
    assert normalize("ﬁne Straße") == normalize("FINE STRASSE")
    assert normalize("MCR²") == "mcr2"


def test_has_cjk():
    assert has_cjk("ICML 2026 论文列表")
    assert has_cjk("カタカナ") and has_cjk("ひらがな") and has_cjk("한국어")
    assert not has_cjk("Plain English, naïve café, ε and ∑")


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[1;31mred\x1b[0m", "red"),
        ("title\x1b]0;pwned\x07 done", "title done"),
        ("a\x00b\x08c\x7fd\x9be", "abcde"),
        ("keep\nlines\tand tabs", "keep\nlines\tand tabs"),
        ("carriage\rreturn", "carriage return"),  # a lone CR ends a line: it must not join words
        ("crlf\r\nline", "crlf\nline"),
        ("lone \x1b escape", "lone escape"),
        ("plain ✓ text", "plain ✓ text"),
    ],
)
def test_strip_control(raw, clean):
    assert safe(raw) == clean


# --- never raise -------------------------------------------------------------------

# Fragments that exercise the TeX and Markdown paths more often than random text.
tex_soup = st.lists(
    st.sampled_from(list("$*_\\{}^ ~%&#`-ab1 \n\t\x1b[") + ["\\text", "\\frac", "\\emph{", "---"]),
    max_size=60,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), tex_soup))
def test_never_raises_on_arbitrary_text(text):
    shown = render(text)
    assert isinstance(search_extra(text), str)
    title = headline(text)
    assert len(title) <= 90
    assert "$" not in title and "*" not in title
    assert safe(shown) == shown


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300), tex_soup))
def test_headline_given_rendered_text_is_the_same(text):
    assert headline(text, rendered=render(text)) == headline(text)


def test_render_styled_keeps_emphasis_and_scripts_as_spans():
    from catalog.text.tex import render_styled

    def shown(source):
        text, spans = render_styled(source)
        return text, [(text[a:b], kind) for a, b, kind in spans]

    assert shown("the *geometric insight* and **substantial** gains") == (
        "the geometric insight and substantial gains",
        [("geometric insight", "italic"), ("substantial", "bold")])
    assert shown(r"where $M\in\mathbb{Z}_{>0}$ is small") == ("where M∈ℤ>0 is small", [(">0", "sub")])
    assert shown(r"$x_{\mathrm{q}}$, $\sum_{i=1}^I$") == ("xq, ∑ᵢ₌₁ᴵ", [("q", "sub")])
    assert shown(r"\textbf{A} \emph{b} __c__ _d_") == ("A b c d", [("A", "bold"), ("b", "italic"),
                                                                   ("c", "bold"), ("d", "italic")])
    assert shown("snake_case, 2*3*4 and \ue010stray marks\ue011") == ("snake_case, 2*3*4 and stray marks", [])


@given(st.text(alphabet="ab *_$^{}\\\ue001\ue010", max_size=40))
def test_render_styled_spans_stay_inside_the_text(source):
    from catalog.text.tex import render_styled

    text, spans = render_styled(source)
    assert all(0 <= a < b <= len(text) for a, b, _ in spans)
    assert not any("\ue000" <= ch <= "\ue013" for ch in text)
