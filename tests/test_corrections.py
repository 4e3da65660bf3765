"""Correcting a paper's fields by hand (title, authors, venue, year, DOI, URL): searches and
exports follow (a kept BibTeX or RIS record too), undo takes it back, a split never blanks a
correction, and bad values are one line."""

from __future__ import annotations

import io
from pathlib import Path

from click.testing import CliRunner

from catalog.cli import main
from catalog.library import Catalog

DATA = Path(__file__).resolve().parent / "data" / "libraries"


def _exported(catalog, key, fmt):
    out = io.StringIO()
    catalog.exchange.export("", fmt, stream=out, keys=[key])
    return out.getvalue()


def test_an_edit_reaches_search_and_the_kept_bibtex_entry_and_undo_restores_it(db_path):
    catalog = Catalog.open(db_path)
    catalog.import_paths([DATA / "dblp.bib"])
    key = catalog.search('"Stochastic Optimization"')[0].key
    before = _exported(catalog, key, "bibtex")
    assert "Kingma and" in before and "biburl" in before
    edit = catalog.corrections.edit(key, {"authors": "Diederik Kingma and Jimmy Lei Ba and Ada Lovelace", "venue": "ICLR",
                                          "year": "2015", "doi": "https://doi.org/10.48550/arXiv.1412.6980"})
    paper = catalog.get(key).summary
    assert (paper.venue, paper.year) == ("ICLR", 2015)
    assert [p.key for p in catalog.search("author:lovelace year:2015")] == [key]
    written = _exported(catalog, key, "bibtex")
    assert "author = {Diederik Kingma and Jimmy Lei Ba and Ada Lovelace}" in " ".join(written.split())
    assert "year = 2015" in " ".join(written.split()) and "biburl" in written  # the rest as the file had it
    assert "10.48550/arxiv.1412.6980" in written.lower()
    catalog.undo(edit)
    assert _exported(catalog, key, "bibtex") == before
    assert catalog.search("author:lovelace") == []
    catalog.close()


def test_an_edit_reaches_a_kept_ris_record(db_path):
    catalog = Catalog.open(db_path)
    catalog.import_paths([DATA / "library.ris"])
    key = catalog.search("sleep deprivation working memory")[0].key
    catalog.corrections.edit(key, {"title": "Sleep loss and working memory", "authors": "Shane Burke; Ann Smith; Bo Li"})
    written = _exported(catalog, key, "ris")
    assert "TI  - Sleep loss and working memory" in written and "AU  - Bo Li" in written
    assert "Sleep deprivation and working memory in adolescents" not in written
    catalog.close()


def test_undo_leaves_a_field_changed_since_alone(seeded_any):
    seeded = seeded_any
    key = seeded.search("MCR2")[0].key
    edit = seeded.corrections.edit(key, {"venue": "NeurIPS", "url": "https://example.org/mcr2"})
    seeded.corrections.edit(key, {"venue": "JMLR"})
    undone = seeded.undo(edit)
    assert seeded.get(key).summary.venue == "JMLR" and "changed since" in undone.conflicts[0]


def test_a_split_keeps_a_correction_of_a_field_a_merge_filled(db_path, tmp_path):
    catalog = Catalog.open(db_path)
    first = tmp_path / "a.bib"
    first.write_text("@article{a, title={Quokka smiles on islands}, doi={10.1000/quokka}}\n")
    second = tmp_path / "b.bib"
    second.write_text("@article{b, title={Quokka smiles on islands}, doi={10.1000/quokka}, journal={Island Biology}, year={2020}}\n")
    catalog.import_paths([first])
    catalog.import_paths([second])
    key = catalog.search("quokka")[0].key
    assert catalog.get(key).summary.venue == "Island Biology"  # filled by the merge
    catalog.corrections.edit(key, {"venue": "Journal of Quokkas"})
    catalog.split(key)
    assert catalog.get(key).summary.venue == "Journal of Quokkas"
    catalog.close()


def test_the_cli_edits_and_refuses_bad_values_in_one_line(db_path, seeded):
    key = seeded.search("MCR2")[0].key
    seeded.close()

    def run(*args):
        return CliRunner().invoke(main, ["--db", str(db_path), "edit", key, *args])

    assert run("--year", "2019", "--venue", "").exit_code == 0
    shown = Catalog.open(db_path)
    assert (shown.get(key).summary.year, shown.get(key).summary.venue) == (2019, None)
    shown.close()
    for args, says in ((("--year", "soon"), "not a year"), (("--doi", "nope"), "not a DOI"),
                       (("--url", "ftp://x"), "not a link"), ((), "say what to change")):
        out = run(*args)
        assert out.exit_code != 0 and says in out.output and "Traceback" not in out.output, out.output


def test_delete_takes_a_paper_with_everything_its_own_and_undo_brings_it_all_back(seeded_any):
    catalog = seeded_any
    key = catalog.search("MCR2")[0].key
    catalog.tag([key], add=["gone/soon"])
    catalog.add_note(key, "remember the *rate reduction*")
    catalog.set_rating([key], 4)
    before = catalog.get(key)
    total = catalog.stats().papers
    edit = catalog.deleting.delete([key])
    assert catalog.stats().papers == total - 1 and catalog.search("MCR2") == []
    assert catalog.tags() == [] and catalog.search("tag:gone") == []
    back = catalog.undo(edit)
    assert not back.conflicts and [p.key for p in back.papers] == [key]
    again = catalog.get(key)
    assert (again.summary.tags, again.summary.rating, [n.body for n in again.notes]) == (
        before.summary.tags, 4, ["remember the *rate reduction*"])
    assert catalog.search("MCR2")[0].key == key and catalog.search("rate reduction")  # indexed again
    catalog.undo(back)  # redo: deleted again
    assert catalog.search("MCR2") == []


def test_a_paper_with_files_is_not_deleted(seeded, tmp_path):
    key = seeded.search("MCR2")[0].key
    pdf = tmp_path / "x.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    seeded.files.attach_file(key, pdf)
    import pytest
    from catalog.errors import CatalogError

    with pytest.raises(CatalogError, match="detach them first"):
        seeded.deleting.delete([key])
    assert seeded.search("MCR2")[0].key == key


def test_on_a_server_a_member_cannot_delete_a_paper(people, location):
    import pytest
    from catalog.errors import StoreError

    if isinstance(location, Path):
        pytest.skip("a catalog file is one person's: they delete what they like")
    ann = people("ann")
    ann.import_paths([Path(__file__).resolve().parent.parent / "seeds"])
    key = ann.search("MCR2")[0].key
    with pytest.raises(StoreError, match="sharing.md"):
        ann.deleting.delete([key])
    assert ann.search("MCR2")[0].key == key
