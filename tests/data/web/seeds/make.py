"""Writes the hand-written replay answers in this folder (see ../SOURCE): arXiv searches and
one OpenReview search for a sample of the bundled seed papers (seeds/, ICML and ICLR 2026),
shaped exactly as the recorded answers in ../arxiv/ and ../../../test_web_enrich.py's
OpenReview note. Titles, authors and arXiv ids are invented (the ids are numbered above
2601.99000, which arXiv never reached); each matched entry's abstract is the seed's own,
with its first sentence reworded and its lines wrapped, as arXiv and a conference list
differ. The near misses are other papers on the same topic, written for this sample.

Run from the repository: python tests/data/web/seeds/make.py  (then check routes.json's
seed routes, which it prints)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).parent
REPO = HERE.parents[3]
TESTING = HERE.parent / "arxiv" / "search_testing.xml"


def seed(file_prefix: str, number: int) -> str:
    path = next((REPO / "seeds").glob(f"{file_prefix}_*.txt"))
    return [p.strip() for p in path.read_text("utf-8").split("\n\n") if p.strip()][1 + number]


def reworded(abstract: str, first: str) -> str:
    """The abstract with its first sentence replaced, wrapped as arXiv's summaries are."""
    rest = abstract.split(". ", 1)[1]
    return "\n".join(textwrap.wrap(f"{first} {rest}", 80))


NEAR = {
    "analogy": ("Large language models are often said to reason by analogy, but benchmarks mix analogical "
                "problems with deduction and retrieval. We build a suite of analogy tasks that vary which "
                "properties two entities share and test whether pretrained models transfer attributes between "
                "them. Across model families from 1B to 70B parameters, transfer succeeds mostly when the shared "
                "properties are frequent in pretraining text, and fails for synthetic entities. Probing shows "
                "that analogical answers correlate with the distance between entity representations, suggesting "
                "that analogy in these models is driven by surface co-occurrence rather than a learned mechanism."),
    "attribution": ("Gradient-based attributions of deep networks change sharply under small adversarial "
                    "perturbations of the input, which undermines explainability. Prior defenses add an explicit "
                    "curvature penalty to training and are costly. We propose a cheap attribution smoothing "
                    "regularizer computed from a single extra backward pass, and show across image and text "
                    "architectures that it reduces attribution fragility by half while keeping accuracy. We also "
                    "find that attention-based attributions in transformers remain fragile under our regularizer "
                    "and discuss why softmax normalization makes them hard to stabilize."),
    "basins": ("Mode connectivity shows that minima found by stochastic gradient descent are joined by paths of "
               "low loss. We ask whether optimizers can use these paths: we train networks with large learning "
               "rates and label noise and track whether solutions drift along connecting curves. They rarely do. "
               "We explain this with a simple diffusion model in which the width of the valley shrinks along the "
               "path, and we verify empirically that flatter endpoints attract the dynamics. The analysis suggests "
               "new ways to encourage exploration between basins in deep learning landscapes and improves "
               "connectivity-based model merging."),
    "gradients": ("Integrated Gradients attributes a prediction to input features by integrating gradients along "
                  "a straight path from a baseline, but the path crosses regions where gradients are noisy and "
                  "explanations become unreliable. We propose choosing the integration path with a learned "
                  "normalizing flow so that intermediate inputs stay close to the data. On image classifiers our "
                  "path-based attribution methods give sharper maps and score higher on deletion and insertion "
                  "metrics than Guided Integrated Gradients and other baselines, at a moderate extra cost."),
    "counterfactual": ("Counterfactual explanations tell a user which input changes would flip a model's "
                       "prediction, but generated counterfactuals often change many features and are hard to act "
                       "on. We present a sparsification step for any counterfactual generator: it ranks the edited "
                       "features by Shapley values of the prediction change and keeps the fewest needed to keep the "
                       "flip. We prove the result stays valid under a Lipschitz assumption, and across tabular "
                       "datasets and several generators it removes more than half of the edits with little loss in "
                       "validity, improving actionability for end users."),
}

