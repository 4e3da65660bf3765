from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from catalog.cli import main
from tests.conftest import SEEDS, opened


def test_every_command_has_help_text():
    def walk(command: click.Command, path: str):
        assert command.help or command.short_help, f"{path} has no help"
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), f"{path} {name}")

    walk(main, "catalog")


def test_each_command_is_found_in_the_module_named_for_it():
    """catalog/cli/__init__.py's MODULES, by which a command's module is loaded when it runs,
    names every command each module holds, and only those."""
    from catalog.cli import MODULES

    for name, commands in MODULES.items():
        held = importlib.import_module(f"catalog.cli.{name}").COMMANDS
        assert sorted(c.name for c in held) == sorted(commands), name


def test_every_result_is_found_in_the_area_named_for_it():
    """catalog/results/__init__.py's AREAS, by which `from catalog.results import X` loads X's
    module alone, names every class each area defines, each where it is."""
    import inspect

    import catalog.results as results

    for area, names in results.AREAS.items():
        module = importlib.import_module(f"catalog.results.{area}")
        defined = {n for n, v in vars(module).items() if inspect.isclass(v) and v.__module__ == module.__name__}
        assert defined <= set(names), area
        assert all(getattr(results, n) is getattr(module, n) for n in names), area


def test_import_search_show_end_to_end(run_cli):
    result = run_cli("import", str(SEEDS))
    assert result.exit_code == 0
    assert "90 new, 1 already known, 0 errors" in result.stderr
    result = run_cli("search", "--json", "influence", "functions")
    hits = json.loads(result.stdout)["papers"]
    assert {"key", "title", "venue", "year", "status", "rating", "tags", "snippet"} <= set(hits[0])
    key = hits[0]["key"]
    assert run_cli("tag", key, "+toread", "+project/thesis").exit_code == 0
    assert run_cli("tag", key, "-toread").exit_code == 0
    assert run_cli("status", key, "reading").exit_code == 0
    assert run_cli("rate", key, "4").exit_code == 0
    assert run_cli("note", key, "a", "first", "note").exit_code == 0
    assert run_cli("title", key, "Bayesian", "influence").exit_code == 0
    shown = json.loads(run_cli("show", key, "--json").stdout)
    assert shown["tags"] == ["project/thesis"]
    assert (shown["status"], shown["rating"], shown["title"]) == ("reading", 4, "Bayesian influence")
    assert shown["notes"][0]["body"] == "a first note"
    listed = json.loads(run_cli("list", "tag:project", "--json").stdout)
    assert [p["key"] for p in listed] == [key]
    tags = json.loads(run_cli("tags", "--json").stdout)
    assert tags == [{"tag": "project/thesis", "papers": 1}]
    stats = json.loads(run_cli("stats", "--json").stdout)
    assert stats["papers"] == 90
    assert run_cli("rate", key, "0").exit_code == 0
    assert json.loads(run_cli("show", key, "--json").stdout)["rating"] is None


def test_note_edit_and_delete(run_cli, monkeypatch):
    run_cli("import", str(SEEDS))
    key = json.loads(run_cli("list", "--json", "-n", "1").stdout)[0]["key"]
    monkeypatch.setattr(click, "edit", lambda text, **kw: "written in the editor\n")
    assert run_cli("note", key).exit_code == 0
    monkeypatch.setattr(click, "edit", lambda text, **kw: text.replace("written", "rewritten"))
    assert run_cli("note", key, "--edit", "1").exit_code == 0
    assert json.loads(run_cli("show", key, "--json").stdout)["notes"][0]["body"] == "rewritten in the editor"
    monkeypatch.setattr(click, "edit", lambda text, **kw: None)  # editor closed without saving
    result = run_cli("note", key)
    assert result.exit_code == 1 and "not saved" in result.stderr
    assert run_cli("note", key, "--delete", "1").exit_code == 0
    assert json.loads(run_cli("show", key, "--json").stdout)["notes"] == []


