"""The program's shape, checked: all SQL lives in catalog/store/, the TUI and the CLI reach
the database only through Catalog, and the store's SQL builder gives exactly the SQL we mean."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "catalog"
# A string that starts a statement: what a module outside the store must never hold.
SQL_STATEMENT = re.compile(
    r"^\s*(SELECT\s|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX|TRIGGER|VIEW)"
    r"|DROP\s+(TABLE|INDEX|TRIGGER|VIEW)|ALTER\s+TABLE|PRAGMA\s|BEGIN\b|COMMIT\b|ROLLBACK\b|WITH\s+\w+\s+AS\s*\()",
    re.IGNORECASE)


def _modules(outside_store: bool = True):
    for path in sorted(PACKAGE.rglob("*.py")):
        if outside_store and path.relative_to(PACKAGE).parts[0] == "store":
            continue
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def _docstrings(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
                ids.add(id(node.body[0].value))
    return ids


def _strings(tree: ast.Module):
    """Every string constant but docstrings; an f-string's literal parts joined."""
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            yield node.lineno, "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


def test_no_sql_outside_the_store():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {text[:60]!r}"
             for path, tree in _modules() for line, text in _strings(tree) if SQL_STATEMENT.search(text)]
    assert found == []


def test_no_database_driver_outside_the_store():
    drivers = {"sqlite3", "psycopg", "sqlalchemy", "sqlmodel", "alembic"}
    found = []
    for path, tree in _modules():
        if path.name == "models.py":  # the SQLModel tables: the schema scripting users see
            continue
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.relative_to(PACKAGE.parent)} imports {n}" for n in names
                      if n.split(".")[0] in drivers]
    assert found == []


def test_the_tui_and_the_cli_reach_the_database_only_through_catalog():
    """They import neither the store nor the modules that take its transactions."""
    reaching = ("catalog.store", "catalog.importing.importer", "catalog.importing.dedupe", "catalog.importing.merges",
                "catalog.parts.changes", "catalog.parts.annotations", "catalog.importing.derived", "catalog.parts.doctor",
                "catalog.discover.related", "catalog.searching.lookup")
    found = []
    for path, tree in _modules():
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] not in ("tui", "cli"):
            continue
        for node in ast.walk(tree):
            module = (node.module if isinstance(node, ast.ImportFrom) else
                      next((a.name for a in node.names), "") if isinstance(node, ast.Import) else None)
            if module and module.startswith(reaching):
                found.append(f"{rel}: {module}")
            if isinstance(node, ast.ImportFrom) and node.module and not node.module.startswith(reaching):
                found += [f"{rel}: {node.module}.{a.name}" for a in node.names
                          if f"{node.module}.{a.name}".startswith(reaching)]
    assert found == []


def test_the_prepared_row_and_the_stores_columns_agree():
    from catalog.importing.prepare import PaperRow
    from catalog.store.imports import PAPER_COLUMNS

    assert PaperRow._fields == PAPER_COLUMNS


def _imported_modules(tree: ast.Module) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names]
    return out


def test_above_the_store_only_its_face_is_imported():
    """Code above the store sees its interfaces (catalog.store, store/base/, the named results
    of store/rows.py), never a backend's or a role's implementation module: a backend can
    change, or another be added, without a change above it."""
    face = ("catalog.store.base", "catalog.store.rows")
    found = []
    for path, tree in _modules():
        for module in _imported_modules(tree):
            name = module.removeprefix("catalog.store.")
            is_module = (PACKAGE / "store" / f"{name.split('.')[0]}.py").exists() or (
                PACKAGE / "store" / name.split(".")[0]).is_dir()
            if module.startswith("catalog.store.") and is_module and not module.startswith(face):
                found.append(f"{path.relative_to(PACKAGE)}: {module}")
    assert found == []


