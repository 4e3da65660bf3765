"""The optional parts of catalog and the extra that installs each.

    pip install 'catalog[discover]'   similar papers, recommendations, topics, triage's ranking
    pip install 'catalog[postgres]'   shared catalogs on a PostgreSQL server

Checked by finding the modules, not importing them: a command that does not use a part pays
nothing for it, and one that does gets a single line naming the extra instead of a traceback.
"""

from __future__ import annotations

from importlib.util import find_spec

from catalog.errors import CatalogError

EXTRAS = {
    "discover": (("numpy", "scipy", "sklearn"), "similar papers, recommendations and topics need"),
    "postgres": (("psycopg",), "a PostgreSQL catalog needs"),
}


class MissingExtra(CatalogError):
    """A command needs an optional part that is not installed."""


def missing(extra: str) -> list[str]:
    """The modules of `extra` that cannot be found."""
    modules, _ = EXTRAS[extra]
    return [name for name in modules if find_spec(name) is None]


def installed(extra: str) -> bool:
    return not missing(extra)


def require(extra: str) -> None:
    """MissingExtra, naming the extra and how to install it, unless all of it is there."""
    absent = missing(extra)
    if absent:
        _, needs = EXTRAS[extra]
        names = ", ".join("scikit-learn" if name == "sklearn" else name for name in absent)
        raise MissingExtra(f"{needs} {names}, which this installation lacks: "
                           f"pip install 'catalog[{extra}]'")