# (seed file, number in it, the word that routes its search, the answer: entries of the arXiv
# feed (id, title, authors, abstract) in order, and the OpenReview note when it is found there)
SAMPLE = [
    ("000", 0, "analytically", "match", [
        ("2601.99011", "Analogy Without Understanding? Attribute Transfer in Pretrained Language Models",
         ["Dana Okafor", "Piotr Zieliński"], NEAR["analogy"]),
        ("2601.99012", "When Can Analogical Reasoning Emerge? Aligned Representations in a Minimal Transformer",
         ["Lena Fischer", "Tomás Ibáñez", "Wei Zhang"],
         "reworded:Evaluations that conflate several kinds of reasoning make it hard to understand how large "
         "language models reason.")]),
    ("001", 2, "experimentally", "match", [
        ("2601.99021", "Attribution Robustness for Free: Implicit Regularization in SGD Learning Dynamics",
         ["Priya Raman", "Jonas Müller"],
         "reworded:Reliable explainability in deep learning requires attributions that are robust to adversarial "
         "perturbations, yet existing approaches usually rely on costly explicit regularization."),
        ("2601.99022", "Cheap Attribution Smoothing for Robust Explanations", ["Ikaika Kahale"], NEAR["attribution"])]),
    ("002", 2, "asymptotically", "match", [
        ("2601.99031", "Optimal Mean Estimation in the Single-Message Shuffle Model",
         ["Søren Kjær", "Ana Lúcia Duarte", "Hiro Tanaka"],
         "reworded:We consider unbiased mean estimation in $d$ dimensions in the single-message shuffle model, "
         "where each user sends one privatized message and the analyzer sees only the shuffled multiset of "
         "reports.")]),
    ("003", 0, "invertible", "match", [
        ("testing", 0),  # a recorded entry on another topic comes first
        ("2601.99041", "The Local Bayesian Influence Function: Hessian-Free Data Attribution at Scale",
         ["Maya Cohen", "Rohan Mehta", "Zoë Lambert"],
         "reworded:Applied to deep neural networks, classical influence functions struggle with Hessians that "
         "cannot be inverted and with high-dimensional parameter spaces.")]),
    ("004", 1, "memorization", "match", [
        ("2601.99051", "A Dual Separation Theory of Memorization in Diffusion Models",
         ["Chen Yu", "Olga Petrova", "Mateusz Wójcik"],
         "reworded:Although diffusion models succeed across many domains, they are prone to "
         "memorization---reproducing their training data instead of generating new samples.")]),
    ("003", 2, "connectivity", "openreview", [
        ("2601.99061", "Why Optimizers Do Not Travel Along Connected Minima", ["Rui Costa"], NEAR["basins"])]),
    ("000", 2, "integration", "no match", [
        ("2601.99071", "Flow-Guided Integration Paths for Integrated Gradients", ["Hannah Weiß", "Yusuf Demir"],
         NEAR["gradients"])]),
    ("004", 2, "actionability", "no match", [
        ("2601.99081", "Sparse Counterfactuals by Shapley Ranking", ["Marta Nowak"], NEAR["counterfactual"])]),
]
OPENREVIEW = {"id": "EntrBarr26", "title": "Entropic Barriers Confine Optimization to a Single Basin",
              "authors": ["Amélie Laurent", "Kofi Mensah"], "venue": "ICLR 2026 Poster",
              "reworded": "Basins of attraction in the loss landscapes of modern neural networks are often joined "
                          "by low-loss paths, a striking property, yet optimization dynamics usually stay in a "
                          "single convex basin and rarely visit the points between."}


def entry(arxiv_id: str, title: str, authors: list[str], abstract: str) -> str:
    people = "".join(f"    <author>\n      <name>{escape(a)}</name>\n    </author>\n" for a in authors)
    return (f"  <entry>\n    <id>http://arxiv.org/abs/{arxiv_id}v1</id>\n    <title>{escape(title)}</title>\n"
            f"    <updated>2026-01-20T18:00:00Z</updated>\n"
            f"    <link href=\"https://arxiv.org/abs/{arxiv_id}v1\" rel=\"alternate\" type=\"text/html\"/>\n"
            f"    <link href=\"https://arxiv.org/pdf/{arxiv_id}v1\" rel=\"related\" type=\"application/pdf\" title=\"pdf\"/>\n"
            f"    <summary>{escape(abstract)}</summary>\n"
            f"    <category term=\"cs.LG\" scheme=\"http://arxiv.org/schemas/atom\"/>\n"
            f"    <published>2026-01-20T18:00:00Z</published>\n"
            f"    <arxiv:primary_category term=\"cs.LG\"/>\n{people}  </entry>\n")