def test_errors_are_one_line(run_cli, tmp_path):
    run_cli("import", str(SEEDS))
    key = json.loads(run_cli("list", "--json", "-n", "1").stdout)[0]["key"]
    typo = key[:3] + ("x" if key[3] != "x" else "y") + key[4:]
    cases = [
        (("show", typo), "did you mean " + key),
        (("status", key, "done"), "unknown status"),
        (("rate", key, "9"), "rating must be 1 to 5"),
        (("search", "year:abc"), "expected a year"),
        (("tag", key, "+has space"), "invalid tag"),
        (("sql", "DELETE FROM paper"), "read-only"),
        (("sql", "ATTACH DATABASE 'x.db' AS x"), "ATTACH is not allowed"),
        (("sql", "SELECT load_extension('x')"), "load_extension is not allowed"),
        (("sql", "SELEC 1"), "SQL error"),
    ]
    for args, message in cases:
        result = run_cli(*args)
        assert result.exit_code != 0, args
        assert message in result.stderr, (args, result.stderr)
        assert result.stderr.count("\n") == 1, result.stderr
        assert "Traceback" not in result.output


def test_ctrl_c_while_the_arguments_are_read_says_one_line(run_cli, monkeypatch):
    """A Ctrl-C can land anywhere while the command starts: in click's reading of the
    arguments it was click's "Aborted!" and status 1."""

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(click.Path, "convert", interrupted)  # --db's value being read
    result = run_cli("search", "attention")
    assert (result.exit_code, result.output) == (130, "catalog: interrupted\n")


