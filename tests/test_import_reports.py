"""What `catalog import` reports: every failing file like any other, broken entries on every
import of their file, and a non-zero exit while anything was left out."""

from __future__ import annotations


from tests.conftest import SEEDS
from tests.privileges import permissions, unprivileged  # noqa: F401  (a fixture)

GOOD = "ICML 2026 Papers\n\nWe study sparse autoencoders on language models and find stable features.\n"
BROKEN_BIB = """@article{good2020,
  title = {A good entry},
  abstract = {Good abstracts import even when a neighbour is broken.},
  year = {2020}
}

@article{broken2021,
  title = {Missing a closing brace,
  year = {2021}

@article{fine2022,
  title = {Another good entry},
  abstract = {A second abstract that imports.},
  year = {2022}
}
"""


def test_an_unreadable_file_among_several_is_reported_and_the_rest_import(tmp_path, permissions):
    good = tmp_path / "good.txt"
    good.write_text(GOOD)
    secret = tmp_path / "secret.txt"
    secret.write_text(GOOD.replace("sparse", "dense"))
    permissions.unreadable(secret)
    db = tmp_path / "c.db"
    out = unprivileged("--db", str(db), "import", str(good), str(secret), str(SEEDS))
    assert out.returncode == 1, out.stderr
    lines = out.stderr.splitlines()
    assert [line for line in lines if "secret.txt" in line] == [f"catalog: {secret}: Permission denied"], out.stderr
    assert "Usage" not in out.stderr and "Traceback" not in out.stderr
    assert lines[-1].startswith("91 new") and "1 error" in lines[-1], lines[-1]


def test_a_broken_bibtex_entry_is_reported_once_and_again_on_request(run_cli, tmp_path):
    """The first import says what it skipped and fails the exit; importing the unchanged file
    again changes nothing and says so in one line (issue 29: the same warnings printed again,
    exit 1, on every re-import), `-v` lists them again."""
    bib = tmp_path / "refs.bib"
    bib.write_text(BROKEN_BIB)
    result = run_cli("import", str(bib))
    assert result.exit_code == 1, result.output
    broken = [line for line in result.stderr.splitlines() if "broken2021" in line]
    assert len(broken) == 1 and broken[0].startswith(f"catalog: {bib}:7: "), result.stderr
    assert "1 warning" in result.stderr.splitlines()[-1], result.stderr
    again = run_cli("import", str(bib))
    assert again.exit_code == 0, again.output
    assert "broken2021" not in again.stderr and "-v lists them again" in again.stderr
    assert again.stderr.splitlines()[-1].startswith("0 new, 2 already known")
    # From another path (a copy): the same bytes, said again with -v under the name it has now.
    copy = tmp_path / "copy.bib"
    copy.write_bytes(bib.read_bytes())
    result = run_cli("import", "-v", str(copy))
    assert result.exit_code == 0 and f"{copy}:7: entry 'broken2021'" in result.stderr, result.stderr


def test_a_clean_import_still_exits_zero(run_cli, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(BROKEN_BIB.split("@article{broken2021")[0])
    assert run_cli("import", str(bib)).exit_code == 0
    assert run_cli("import", str(bib)).exit_code == 0


def test_each_warning_says_once_what_became_of_its_entry(run_cli, tmp_path):
    """A kept entry is not called skipped, and a skipped one says so once."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{twice, title = {Kept with a repeated field}, title = {Other},\n"
                   "  abstract = {The first title is used.}}\n\n"
                   "@article{empty, year = {2020}}\n\n"
                   "@book{cut,\n  title = {A recovered entry},\n  publisher = {Taylor {{\\&} Francis},\n"
                   "  abstract = {Its publisher is broken.},\n}\n")
    result = run_cli("import", str(bib))
    lines = {line.split(": entry ")[1].split("'")[1]: line
             for line in result.stderr.splitlines() if ": entry '" in line}
    assert lines["twice"] == f"catalog: {bib}:1: entry 'twice' repeats a field; the first value is used"
    assert lines["empty"] == f"catalog: {bib}:4: entry 'empty' has no title or abstract, nor a venue, authors or identifier to name it by; skipped"
    assert lines["cut"].endswith("is left out; the rest of the entry is imported"), lines["cut"]
    assert all(line.count("skipped") <= 1 for line in result.stderr.splitlines()), result.stderr
    assert result.stderr.splitlines()[-1].startswith("2 new"), result.stderr


def test_a_file_of_nothing_usable_names_its_first_reason_once(run_cli, tmp_path):
    table = tmp_path / "bad.csv"
    table.write_text('title,abstract,year\n"x","y",2021,extra\n')
    result = run_cli("import", str(table))
    assert result.exit_code == 1
    assert (f"catalog: {table}: no usable papers (line 2: row 1 has 4 cells but the header has 3)"
            in result.stderr.splitlines()), result.stderr
