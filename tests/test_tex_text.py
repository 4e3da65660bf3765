"""TeX in abstracts and titles (issue 29): text commands, accents and unknown macros are
rendered or kept readable, never dropped; a macro the file does not define is reported once."""

from __future__ import annotations

import pytest

from catalog.ingest.fields import tex_to_text
from catalog.text.tex import render, render_styled


@pytest.mark.parametrize("raw, shown", [
    (r"pages 1\textendash 5 and 12--15", "pages 1–5 and 12–15"),
    (r"a \ldots b \texttimes{} c, see\ldots\ more", "a … b × c, see… more"),
    (r"Schr\"odinger, \'{e}t\'e, {\"u}ber, \v{S}koda, Stra\ss e", "Schrödinger, été, über, Škoda, Straße"),
    (r"\emph{very} {\em big} and {\bf bold}", "very big and bold"),
    (r"at 25\textdegree C in 3\textmu m", "at 25°C in 3µm"),
    (r"weights $\widehat{w}$ and $\overline{x}$", "weights ŵ and x̅"),
    # Unknown macros: kept as written, with their argument, never nothing.
    (r"we use \mycmd{bar} and \newthing here", r"we use \mycmd{bar} and \newthing here"),
    (r"the $\foo$ norm of $\unknownop x$", r"the \foo norm of \unknownop x"),
    # An accent over an unknown macro: kept whole, not an accent on each letter (`\̂f̂ôô`).
    (r"the $\hat{\foo}$ and $\tilde{\foo}_i$ of $\hat{x}$", r"the \hat{\foo} and \tilde{\foo}ᵢ of x̂"),
    (r"ranges like x -- y stay", "ranges like x -- y stay"),
])
def test_tex_in_abstracts_renders_or_stays_readable(raw, shown):
    assert render(raw) == shown


def test_font_switches_in_groups_keep_their_style():
    assert render_styled(r"{\em big} and {\bf bold}") == ("big and bold", [(0, 3, "italic"), (8, 12, "bold")])


@pytest.mark.parametrize("raw, shown", [
    (r"Results 1\textendash 5 for Schr\"odinger", "Results 1–5 for Schrödinger"),
    (r"The $\foo$ estimator", r"The \foo estimator"),
    (r"A {\em new} look at $\widehat{w}$", "A new look at ŵ"),
    (r"\newthing{} models", r"\newthing models"),
])
def test_tex_in_titles_renders_or_stays_readable(raw, shown):
    assert tex_to_text(raw) == shown


def test_an_imported_abstract_shows_its_tex_rendered(empty_catalog, tmp_path):
    source = tmp_path / "refs.bib"
    source.write_text("@article{lee2020,\n  title = {Estimating $\\widehat{w}$ \\textendash{} a {\\em new} view},\n"
                      "  author = {Lee, Ann},\n  journal = {J},\n  year = 2020,\n"
                      "  abstract = {We show bounds of 1\\textendash 5\\texttimes{} for $\\mycost$ with "
                      "Schr\\\"odinger operators\\ldots}\n}\n")
    report = empty_catalog.import_paths([source])
    assert (report.errors, report.warnings) == ([], [])
    paper = empty_catalog.get(empty_catalog.exchange.export_papers("")[0].key)
    assert paper.summary.title == "Estimating ŵ – a new view"
    assert "bounds of 1–5× for \\mycost with Schrödinger operators…" in paper.abstract_text


def test_undefined_macros_are_reported_once_per_file(run_cli, tmp_path):
    source = tmp_path / "refs.bib"
    source.write_text("@string{icml = {International Conference on Machine Learning}}\n"
                      "@article{a1, title = {First}, author = {Lee, Ann}, journal = jmlr, month = jan, year = 2020}\n"
                      "@article{a2, title = {Second}, author = {Lee, Ann}, journal = jmlr, month = sept, year = 2021}\n"
                      "@inproceedings{a3, title = {Third}, author = {Lee, Ann}, booktitle = icml, year = 2021}\n")
    first = run_cli("import", str(source))
    lines = [line for line in first.stderr.splitlines() if "macro" in line]
    assert first.exit_code == 1 and len(lines) == 1, first.stderr
    assert "jmlr (lines 2, 3); sept (line 3)" in lines[0] and "icml" not in lines[0] and "jan" not in lines[0]
    assert "3 new" in first.stderr  # nothing was left out for it
    again = run_cli("import", str(source))
    assert again.exit_code == 0 and "jmlr" not in again.stderr and "said when they were first" in again.stderr
    assert "jmlr" in run_cli("import", "-v", str(source)).stderr


def test_a_footnote_holding_a_link_reads_as_the_link_in_brackets():
    # An ICML 2026 seed abstract ends so: the footnote's \url{} left `\footnote{...}` on screen.
    shown = render(r"Source code is available\footnote{\url{https://github.com/hr-jin/C2R}}.")
    assert shown == "Source code is available (https://github.com/hr-jin/C2R)."
    assert render(r"A\footnote{see \textbf{B}} and C\footnote{plain}.") == "A (see B) and C (plain)."