def test_import_failure_sets_exit_code(run_cli, tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\0\1\2binary")
    result = run_cli("import", str(bad), str(SEEDS))
    assert result.exit_code == 1
    assert "binary" in result.stderr and "90 new" in result.stderr


def test_sql_reads(run_cli):
    run_cli("import", str(SEEDS))
    rows = json.loads(run_cli("sql", "--json", "SELECT venue, count(*) AS n FROM papers GROUP BY venue ORDER BY venue").stdout)
    assert rows == [{"venue": "ICLR", "n": 38}, {"venue": "ICML", "n": 52}]


def test_a_lone_quote_gets_an_explanation(run_cli):
    run_cli("import", str(SEEDS))
    result = run_cli("search", '"')
    assert result.exit_code == 1 and "nothing to search for" in result.stderr


def test_markup_and_escapes_in_imported_text_print_literally(run_cli, tmp_path):
    f = tmp_path / "evil.txt"
    f.write_text("EVIL 2026 Papers\n\nWe study [bold red]markup[/] and \x1b[31mred\x1b[0m text [link=http://x]here[/link].\n")
    run_cli("import", str(f))
    result = run_cli("search", "markup")
    assert "[bold red]markup[/]" in result.stdout
    assert "\x1b" not in result.stdout


def run_process(args, env_db):
    env = {**os.environ, "CATALOG_DB": str(env_db)}
    return subprocess.run([sys.executable, "-m", "catalog", *args], capture_output=True, text=True, env=env)


# Libraries no command that reads the catalog needs (each costs start-up time).
HEAVY = ("textual", "alembic", "sqlalchemy", "sqlmodel", "pydantic", "sklearn", "numpy", "scipy", "psycopg")
# What a plain search does not use: the other commands, reading files to import (TeX, paper
# lists), exporting, the catalog's other jobs (edits, backups, cited files), the results of
# other areas, rich's tables. Loaded anyway, they were about half of its start-up
# (docs/benchmarks.md, "Start-up").
NOT_FOR_SEARCH = HEAVY + (
    "catalog.cli.files", "catalog.cli.web", "catalog.cli.database", "catalog.cli.tags", "catalog.cli.attachments",
    "catalog.cli.edits", "catalog.cli.discovery", "catalog.cli.sharing", "catalog.ingest.fields",
    "catalog.ingest.paperlist", "catalog.ingest.records", "catalog.ingest.kinds", "catalog.importing",
    "catalog.export", "catalog.parts.admin", "catalog.parts.citing", "catalog.parts.exchange", "catalog.parts.files",
    "catalog.parts.changes", "catalog.results.edits", "catalog.results.exchange", "catalog.results.web",
    "catalog.results.discovery", "catalog.text.tex", "pylatexenc", "rich.table",
)


def loaded_by(args, db) -> list[str]:
    """The modules a whole `catalog ARGS` process holds when it ends."""
    code = (f"import sys, runpy; sys.argv = ['catalog', *{list(args)!r}];\n"
            "try:\n    runpy.run_module('catalog', run_name='__main__')\n"
            "except SystemExit: pass\n"
            "print('LOADED', ' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "CATALOG_DB": str(db)})
    assert "LOADED" in out.stdout, out.stdout + out.stderr
    return out.stdout.split("LOADED", 1)[1].split()


def loaded_of(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == n or m.startswith(n + ".") for n in names)]


def test_help_loads_only_the_commands(tmp_path):
    """`catalog --help` names every command, and opens nothing: no query language, no results,
    no library or store."""
    modules = loaded_by(["--help"], tmp_path / "none.db")
    assert "catalog.cli.searching" in modules  # it listed the commands
    assert loaded_of(modules, HEAVY + ("catalog.searching", "catalog.results", "catalog.library", "catalog.store",
                                       "rich")) == []


def test_ctrl_c_while_a_command_loads_a_module_is_one_line(run_cli, monkeypatch):
    """Modules load as a command runs (cli/__init__.py, Catalog's parts): Ctrl-C landing in a
    class's __set_name__ there (a cached_property's, a dataclass field's) reaches the command
    group as the RuntimeError it caused (Python 3.11), not as KeyboardInterrupt."""
    from catalog.library import Catalog

    class Interrupting:
        def __set_name__(self, owner, name):
            raise KeyboardInterrupt

    def loading(*args, **kwargs):
        class Loaded:  # what a module with such a class does as it loads
            part = Interrupting()

    assert run_cli("import", str(SEEDS)).exit_code == 0
    monkeypatch.setattr(Catalog, "search", loading)
    result = run_cli("search", "attention")
    assert (result.exit_code, result.stderr) == (130, "catalog: interrupted\n"), result.exception


def test_search_loads_only_what_it_uses(tmp_path):
    db = tmp_path / "c.db"
    assert run_process(["import", str(SEEDS)], db).returncode == 0
    modules = loaded_by(["search", "attention"], db)
    assert "catalog.searching.query" in modules  # it did search
    assert loaded_of(modules, NOT_FOR_SEARCH) == []


def test_first_use_of_the_default_database_imports_the_seeds(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CATALOG_DB"}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-m", "catalog", "stats", "--json"], capture_output=True,
                         text=True, env=env)
    assert json.loads(out.stdout)["papers"] == 90
    assert "imported 90 papers" in out.stderr
    path = subprocess.run([sys.executable, "-m", "catalog", "db", "path"], capture_output=True,
                          text=True, env=env).stdout.strip()
    assert path.startswith(str(tmp_path / "data"))
    again = subprocess.run([sys.executable, "-m", "catalog", "stats"], capture_output=True, text=True, env=env)
    assert "imported" not in again.stderr


def test_named_database_starts_empty(tmp_path):
    """Without the bundled seeds: it holds what was imported into it, nothing more (and a
    command that only reads does not make it: test_a_mistyped_db_is_not_made_a_new_catalog)."""
    bib = SEEDS.parent / "tests" / "data" / "arxiv.bib"
    imported = CliRunner().invoke(main, ["--db", str(tmp_path / "fresh.db"), "import", str(bib)])
    new = int(imported.stderr.split(" new")[0].split()[-1])
    out = run_process(["stats", "--json"], tmp_path / "fresh.db")
    assert 0 < json.loads(out.stdout)["papers"] == new < 90