def recorded_entry(n: int) -> str:
    text = TESTING.read_text("utf-8")
    starts = [i for i in range(len(text)) if text.startswith("  <entry>", i)]
    return text[starts[n]:text.index("</entry>\n", starts[n]) + len("</entry>\n")]


def feed(word: str, entries: list[str]) -> str:
    return ("<?xml version='1.0' encoding='UTF-8'?>\n<feed xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\" "
            "xmlns:arxiv=\"http://arxiv.org/schemas/atom\" xmlns=\"http://www.w3.org/2005/Atom\">\n"
            f"  <id>https://arxiv.org/api/seed-sample-{word}</id>\n"
            f"  <title>arXiv Query: search_query=all:{word}&amp;id_list=&amp;start=0&amp;max_results=5</title>\n"
            "  <updated>2026-12-07T12:00:00Z</updated>\n"
            f"  <link href=\"https://arxiv.org/api/query?search_query=all:{word}&amp;start=0&amp;max_results=5&amp;id_list=\" "
            "type=\"application/atom+xml\"/>\n"
            "  <opensearch:itemsPerPage>5</opensearch:itemsPerPage>\n"
            f"  <opensearch:totalResults>{len(entries)}</opensearch:totalResults>\n"
            "  <opensearch:startIndex>0</opensearch:startIndex>\n" + "".join(entries) + "</feed>\n")


def asked(abstract: str, word: str) -> list[str]:
    """What routes a search to its answer: `word` and the longest other word it asks for that
    no other paper's search asks for with it (the other seed papers', and test_web_enrich.py's,
    which get the recorded search on testing)."""
    import sys

    sys.path.insert(0, str(REPO))
    from catalog.importing.enrich import search_words
    from tests.test_web_enrich import NEAR_MISS, SAME

    chosen = search_words(abstract)
    assert word in chosen, (word, chosen)
    papers = [p.strip() for path in sorted((REPO / "seeds").glob("*.txt"))
              for p in path.read_text("utf-8").split("\n\n")[1:] if p.strip()]
    others = [set(search_words(a)) for a in [*papers, SAME, NEAR_MISS] if a != abstract]
    other = next(w for w in sorted(chosen, key=len, reverse=True)
                 if w != word and not any({word, w} <= o for o in others))
    return [f"all:{word}", f"all:{other}"]


def main() -> None:
    routes = []
    for prefix, number, word, _, answer in SAMPLE:
        abstract = seed(prefix, number)
        entries = []
        for item in answer:
            if item[0] == "testing":
                entries.append(recorded_entry(item[1]))
                continue
            arxiv_id, title, authors, text = item
            text = reworded(abstract, text.removeprefix("reworded:")) if text.startswith("reworded:") else text
            entries.append(entry(arxiv_id, title, authors, text))
        name = f"arxiv_{prefix}_{number}_{word}.xml"
        (HERE / name).write_text(feed(word, entries), "utf-8")
        routes.append({"service": "arxiv", "path": "/api/query", "query_contains": {"search_query": asked(abstract, word)},
                       "file": f"seeds/{name}", "type": "application/atom+xml"})
    o = OPENREVIEW
    abstract = reworded(seed("003", 2), o["reworded"]).replace("\n", " ")
    note = {"id": o["id"], "forum": o["id"], "version": 2, "pdate": 1769904000000, "content": {
        "title": {"value": o["title"]}, "authors": {"value": o["authors"]}, "abstract": {"value": abstract},
        "venue": {"value": o["venue"]}, "pdf": {"value": f"/pdf/{o['id']}.pdf"}}}
    (HERE / "openreview_003_2_connectivity.json").write_text(json.dumps({"notes": [note], "count": 1}, ensure_ascii=False,
                                                                         indent=1) + "\n", "utf-8")
    routes.append({"service": "openreview", "path": "/notes/search",
                   "query_contains": {"term": [w.removeprefix("all:") for w in asked(seed("003", 2), "connectivity")]},
                   "file": "seeds/openreview_003_2_connectivity.json", "type": "application/json"})
    print(json.dumps(routes, ensure_ascii=False, indent=None).replace("}, {", "},\n  {"))


if __name__ == "__main__":
    main()
