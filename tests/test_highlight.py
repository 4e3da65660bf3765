from hypothesis import given
from hypothesis import strategies as st

from catalog.searching.highlight import END, START, snippet, spans, terms_of
from catalog.searching.query import parse


def marked_words(text: str) -> list[str]:
    return [part.split(END)[0] for part in text.split(START)[1:]]


def test_words_fold_case_and_diacritics_like_the_index():
    terms = terms_of(parse("resume =MODEL"))
    text = "A Résumé of models: the Model and the MODEL."
    assert [text[s:e] for s, e in spans(text, terms)] == ["Résumé", "Model", "MODEL"]


def test_other_forms_of_a_word_are_marked_as_the_stemmed_index_finds_them():
    terms = terms_of(parse('hallucinate neuron "sparse autoencoder" =LLM'))
    text = "Sparse Autoencoders hallucinated; neurons and a neuron; LLMs, an LLM, sparse codes."
    assert [text[s:e] for s, e in spans(text, terms)] == [
        "Sparse Autoencoders", "hallucinated", "neurons", "neuron", "LLM"]


def test_prefixes_phrases_and_chinese():
    terms = terms_of(parse('interpret* "sparse autoencoders" 模型 -ignored'))
    text = "Interpretability of sparse autoencoders; ignored; 一个模型。"
    assert [text[s:e] for s, e in spans(text, terms)] == [
        "Interpretability", "sparse autoencoders", "模型"]


def test_snippet_centres_on_the_matches_and_marks_cuts():
    text = " ".join(f"w{i}" for i in range(100)) + " target here " + " ".join(f"v{i}" for i in range(100))
    out = snippet(text, terms_of(parse("target")), width=40)
    assert out.startswith("…") and out.endswith("…")
    assert marked_words(out) == ["target"]
    assert len(out) <= 45 and " w" not in out[-4:]


def test_short_text_is_whole():
    assert snippet("Only a model.", terms_of(parse("model"))) == f"Only a {START}model{END}."


@given(st.text(max_size=300), st.text(max_size=30))
def test_never_raises_and_keeps_the_text(text, query):
    out = snippet(text, terms_of(parse(query)))
    plain = out.replace(START, "").replace(END, "")
    assert plain.strip("…") in text.replace(START, "").replace(END, "")


_LETTERS = "abcdeilnrstuyzABELNSÉéèëñßſ²₂×α -.,()"


@given(st.text(alphabet=_LETTERS, max_size=200),
       st.lists(st.text(alphabet=_LETTERS, min_size=1, max_size=12), min_size=1, max_size=3))
def test_the_fast_literal_search_marks_what_the_general_pattern_marks(text, words):
    from catalog.searching.highlight import _unicode_spans

    for query in (" ".join(words), '"' + " ".join(words).replace('"', "") + '"', words[0] + "*"):
        try:
            terms = terms_of(parse(query))
        except Exception:
            continue
        assert spans(text, terms) == _unicode_spans(text, terms), query