def test_a_folder_with_nothing_to_import_says_so(run_cli, tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "picture.png").write_bytes(b"\x89PNG")
    result = run_cli("import", str(tmp_path / "empty"))
    assert result.exit_code == 1 and "nothing to import" in result.stderr


def test_note_edit_without_a_number_edits_the_newest_or_writes_the_first(run_cli, monkeypatch):
    run_cli("import", str(SEEDS))
    key = json.loads(run_cli("list", "--json", "-n", "1").stdout)[0]["key"]
    monkeypatch.setattr(click, "edit", lambda text, **kw: "first thoughts\n")
    assert run_cli("note", key, "--edit").exit_code == 0
    monkeypatch.setattr(click, "edit", lambda text, **kw: text.replace("first", "second"))
    assert run_cli("note", key, "--edit").exit_code == 0
    assert [n["body"] for n in json.loads(run_cli("show", key, "--json").stdout)["notes"]] == ["second thoughts"]


def test_saved_searches_from_the_command_line(run_cli):
    assert run_cli("import", str(SEEDS)).exit_code == 0
    assert "No saved searches" in run_cli("saved", "list").stderr
    assert run_cli("saved", "add", "icml  math", "MCR2", "venue:ICML").exit_code == 0
    assert run_cli("saved", "add", "reading", "status:reading").exit_code == 0
    listed = json.loads(run_cli("saved", "list", "--json").stdout)
    assert listed == [{"name": "icml math", "query": "MCR2 venue:ICML"},
                      {"name": "reading", "query": "status:reading"}]
    ran = run_cli("saved", "run", "icml math", "--json")
    assert ran.exit_code == 0 and {p["venue"] for p in json.loads(ran.stdout)} == {"ICML"}
    assert run_cli("saved", "delete", "reading").exit_code == 0
    assert [s["name"] for s in json.loads(run_cli("saved", "list", "--json").stdout)] == ["icml math"]
    assert run_cli("saved").stdout.split() == ["icml", "math", "MCR2", "venue:ICML"]  # lists, as `git remote`
    for args in (("run", "reading"), ("delete", "reading"), ("add", "", "x")):
        failed = run_cli("saved", *args)
        assert failed.exit_code == 1 and len(failed.stderr.strip().splitlines()) == 1, args


def test_tui_refuses_when_output_is_not_a_terminal(run_cli, empty_catalog):
    result = run_cli("tui")  # CliRunner's output is a buffer, as with `catalog tui > file`
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "catalog: catalog tui needs a terminal, and its output is not one (redirected?); "
        "catalog list, search and export write to files"]


def test_open_sends_the_papers_page_to_the_browser(run_cli, browser, monkeypatch, tmp_path):
    assert run_cli("import", str(SEEDS.parent / "tests" / "data" / "arxiv.bib")).exit_code == 0
    key = json.loads(run_cli("search", "scaling laws", "--json").output)["papers"][0]["key"]
    result = run_cli("open", key)
    assert result.exit_code == 0, result.output
    assert opened(browser) == ["https://arxiv.org/abs/2001.08361"]
    assert run_cli("open", key, "--print").output == "https://arxiv.org/abs/2001.08361\n"
    assert run_cli("import", str(SEEDS)).exit_code == 0
    plain = json.loads(run_cli("list", "venue:ICML", "--json").output)[0]["key"]
    result = run_cli("open", plain)
    assert result.exit_code == 1 and "has no URL, DOI or arXiv id" in result.output
    assert len(opened(browser)) == 1
    monkeypatch.setenv("BROWSER", str(tmp_path / "no-such-browser"))
    result = run_cli("open", key)
    assert result.exit_code == 1 and "no browser" in result.output


def test_a_search_parses_its_query_once(run_cli, seeds_copy, parses):
    """Its papers, their snippets and the suggestions for a word no paper holds all come from
    one parse of what was typed (it was parsed three times), and of its correction."""
    assert run_cli("import", str(seeds_copy)).exit_code == 0
    parses.clear()
    result = run_cli("search", "sparse", "autoencodrs", "--sort", "year")
    assert result.exit_code == 0, result.output
    assert "showing sparse autoencoders" in result.output  # corrected: the one unknown word
    assert parses == ["sparse autoencodrs", "sparse autoencoders"]


