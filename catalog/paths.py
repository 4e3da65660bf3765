"""Where the catalog lives: --db, then $CATALOG_DB, then the user data directory; and who you
are in a catalog file ($CATALOG_USER). On a server you are the database role the URL connects
as, whatever $CATALOG_USER says (store/postgres/store.py).

A location is a file path (SQLite) or a `postgresql://` URL (a catalog shared on a PostgreSQL
server; any libpq URL). A URL's password never appears in a message: `shown()` hides it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ENV_VAR = "CATALOG_DB"
USER_VAR = "CATALOG_USER"
# Where a catalog can live. `sqlite:///PATH` (SQLAlchemy's spelling) is the same as PATH.
BACKENDS = ("sqlite", "postgresql")
SERVER_SCHEMES = ("postgresql", "postgres")
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", re.S)

#: A catalog's location: a file, or a server URL (kept as the string the user gave).
Location = Path | str


def default_db_path() -> Path:
    from platformdirs import user_data_path

    return user_data_path("catalog", appauthor=False) / "catalog.db"


def resolve_db_path(option: str | os.PathLike[str] | None) -> tuple[Location, bool]:
    """The catalog's location and whether it is the default one (which gets the bundled seeds)."""
    if option:
        return location_of(str(option)), False
    if os.environ.get(ENV_VAR):
        return location_of(os.environ[ENV_VAR]), False
    return default_db_path(), True


def is_server_url(value: object) -> bool:
    url = _URL.match(value) if isinstance(value, str) else None
    return url is not None and url[1].lower() in SERVER_SCHEMES


def location_of(value: str) -> Location:
    """A path as given, or a PostgreSQL URL; another URL gets a one-line refusal (before
    anything is created: `mysql://host/db` must not become a folder)."""
    url = _URL.match(value)
    if url is None:
        return Path(value).expanduser()
    scheme, rest = url[1].lower(), url[2]
    if scheme in SERVER_SCHEMES:
        return value
    if scheme == "sqlite" and rest.startswith("/") and rest != "/":
        return Path(rest[1:]).expanduser()  # sqlite:///relative, sqlite:////absolute
    from catalog.errors import CatalogError

    raise CatalogError(
        f"{shown(value)} is a {scheme} URL; catalog keeps catalogs in SQLite files or on a "
        f"PostgreSQL server (backends: {', '.join(BACKENDS)}): give a file path, sqlite:///PATH "
        "or postgresql://USER@HOST/DBNAME")


def shown(location: Location) -> str:
    """A location as messages show it: a URL without its password."""
    text = str(location)
    if _URL.match(text) is None:
        return text
    text = re.sub(r"^([^:/]+://[^/@:]*):[^/@]*@", r"\1:...@", text)  # user:password@
    return re.sub(r"(?i)([?&]password=)[^&]*", r"\1...", text)


def current_user() -> str | None:
    """Who you are in a catalog file, when $CATALOG_USER says so (one line, no control
    characters); None: the file's owner, else the login name. A server ignores it."""
    from catalog.text.terminal import safe

    name = " ".join(safe(os.environ.get(USER_VAR) or "").split())
    return name[:100] or None


def login_name() -> str:
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # no login name (a container without a passwd entry)
        return "me"
