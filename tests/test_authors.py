"""Authors are first-class (issue 29): each paper's authors as people, in order, found by
`author:` (a family name, a full name or a prefix; accents and case aside) on both backends,
shown in lists, and counted by `catalog authors`."""

from __future__ import annotations

import json
import sqlite3

from click.testing import CliRunner

from catalog.cli import main
from catalog.ingest.people import fold, people, short

BIB = r"""@article{maaten2008tsne,
  title = {Visualizing Data using t-{SNE}},
  author = {van der Maaten, Laurens and Hinton, Geoffrey E.},
  journal = {Journal of Machine Learning Research},
  year = 2008
}
@book{castellan1990,
  title = {Nonparametric statistics for the behavioral sciences},
  author = {Siegel, S. and Castellan, G.~W.},
  year = 1988
}
@article{mueller2020,
  title = {Sch{\"o}ne neue Welt der Daten},
  author = {M{\"u}ller, J{\"o}rg and others},
  year = 2020
}
@techreport{who2022,
  title = {Global report on physical activity},
  author = {{World Health Organization}},
  year = 2022
}
"""


def _titles(catalog, query):
    return sorted(p.title for p in catalog.search(query, snippets=False))


def test_people_keep_their_order_and_parts():
    found = people("Laurens van der Maaten, Geoffrey E. Hinton, World Health Organization, et al.")
    assert [(p.position, p.name, p.family) for p in found] == [
        (1, "Laurens van der Maaten", "van der Maaten"), (2, "Geoffrey E. Hinton", "Hinton"),
        (3, "World Health Organization", "World Health Organization")]
    assert fold("Jörg Müller") == "jorg muller" and fold("G. W.") == "g w"
    assert short("Ashish Vaswani, et al.") == "Vaswani et al."
    assert short("Geoffrey Hinton, Ruslan Salakhutdinov") == "Hinton & Salakhutdinov"


def test_author_filter_on_both_backends(empty_any, tmp_path):
    source = tmp_path / "refs.bib"
    source.write_text(BIB)
    catalog = empty_any
    assert catalog.import_paths([source]).errors == []
    assert _titles(catalog, "author:hinton") == ["Visualizing Data using t-SNE"]
    assert _titles(catalog, 'author:"van der Maaten"') == ["Visualizing Data using t-SNE"]
    assert _titles(catalog, "author:maaten") == ["Visualizing Data using t-SNE"]
    assert _titles(catalog, 'author:"Geoffrey Hinton"') == ["Visualizing Data using t-SNE"]
    assert _titles(catalog, "author:MULLER") == _titles(catalog, "author:müll") == ["Schöne neue Welt der Daten"]
    assert _titles(catalog, "author:castellan year:..1990") == ["Nonparametric statistics for the behavioral sciences"]
    assert _titles(catalog, "author:castellan year:2000..") == []
    assert _titles(catalog, 'author:"world health"') == ["Global report on physical activity"]
    assert _titles(catalog, "author:health") == []  # an organisation is one name, not a family
    assert [p.authors for p in catalog.search("author:muller", snippets=False)] == ["Müller et al."]
    assert [(a.name, a.papers) for a in catalog.authors("year:2008")] == [
        ("Geoffrey E. Hinton", 1), ("Laurens van der Maaten", 1)]


def test_tex_in_names_is_decoded(empty_catalog, tmp_path):
    source = tmp_path / "refs.bib"
    source.write_text(BIB)
    empty_catalog.import_paths([source])
    (paper,) = empty_catalog.exchange.export_papers("author:castellan")
    assert paper.authors == "S. Siegel, G. W. Castellan"


def test_authors_command_and_list_column(tmp_path):
    source = tmp_path / "refs.bib"
    source.write_text(BIB)
    db = str(tmp_path / "c.db")
    runner = CliRunner()
    assert runner.invoke(main, ["--db", db, "import", str(source)]).exit_code == 0
    listed = runner.invoke(main, ["--db", db, "list", "author:hinton"])
    assert listed.exit_code == 0 and "van der Maaten & Hinton" in listed.output
    counted = runner.invoke(main, ["--db", db, "authors", "--json"])
    assert {"name": "World Health Organization", "papers": 1} in json.loads(counted.output)
    found = json.loads(runner.invoke(main, ["--db", db, "search", "author:castellan", "--json"]).output)
    assert found["papers"][0]["authors"] == "Siegel & Castellan"


def test_an_upgrade_fills_the_people_of_existing_papers(tmp_path):
    from catalog.library import Catalog
    from catalog.store.sqlite import migrations as migrate

    path = tmp_path / "old.db"
    migrate.upgrade(path, "0014")
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO paper(key, fingerprint, abstract, abstract_text, search_extra, headline, title,"
                 " authors, tags_text, notes_text, added_at, updated_at) VALUES ('abcdefg', 'f', '', '', '', 'h',"
                 " 'A paper', 'Ann Lee, Bo Kim', '', '', '2026-01-01', '2026-01-01')")
    conn.commit()
    conn.close()
    catalog = Catalog.open(path)
    try:
        assert [p.title for p in catalog.search("author:kim", snippets=False)] == ["A paper"]
    finally:
        catalog.close()


def test_et_al_survives_csl_json_and_ris_exports(tmp_path):
    from catalog.library import Catalog

    source = tmp_path / "refs.bib"
    source.write_text(BIB)
    catalog = Catalog.open(tmp_path / "c.db")
    try:
        catalog.import_paths([source])
        for fmt, suffix in (("csljson", ".json"), ("ris", ".ris")):
            out = tmp_path / f"out{suffix}"
            catalog.exchange.export("author:muller", fmt, out)  # a BibTeX paper: written the format's way
            fresh = Catalog.open(tmp_path / f"{fmt}.db")
            try:
                fresh.import_paths([out])
                assert [p.authors for p in fresh.exchange.export_papers("")] == ["Jörg Müller, et al."], fmt
            finally:
                fresh.close()
    finally:
        catalog.close()
