"""What the CLI writes where users look: exports keep ordinary file permissions, and output
that goes to a pipe or a file is one line per paper (no wrapping) and TSV for `catalog sql`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SEEDS

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def seeded_cli(run_cli):
    assert run_cli("import", str(SEEDS)).exit_code == 0
    run_cli("tag", *[p["key"] for p in json.loads(run_cli("list", "--json", "-n", "3").stdout)],
            "+a-very-long-tag-name-that-makes-lines-long", "+project/thesis")
    return run_cli


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_exports_get_the_permissions_of_a_new_file(seeded_cli, tmp_path, umask):
    old = os.umask(umask)
    try:
        seeded_cli("export", "-f", "csv", "-o", str(tmp_path / "papers.csv"))
        seeded_cli("annotations", "export", str(tmp_path / "mine.json"))
        (tmp_path / "touched").touch()
    finally:
        os.umask(old)
    expected = _mode(tmp_path / "touched")
    assert expected == 0o666 & ~umask
    assert _mode(tmp_path / "papers.csv") == expected
    assert _mode(tmp_path / "mine.json") == expected


def test_replacing_an_export_keeps_its_permissions(seeded_cli, tmp_path):
    for mode in (0o644, 0o640, 0o600):
        target = tmp_path / f"reading-{mode:o}.md"
        target.write_text("old")
        target.chmod(mode)
        result = seeded_cli("export", "-o", str(target), "--force")
        assert result.exit_code == 0 and target.read_text().startswith("# Reading list")
        assert _mode(target) == mode


def _piped(db: Path, *args: str) -> subprocess.CompletedProcess:
    """The real program writing into a pipe, as in `catalog list | less`."""
    return subprocess.run([sys.executable, "-m", "catalog", "--db", str(db), *args], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "COLUMNS": "80", "CATALOG_DB": ""})


@pytest.mark.parametrize("args, papers", [(("list",), 90), (("search", "attention", "-n", "100"), None),
                                          (("list", "tag:project"), 3)])
def test_listings_into_a_pipe_are_one_line_per_paper(seeded_cli, db_path, args, papers):
    out = _piped(db_path, *args)
    assert out.returncode == 0, out.stderr
    found = json.loads(_piped(db_path, *args, "--json").stdout)
    expected = [p["key"] for p in (found["papers"] if args[0] == "search" else found)]
    assert papers is None or len(expected) == papers
    lines = out.stdout.splitlines()
    assert [line.split("  ")[0] for line in lines] == expected
    assert any(len(line) > 80 for line in lines)  # nothing was wrapped to fit 80 columns
    assert "\x1b" not in out.stdout


def test_sql_into_a_pipe_is_tab_separated_with_a_header(seeded_cli, db_path):
    out = _piped(db_path, "sql", "SELECT key, title, abstract, rating, tags FROM papers ORDER BY key")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "key\ttitle\tabstract\trating\ttags"
    assert len(lines) == 91
    rows = [line.split("\t") for line in lines[1:]]
    assert all(len(r) == 5 for r in rows)
    keys = [p["key"] for p in json.loads(_piped(db_path, "sql", "--json", "SELECT key FROM papers ORDER BY key").stdout)]
    assert [r[0] for r in rows] == keys
    assert max(len(r[2]) for r in rows) > 1000  # whole abstracts, not cells cut to a few characters


def test_sql_tsv_escapes_tabs_and_newlines(seeded_cli, db_path):
    out = _piped(db_path, "sql", "SELECT 'a' || char(9) || 'b' AS x, 'c' || char(10) || 'd' AS y, NULL AS z")
    assert out.stdout == "x\ty\tz\na\\tb\tc\\nd\t\n"


def test_stats_counts_read_as_english(run_cli, tmp_path):
    """`catalog stats` said "1 notes" after the first note."""
    bib = tmp_path / "one.bib"
    bib.write_text("@article{a, title={Deep Learning}, author={Doe, J.}, year={2020}, journal={JMLR}}\n")
    run_cli("import", str(bib))
    key = run_cli("list", "--json").stdout.split('"key": "')[1].split('"')[0]
    run_cli("note", key, "a note")
    run_cli("tag", key, "+x")
    first = run_cli("stats").stdout.splitlines()[0]
    assert first == "1 paper from 1 file, 1 note, 1 tag"
