"""Where the catalog database lives: --db, then $CATALOG_DB, then the user data directory."""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "CATALOG_DB"


def default_db_path() -> Path:
    from platformdirs import user_data_path

    return user_data_path("catalog", appauthor=False) / "catalog.db"


def resolve_db_path(option: str | os.PathLike[str] | None) -> tuple[Path, bool]:
    """The database path and whether it is the default one (which gets the bundled seeds)."""
    if option:
        return Path(option).expanduser(), False
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser(), False
    return default_db_path(), True