def test_the_store_imports_nothing_above_it_and_postgres_nothing_of_sqlite():
    """The store is the bottom of the house: it never reaches up into the import pipeline,
    discovery, the library or the interfaces (their steps come in as arguments); and the
    PostgreSQL backend shares only what store/ itself holds."""
    above = ("catalog.importing", "catalog.discover", "catalog.library", "catalog.parts", "catalog.cli",
             "catalog.tui", "catalog.export")
    found = []
    for path, tree in _modules(outside_store=False):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] != "store":
            continue
        for module in _imported_modules(tree):
            if module.startswith(above) or (rel.parts[1] == "postgres" and module.startswith("catalog.store.sqlite")):
                found.append(f"{rel}: {module}")
    assert found == []


# A tuple read by position: `tuple[str, int]`, `tuple` alone, or a list or dict of them
# (`tuple[X, ...]` of named results is fine).
BY_POSITION = re.compile(r"^tuple$|tuple\[(?![^\]]*\.\.\.)[^\]]*,|tuple\]")
# `catalog sql`'s rows are the user's own columns.
PLAIN_RESULTS = {"Admin.run_sql"}


def test_catalog_and_its_parts_hand_out_named_results():
    """What the CLI and the TUI get from Catalog (library.py) and its parts (parts/: catalog.files,
    .citing, ...) and their helpers is read by name (`found.attachment`), never by position. The
    store's roles are checked alike in tests/test_store_seam.py."""
    found = []
    helpers = ("parts", "attachments", "desktop")
    for path in sorted([*PACKAGE.glob("*.py"), *(p for h in helpers for p in (PACKAGE / h).glob("*.py"))]):
        for cls in ast.parse(path.read_text(encoding="utf-8")).body:
            for method in cls.body if isinstance(cls, ast.ClassDef) else ():
                if (isinstance(method, ast.FunctionDef) and not method.name.startswith("_")
                        and method.returns is not None and f"{cls.name}.{method.name}" not in PLAIN_RESULTS
                        and BY_POSITION.search(ast.unparse(method.returns))):
                    found.append(f"{path.name}: {cls.name}.{method.name} -> {ast.unparse(method.returns)}")
    assert found == []


def test_no_module_is_loaded_by_its_name():
    """What the program runs is named by its imports (a reader, and farm-studio, can follow
    it): no importlib.import_module or __import__ of a name made at run time."""
    found = [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}" for path, tree in _modules(outside_store=False)
             for node in ast.walk(tree)
             if (isinstance(node, ast.Attribute) and node.attr == "import_module")
             or (isinstance(node, ast.Name) and node.id in ("import_module", "__import__"))]
    assert found == []


def test_classes_are_composed_not_stacked():
    """At most three bases a class, and no class over 600 lines counting its bases, in the
    whole package (the store's transactions, Catalog and its parts, the TUI's screens): a
    reader finds what an object does in one or two places, and no method waits for a later
    base to override it."""
    import importlib
    import inspect
    import pkgutil

    import catalog

    found = []
    for module in pkgutil.walk_packages(catalog.__path__, "catalog."):
        needs = {"catalog.store.postgres": "psycopg", "catalog.discover": "numpy"}
        extra = next((name for prefix, name in needs.items() if module.name.startswith(prefix)), None)
        if extra is not None and importlib.util.find_spec(extra) is None:
            continue  # an extra not installed here
        loaded = importlib.import_module(module.name)
        for name, cls in inspect.getmembers(loaded, inspect.isclass):
            if cls.__module__ != loaded.__name__:
                continue
            bases = [b for b in cls.__bases__ if b is not object]
            lines = sum(len(inspect.getsource(k).splitlines()) for k in cls.__mro__
                        if k.__module__.startswith("catalog."))
            if len(bases) > 3 or lines > 600:
                found.append(f"{module.name}.{name}: {len(bases)} bases, {lines} lines")
    assert found == []


def test_the_top_of_the_package_holds_only_shared_pieces():
    """A module's package says what it is (docs/architecture.md draws the house): at the top
    stay only the entry point, Catalog, the schema and the small pieces every layer shares.
    A new Catalog part goes in parts/, a new helper in the package of its area."""
    top = {path.stem for path in PACKAGE.glob("*.py")}
    assert top == {"__init__", "__main__", "library", "models", "errors", "rules", "paths", "extras", "resources"}
