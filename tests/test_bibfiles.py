"""A project .bib that stays current (issue 29): `catalog bib add thesis.bib tag:thesis` writes
it, a tag change or an import rewrites it (only when its content changes), `--aux` cuts it down
to what a LaTeX document cites."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from catalog.cli import main
from catalog.library import Catalog

LIBRARIES = Path(__file__).resolve().parent / "data" / "libraries"


def _keys(path: Path) -> list[str]:
    return [line.split("{", 1)[1].rstrip(",") for line in path.read_text().splitlines() if line.startswith("@")]


def test_a_kept_bib_follows_its_tag(tmp_path):
    catalog = Catalog.open(tmp_path / "c.db")
    try:
        catalog.import_paths([LIBRARIES / "cdl-sample.bib"])
        thesis = tmp_path / "thesis.bib"
        done = catalog.citing.bib_add(thesis, "tag:thesis")
        assert (done.papers, thesis.read_text()) == (0, "")
        catalog.tag([catalog.exchange.export_papers("citekey:Rame72")[0].key], ["thesis"])
        assert _keys(thesis) == ["Rame72"]
        stamp = thesis.stat().st_mtime_ns
        assert [s.written for s in catalog.citing.bib_sync()] == [False]  # unchanged: not written again
        assert thesis.stat().st_mtime_ns == stamp
        catalog.tag([catalog.exchange.export_papers("citekey:Thor13")[0].key], ["thesis"])
        assert sorted(_keys(thesis)) == ["Rame72", "Thor13"]
        aux = tmp_path / "paper.aux"
        aux.write_text("\\relax\n\\citation{Thor13}\n\\citation{nothere,Thor13}\n")
        cut = tmp_path / "cut.bib"
        assert catalog.citing.bib_add(cut, "tag:thesis", aux=aux).papers == 1
        assert _keys(cut) == ["Thor13"]
        assert catalog.citing.bib_remove(thesis) and [f.path for f in catalog.citing.bib_files()] == [str(cut.resolve())]
    finally:
        catalog.close()


def test_the_cli_keeps_and_lists_bib_files(tmp_path):
    db = str(tmp_path / "c.db")
    runner = CliRunner()
    runner.invoke(main, ["--db", db, "import", str(LIBRARIES / "cdl-sample.bib")])
    target = tmp_path / "all.bib"
    added = runner.invoke(main, ["--db", db, "bib", "add", str(target), "year:..1950"])
    assert added.exit_code == 0, added.output
    assert "kept current" in added.output and target.read_text().count("@") >= 1
    assert str(target.resolve()) in runner.invoke(main, ["--db", db, "bib", "list"]).output
    assert "unchanged" in runner.invoke(main, ["--db", db, "bib", "sync"]).output
    bad = runner.invoke(main, ["--db", db, "bib", "add", str(tmp_path / "x.bib"), "year:abc"])
    assert bad.exit_code == 1 and "year" in bad.output
    assert runner.invoke(main, ["--db", db, "bib", "remove", str(tmp_path / "none.bib")]).exit_code == 1
