"""Fixtures: a catalog in tmp_path, seeded from the bundled paper lists."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import settings as _settings

from catalog.library import Catalog

SEEDS = Path(__file__).resolve().parent.parent / "seeds"


def _test_environment(run_folder: Path) -> dict[str, str]:
    """The environment every test runs in (`run_folder`: the test run's own)."""
    return {
        # Derived files (the discovery cache) go to a folder of the test run, not the user's
        # ~/.cache; subprocesses inherit it.
        "XDG_CACHE_HOME": str(run_folder / "xdg-cache"),
        # `catalog import` updates the cache in the import, not in a process that would outlive
        # the test (tests/test_refresher.py turns the background back on, and waits for it).
        "CATALOG_DISCOVER_REFRESH": "inline",
        # No test reaches the real web services: those that fetch point them at a replay server
        # (tests/webserver.py); the rest would find nothing listening here (port 9, discard).
        "CATALOG_WEB_BASE": "http://127.0.0.1:9",
        "CATALOG_WEB_CACHE": str(run_folder / "web-cache"),
    }


@pytest.fixture(autouse=True)
def _own_cache_folder(tmp_path_factory, monkeypatch):
    for name, value in _test_environment(tmp_path_factory.getbasetemp()).items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "catalog.db"


def _seed(catalog: Catalog) -> None:
    report = catalog.import_paths([SEEDS])
    assert not report.errors, report.errors


def _made_per_process(tmp_path_factory, name: str, fill) -> tuple[Path, str | None]:
    """A catalog file made once per test process (`fill` runs on it, new), and the CATALOG_USER
    it was made under (its owner): tests copy it (_open_copy)."""
    path = tmp_path_factory.mktemp(name) / "catalog.db"
    with pytest.MonkeyPatch.context() as patch:
        for variable, value in _test_environment(tmp_path_factory.getbasetemp()).items():
            patch.setenv(variable, value)
        catalog = Catalog.open(path)
        try:
            fill(catalog)
        finally:
            catalog.close()
    return path, os.environ.get("CATALOG_USER")


def _open_copy(db_path: Path, made: tuple[Path, str | None], fill) -> Catalog:
    """The catalog at `db_path`: a copy of the file made once, unless this test's CATALOG_USER
    would own it (then made here, as a user would, and `fill` run on it)."""
    template, user = made
    if os.environ.get("CATALOG_USER") != user:
        catalog = Catalog.open(db_path)
        fill(catalog)
        return catalog
    for suffix in ("", "-wal"):  # closed, it is one file; a WAL left beside it goes too
        if Path(f"{template}{suffix}").exists():
            shutil.copyfile(f"{template}{suffix}", f"{db_path}{suffix}")
    return Catalog.open(db_path)


@pytest.fixture(scope="session")
def _empty_file(tmp_path_factory) -> tuple[Path, str | None]:
    """A new catalog file, made once per test process. `empty_catalog` copies it: a new
    catalog runs every migration (1.5-2 s a test at load 10), a copy opens in under 0.1 s."""
    return _made_per_process(tmp_path_factory, "empty", lambda catalog: None)


@pytest.fixture
def empty_catalog(db_path: Path, _empty_file):
    catalog = _open_copy(db_path, _empty_file, lambda catalog: None)
    yield catalog
    catalog.close()


@pytest.fixture(scope="session")
def _seeded_file(tmp_path_factory) -> tuple[Path, str | None]:
    """The seeded catalog file, made once per test process. `seeded` copies it: making it
    took 0.3-0.8 s a test, copying 0.02-0.05 s."""
    return _made_per_process(tmp_path_factory, "seeded", _seed)


@pytest.fixture
def seeded(db_path: Path, _seeded_file):
    catalog = _open_copy(db_path, _seeded_file, _seed)
    yield catalog
    catalog.close()


@pytest.fixture
def seeds_copy(tmp_path: Path) -> Path:
    target = tmp_path / "seeds"
    shutil.copytree(SEEDS, target)
    return target


@pytest.fixture
def run_cli(db_path: Path):
    """Run `catalog --db <tmp db> ARGS...` in-process; returns the click Result."""
    from catalog.cli import main

    def run(*args: str, input: str | None = None):
        return CliRunner().invoke(main, ["--db", str(db_path), *args], input=input)

    return run


@pytest.fixture
def browser(tmp_path: Path, monkeypatch) -> Path:
    """$BROWSER as a command that writes each link it gets, one a line, to the file returned
    (no test opens a real browser). The link is an argument of its own (`%s`, then "$1")."""
    import shlex

    log = tmp_path / "browser.log"
    monkeypatch.setenv("BROWSER", f"""sh -c 'echo "$1" >> "$0"' {shlex.quote(str(log))} %s""")
    return log


def opened(log: Path) -> list[str]:
    """The links the `browser` fixture was given."""
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """Every text parsed as a query from now on: catalog/searching/query.py's parse, counted
    wherever a module of catalog imported it."""
    import sys

    import catalog.tui.app  # noqa: F401  (the modules that may parse, imported before counting)
    from catalog.searching import query

    parse, seen = query.parse, []

    def counted(text):
        seen.append(text)
        return parse(text)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").split(".")[0] == "catalog":
            for name, value in list(vars(module).items()):
                if value is parse:
                    monkeypatch.setattr(module, name, counted)
    return seen


def key_of(catalog: Catalog, query: str) -> str:
    hits = catalog.search(query, limit=1)
    assert hits, f"nothing found for {query!r}"
    return hits[0].key


# CI replays the same generated examples on every run, so a red run can be reproduced and a
# green one is not luck; developers' runs keep exploring new inputs. No run has Hypothesis'
# per-example deadline: it times the machine, not the code (on a loaded 2-core machine an
# example of test_highlight took 340 ms against its 200 ms and failed .ci/run, which does not
# set CI). These tests check what the code does; speed has its benchmarks.
_settings.register_profile("ci", derandomize=True, deadline=None)
_settings.register_profile("catalog", deadline=None)
_settings.load_profile("ci" if os.environ.get("CI") else "catalog")


# Sections that tests want shown after the run (the relevance table), whatever the capture mode.
# They travel as the test's user properties, which pytest-xdist sends from its workers to the
# process that prints the summary.
_SUMMARY_PROPERTY = "catalog_summary"
_summary_lines: list[str] = []


@pytest.fixture
def summary_section(request):
    """Call with lines of text to print them at the end of the pytest run."""

    def add(lines: list[str]) -> None:
        request.node.user_properties.append((_SUMMARY_PROPERTY, list(lines)))

    return add


def pytest_runtest_logreport(report):
    if report.when == "call":
        for name, lines in report.user_properties:
            if name == _SUMMARY_PROPERTY:
                _summary_lines.extend(lines)


def pytest_terminal_summary(terminalreporter, config):
    if _summary_lines:
        terminalreporter.section("ranking quality on the judged queries")
        for line in _summary_lines:
            terminalreporter.write_line(line)


# The files that take longest start first, so that no worker is left with one of them at the
# end while the others idle: pytest-xdist hands out whole files in collection order (with
# --no-loadscope-reorder, pyproject.toml; by default it sorts them by their number of tests,
# which sent these few-test files last, all at once: the TUI tests beside them ran 10-20x
# slower than alone). Longest first by the whole suite's --durations=80 at load 8-15
# (2026-12-07, 80 min; seconds of its slowest tests per file): test_tui_contrast.py (924 s,
# every theme drawn and measured), absent here before, was handed out only after every file
# of tests/ (tests/tui is collected after tests/test_*). The first ranked-list file builds the 10k
# catalog they all share (80-90 s of CPU): the next one comes after enough other long files
# that the second worker is not left waiting for it idle (236 s at load 15 when both workers
# began on ranked-list files).
_LONGEST_FILES = ("test_ranked_lists_imports.py", "test_tui_contrast.py", "test_crash.py", "test_tui_actions.py",
                  "test_tui_marks.py", "test_ranked_lists_rebuilds.py", "test_concurrency.py", "test_benchmarks.py",
                  "test_upgrades.py", "test_ranked_lists_of_several_words.py", "test_refresher.py",
                  "test_tui_keys.py", "test_ranked_lists_after_edits.py", "test_hostile.py", "test_pdf_kill.py",
                  "test_runaway.py", "test_tui_search_typing.py", "test_ranked_lists.py", "test_pdf_text.py",
                  "test_real_pdfs.py", "test_tui_web.py", "test_tui_wide.py", "test_ranked_lists_filtered.py",
                  "test_tui_history.py", "test_tui_safety.py")


def pytest_collection_modifyitems(items):
    order = {name: i for i, name in enumerate(_LONGEST_FILES)}
    items.sort(key=lambda item: order.get(item.path.name, len(order)))  # stable: in-file order kept


# --- both backends ----------------------------------------------------------------------------
# Tests that take `backend` (or the fixtures below) run on SQLite and on PostgreSQL. The server
# is started once per session as tests/pg_server.py says; without PostgreSQL binaries the
# PostgreSQL half is skipped with one line (CI installs them: .ci/run).
# On the server a catalog is set up as docs/sharing.md says: OWNER (an ordinary role, no
# superuser) owns the database and creates the catalog; MEMBERS read as themselves.

BACKENDS = ["sqlite", "postgresql"]
OWNER, MEMBERS = "lab", ("ann", "bob")


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory, worker_id):
    """The run's server. Under pytest-xdist one for the whole run: the first worker to need it
    starts it, to stop when the run's controlling process ends (the workers' parent), and the
    others find it (a server each cost every worker an initdb and its own templates)."""
    from tests import pg_server as servers

    reason = servers.skip_reason()
    if reason:
        pytest.skip(reason)
    if worker_id == "master":
        server = servers.Server().start()
        server.ensure_roles(OWNER, *MEMBERS)
        yield server
        server.stop()
        return

    def start() -> str:
        server = servers.Server().start(owner=os.getppid())
        server.ensure_roles(OWNER, *MEMBERS)
        return server.base_url

    yield servers.Server(_once_per_run(tmp_path_factory, "pg-server", start))