def test_search_and_list_sort(run_cli, seeds_copy):
    from catalog import cli
    from catalog.searching import query

    assert cli.SORTS == query.SORTS
    assert run_cli("import", str(seeds_copy)).exit_code == 0
    titles = run_cli("list", "--sort", "title", "--json")
    assert titles.exit_code == 0, titles.output
    names = [p["title"].casefold() for p in json.loads(titles.output)]
    assert names == sorted(names) and len(names) > 10
    backwards = json.loads(run_cli("list", "--sort", "title", "--reverse", "--json").output)
    assert [p["title"].casefold() for p in backwards] == sorted(names, reverse=True)
    found = json.loads(run_cli("search", "model", "--sort", "title", "--reverse", "--json", "-n", "100").output)["papers"]
    assert [p["title"].casefold() for p in found] == sorted((p["title"].casefold() for p in found), reverse=True)
    assert len(found) > 3
    bad = run_cli("search", "model", "--sort", "author")
    assert bad.exit_code == 2 and "'author' is not one of" in bad.output


READING = [("search", "attention"), ("list",), ("show", "abcd"), ("stats",), ("tags",),
           ("export", "--format", "bibtex"), ("sql", "SELECT 1"), ("similar", "abcd"),
           ("recommend", "x"), ("topics",), ("saved", "list"), ("saved", "add", "n", "x"),
           ("tag", "abcd", "+x"), ("rate", "abcd", "4"), ("note", "abcd", "text"),
           ("annotations", "export"), ("backup", "b.db"), ("db", "current"), ("db", "upgrade"),
           ("tui",)]


@pytest.mark.parametrize("args", READING, ids=lambda a: " ".join(a[:2]))
def test_a_mistyped_db_is_not_made_a_new_catalog(args, tmp_path, monkeypatch):
    """`catalog --db typo.db stats` printed zeros and left typo.db behind: a command that does
    not bring papers says there is no catalog there, exits non-zero and writes nothing."""
    from catalog.cli import main

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--db", "typo.db", *args])
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().splitlines() == [
        "catalog: no catalog at typo.db; import papers into it first: "
        "catalog --db typo.db import FILE"]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_catalog_db_and_an_empty_file_are_refused_the_same_way(tmp_path, monkeypatch):
    from catalog.cli import main

    empty = tmp_path / "my papers.db"
    empty.touch()
    monkeypatch.setenv("CATALOG_DB", str(tmp_path / "nothere.db"))
    result = CliRunner().invoke(main, ["stats"])
    assert result.exit_code == 1 and "no catalog at" in result.stderr
    assert not (tmp_path / "nothere.db").exists()
    result = CliRunner().invoke(main, ["--db", str(empty), "list"])
    assert result.exit_code == 1
    assert f"catalog --db '{empty}' import FILE" in result.stderr
    assert empty.stat().st_size == 0


def test_import_still_makes_a_new_catalog(tmp_path, monkeypatch):
    from catalog.cli import main

    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(main, ["--db", "new.db", "import", str(SEEDS / next(
        p.name for p in SEEDS.iterdir() if p.suffix == ".txt"))]).exit_code == 0
    result = CliRunner().invoke(main, ["--db", "new.db", "stats", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["papers"] > 0


def test_importing_only_missing_files_makes_no_catalog(tmp_path, monkeypatch):
    """`catalog --db new.db import missing.bib` left an empty new.db behind: a typo in the file
    name is said in one line, and no catalog is made for nothing."""
    from catalog.cli import main

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--db", "new.db", "import", "missing.bib", "nor/this"])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        "catalog: nothing to import: missing.bib: no such file or folder; nor/this: no such file or folder"]
    assert sorted(p.name for p in tmp_path.iterdir()) == []
