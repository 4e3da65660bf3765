"""A LaTeX paper cites from the catalog (issue 29): a real .bib, a CSL-JSON file, a RIS file
and a seed list are imported, a document cites 20 of their papers, and it compiles with
`pdflatex` + `bibtex` and the standard `plain` style against `catalog export` and against a
project .bib kept current by `catalog bib add`, without a BibTeX warning; the .bbl keeps
`BERT` and `LoRA` capitalised in titles whatever format they came from (plain lowercases
every title letter that is not in braces). Needs Debian's texlive (.ci/run installs it)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from catalog.cli import main
from catalog.library import Catalog
from tests.conftest import SEEDS

LIBRARIES = Path(__file__).resolve().parent / "data" / "libraries"
TEX = ("pdflatex", "bibtex")
pytestmark = pytest.mark.skipif(
    any(shutil.which(t) is None for t in TEX),
    reason="no LaTeX here (pdflatex, bibtex; apt-get install texlive-latex-base texlive-binaries)")

# Entries of the real .bib (ContextLab's, tests/data/libraries/SOURCE.toml), one of each kind it
# has. Left out: Hume07, whose entry has author and editor, which plain warns about as written.
FROM_BIB = ["Rame72", "Thor13", "AntoEtal24", "LindEtal21", "ShafGood08", "SingEtal24", "BoydEtal14",
            "Depo18", "Mann23a", "MannEtal23b", "Alva02", "Bord08", "PennEtal14", "deBr24", "Nola11",
            "Mann06", "RCor12"]
CSL_JSON = [{
    "id": "devlin2019bert", "type": "paper-conference",
    "title": "BERT: Pre-training of deep bidirectional transformers for language understanding",
    "author": [{"family": "Devlin", "given": "Jacob"}, {"family": "Chang", "given": "Ming-Wei"},
               {"family": "Lee", "given": "Kenton"}, {"family": "Toutanova", "given": "Kristina"}],
    "container-title": "Proceedings of NAACL-HLT", "page": "4171-4186",
    "issued": {"date-parts": [[2019]]}, "DOI": "10.18653/v1/N19-1423"}]
RIS = """TY  - CPAPER
AU  - Hu, Edward J.
AU  - Shen, Yelong
TI  - LoRA: Low-rank adaptation of large language models
T2  - International Conference on Learning Representations
PY  - 2022
UR  - https://openreview.net/forum?id=nZeVKeeFYf9
ER  - 
"""
SEED_TITLE = "Analogical reasoning in LLMs, probed with BERT and LoRA"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120)


def _latex(folder: Path) -> None:
    done = _run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "main", cwd=folder)
    assert done.returncode == 0, done.stdout[-2000:]


def _document(folder: Path, keys: list[str]) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{url}\n\\begin{document}\n"
        f"Cited: \\cite{{{','.join(keys)}}}.\n\\bibliographystyle{{plain}}\n\\bibliography{{refs}}\n"
        "\\end{document}\n")


def _bibtex(folder: Path) -> str:
    """Run bibtex then LaTeX twice, as a user does; the .bbl. BibTeX's warnings fail the test."""
    done = _run("bibtex", "main", cwd=folder)
    log = (folder / "main.blg").read_text()
    assert done.returncode == 0 and "Warning--" not in log, log
    _latex(folder)
    _latex(folder)
    undefined = re.findall(r"Citation `([^']*)' .*undefined", (folder / "main.log").read_text())
    assert undefined == []
    return (folder / "main.bbl").read_text()


def _items(bbl: str) -> dict[str, str]:
    """Each \\bibitem's text, by cite key, on one line."""
    return {m[1]: " ".join(m[2].split()) for m in re.finditer(r"\\bibitem\{([^}]*)\}(.*?)(?=\\bibitem|\\end)", bbl, re.S)}


def _capitals_kept(bbl: str, keys: dict[str, str]) -> None:
    items = _items(bbl)
    assert re.search(r"\{BERT\}: Pre-training of deep", items[keys["bert"]]), items[keys["bert"]]
    # The CSL-JSON item's container and pages, as it wrote them (not the catalog's short venue)
    assert "In {\\em Proceedings of NAACL-HLT}, pages 4171--4186" in items[keys["bert"]], items[keys["bert"]]
    assert re.search(r"\{LoRA\}: Low-rank adaptation", items[keys["lora"]]), items[keys["lora"]]
    seed = items[keys["seed"]]
    assert "{BERT}" in seed and "{LoRA}" in seed and "{LLMs}" in seed, seed


def test_a_paper_citing_twenty_entries_compiles_against_an_export_and_a_kept_bib(tmp_path):
    (tmp_path / "refs.json").write_text(json.dumps(CSL_JSON))
    (tmp_path / "refs.ris").write_text(RIS)
    catalog = Catalog.open(tmp_path / "c.db")
    try:
        report = catalog.import_paths([LIBRARIES / "cdl-sample.bib", tmp_path / "refs.json", tmp_path / "refs.ris",
                                       sorted(SEEDS.iterdir())[0]])
        assert report.errors == []
        found = lambda query: catalog.exchange.export_papers(query)[0]  # noqa: E731
        seed = found('"isolate analogical reasoning"')
        assert seed.title is None  # a seed paper: untitled until the user gives it one
        catalog.set_title(seed.key, SEED_TITLE)
        papers = [found(f"citekey:{k}") for k in FROM_BIB] + [found("Pre-training bidirectional"),
                                                              found("low-rank adaptation"), found(seed.key)]
        catalog.tag([p.key for p in papers], ["paper"])
        keys = [p.cite_key for p in catalog.exchange.export_papers("tag:paper")]
        assert len(set(keys)) == 20 and None not in keys
        seed_key = seed.key
        named = {"bert": papers[17].cite_key, "lora": papers[18].cite_key, "seed": papers[19].cite_key}
        assert named["bert"] == "devlin2019bert"  # the CSL-JSON item's own id
    finally:
        catalog.close()

    runner = CliRunner()
    db = str(tmp_path / "c.db")
    exported = tmp_path / "exported"
    _document(exported, keys)
    done = runner.invoke(main, ["--db", db, "export", "tag:paper", "-o", str(exported / "refs.bib")])
    assert done.exit_code == 0, done.output
    _latex(exported)
    bbl = _bibtex(exported)
    assert sorted(_items(bbl)) == sorted(keys)
    _capitals_kept(bbl, named)

    # The project .bib: the papers tagged `paper`, cut down to what the .aux cites.
    project = tmp_path / "project"
    _document(project, keys[:-1])
    _latex(project)
    done = runner.invoke(main, ["--db", db, "bib", "add", str(project / "refs.bib"), "tag:paper",
                                "--aux", str(project / "main.aux")])
    assert done.exit_code == 0, done.output
    assert (project / "refs.bib").read_text().count("\n@") + 1 == 19
    # A title changed in the catalog is in the project's .bib at once.
    assert runner.invoke(main, ["--db", db, "title", seed_key, SEED_TITLE + ", revised"]).exit_code == 0
    assert "probed with {BERT} and {LoRA}, revised}" in (project / "refs.bib").read_text()
    # The paper cites one more; the .aux says so after LaTeX runs, and `bib sync` follows it.
    _document(project, keys)
    _latex(project)
    assert runner.invoke(main, ["--db", db, "bib", "sync"]).exit_code == 0
    bbl = _bibtex(project)
    assert sorted(_items(bbl)) == sorted(keys)
    _capitals_kept(bbl, named)