def _once_per_run(tmp_path_factory, name: str, make) -> str:
    """What `make()` returns (a line of text), made by the first of xdist's workers to ask, in
    the run's folder they share; the others wait for it and read it."""
    import fcntl

    run = tmp_path_factory.getbasetemp().parent
    with open(run / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = run / f"{name}.txt"
        if not made.exists():
            made.write_text(make())
        return made.read_text()


def _template(tmp_path_factory, worker_id, name: str, make) -> str:
    """The URL of the template database `make()` makes: once per run under xdist (the run
    shares one server), else once per session."""
    return make() if worker_id == "master" else _once_per_run(tmp_path_factory, name, make)


@pytest.fixture(scope="session")
def pg_seeded_template(pg_server, tmp_path_factory, worker_id) -> str:
    """A database holding the seeded catalog, made by OWNER and shared with MEMBERS, copied
    (CREATE DATABASE ... TEMPLATE) per test."""
    from tests.pg_server import as_role

    def make() -> str:
        url = pg_server.create(owner=OWNER)
        catalog = Catalog.open(as_role(url, OWNER))
        report = catalog.import_paths([SEEDS])
        assert not report.errors, report.errors
        for member in MEMBERS:
            catalog.admin.add_member(member)
        catalog.close()
        return url

    return _template(tmp_path_factory, worker_id, "pg-seeded", make)


@pytest.fixture(scope="session")
def pg_empty_template(pg_server, tmp_path_factory, worker_id) -> str:
    """A database holding a new catalog, made by OWNER, copied per test by `empty_any`: a new
    catalog on the server runs every migration (1-4 s a test at load 10), a copy 0.2-0.3 s."""
    from tests.pg_server import as_role

    def make() -> str:
        url = pg_server.create(owner=OWNER)
        Catalog.open(as_role(url, OWNER)).close()
        return url

    return _template(tmp_path_factory, worker_id, "pg-empty", make)


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
def location(backend, db_path, request):
    """Where a new catalog goes: a file, or a new database on the test server (as OWNER)."""
    if backend == "sqlite":
        yield db_path
        return
    from tests.pg_server import as_role

    server = request.getfixturevalue("pg_server")
    url = server.create(owner=OWNER)
    yield as_role(url, OWNER)
    server.drop(url)


@pytest.fixture
def people(location, monkeypatch):
    """`as_(name)`: the catalog at `location` opened as that person: on a file through
    CATALOG_USER, on a server as the member role (the owner makes the catalog and shares it
    with MEMBERS first). Closed after the test."""
    opened = []
    if not isinstance(location, Path):
        from tests.pg_server import as_role

        owner = Catalog.open(location)
        for member in MEMBERS:
            owner.admin.add_member(member)
        opened.append(owner)

    def as_(name: str) -> Catalog:
        if isinstance(location, Path):
            monkeypatch.setenv("CATALOG_USER", name)
            catalog = Catalog.open(location)
        else:
            catalog = Catalog.open(as_role(location, name))
        opened.append(catalog)
        return catalog

    yield as_
    for catalog in opened:
        catalog.close()


@pytest.fixture
def empty_any(backend, db_path, request):
    """A new catalog on each backend (a copy of one made once per test process)."""
    if backend == "sqlite":
        catalog = _open_copy(db_path, request.getfixturevalue("_empty_file"), lambda catalog: None)
        yield catalog
        catalog.close()
        return
    yield from _server_copy(request, "pg_empty_template")


def _server_copy(request, template: str):
    """A copy of the database of fixture `template`, opened as OWNER; dropped after the test."""
    from tests.pg_server import as_role

    server = request.getfixturevalue("pg_server")
    url = server.create(template=request.getfixturevalue(template), owner=OWNER)
    catalog = Catalog.open(as_role(url, OWNER))
    yield catalog
    catalog.close()
    server.drop(url)


@pytest.fixture
def seeded_any(backend, db_path, request):
    """The seeded catalog on each backend (on PostgreSQL a copy of a seeded template)."""
    if backend == "sqlite":
        catalog = _open_copy(db_path, request.getfixturevalue("_seeded_file"), _seed)
        yield catalog
        catalog.close()
        return
    yield from _server_copy(request, "pg_seeded_template")
