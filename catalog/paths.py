"""Where the catalog database lives: --db, then $CATALOG_DB, then the user data directory."""

from __future__ import annotations

import os
import re
from pathlib import Path

ENV_VAR = "CATALOG_DB"
# Where a catalog can live. Only SQLite today; `sqlite:///PATH` (SQLAlchemy's spelling) is
# the same as PATH.
BACKENDS = ("sqlite",)
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", re.S)


def default_db_path() -> Path:
    from platformdirs import user_data_path

    return user_data_path("catalog", appauthor=False) / "catalog.db"


def resolve_db_path(option: str | os.PathLike[str] | None) -> tuple[Path, bool]:
    """The database path and whether it is the default one (which gets the bundled seeds)."""
    if option:
        return _file_path(str(option)), False
    if os.environ.get(ENV_VAR):
        return _file_path(os.environ[ENV_VAR]), False
    return default_db_path(), True


def _file_path(value: str) -> Path:
    """A path as given; a URL only in a backend this version has, else a one-line refusal
    (before anything is created: `postgresql://host/db` must not become a folder)."""
    url = _URL.match(value)
    if url is None:
        return Path(value).expanduser()
    scheme, rest = url[1].lower(), url[2]
    if scheme == "sqlite" and rest.startswith("/") and rest != "/":
        return Path(rest[1:]).expanduser()  # sqlite:///relative, sqlite:////absolute
    from catalog.errors import CatalogError

    shown = re.sub(r"://[^/@]*@", "://...@", value)  # no password in the message
    raise CatalogError(
        f"{shown} is a {scheme} URL; this version of catalog keeps catalogs in SQLite files "
        f"only (backends: {', '.join(BACKENDS)}): give a file path, or sqlite:///PATH")
