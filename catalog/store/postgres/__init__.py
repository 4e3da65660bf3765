"""The PostgreSQL backend: a catalog shared on a server (psycopg 3). Imported only for a
postgresql:// location, so the SQLite paths never load psycopg.

psycopg and psycopg-binary each read their own version at import through importlib.metadata:
a scan of every installed distribution, and the imports of email, zipfile and csv it needs,
about 40% of psycopg's import (70-100 ms of CPU on a loaded 2-core machine), paid by every
command on a server, the TUI's start included, before its first statement. Their two version
modules are given here from the names of the distributions' folders instead (psycopg is
pinned in pyproject.toml; where those folders are not found, psycopg imports as usual)."""

from __future__ import annotations

import sys


def _known_versions() -> None:
    import importlib.util
    import os
    import types

    spec = importlib.util.find_spec("psycopg")
    if spec is None or spec.origin is None:
        return
    found = {}
    try:
        with os.scandir(os.path.dirname(os.path.dirname(spec.origin))) as entries:
            for entry in entries:
                if entry.name.endswith(".dist-info"):
                    dist, _, version = entry.name[:-len(".dist-info")].partition("-")
                    found[dist] = version
    except OSError:
        return
    for dist, module in (("psycopg", "psycopg.version"), ("psycopg_binary", "psycopg_binary.version")):
        if found.get(dist) and module not in sys.modules:
            stub = types.ModuleType(module, f"{dist}'s version (catalog/store/postgres/__init__.py)")
            stub.__version__ = found[dist]
            sys.modules[module] = stub


if "psycopg" not in sys.modules:
    _known_versions()
