"""Where the package's bundled files are: inside an installed wheel, or in the checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _bundled(name_in_wheel: str, name_in_checkout: str) -> Path:
    inside = _PACKAGE / name_in_wheel
    return inside if inside.is_dir() else _PACKAGE.parent / name_in_checkout


def migrations_dir() -> Path:
    return _bundled("_migrations", "migrations")


def seeds_dir() -> Path:
    return _bundled("_seeds", "seeds")
