"""What every command shares: the one-line failure, the catalog the command opens, common options."""

from __future__ import annotations

import sys

import click

EPILOG = ("Query language: words (any form), \"phrases\", =word or =\"a phrase\" (this form), OR, -word, prefix*,"
          " venue:ICML year:2024..2026 tag:x status:read rating:>=4 has:notes notice:retracted topic:3; a key, DOI or"
          " arXiv id alone finds that paper")


def _fail(message: str, code: int = 1):
    from catalog.text.terminal import safe

    click.echo(f"catalog: {safe(message)}", err=True)
    sys.exit(code)


def _open(ctx: click.Context, *, create: bool = False):
    """The catalog named by --db / $CATALOG_DB / the default (seeded on first use). Another
    file that does not exist yet is made only by commands that bring papers (`create`:
    import); the others say there is no catalog there and leave nothing behind."""
    from catalog.library import Catalog
    from catalog.paths import resolve_db_path
    from catalog.text.terminal import safe

    if "catalog" not in ctx.meta:
        path, is_default = resolve_db_path(ctx.find_root().params.get("db"))
        ctx.meta["catalog"] = Catalog.open(
            path, seed=is_default, create=create,
            notify=lambda m: click.echo(safe(m), err=True)
        )
        ctx.call_on_close(ctx.meta["catalog"].close)
    return ctx.meta["catalog"]


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
SORTS = ("relevance", "year", "rating", "title", "added")  # catalog.searching.query.SORTS (a test checks)


def sort_options(default: str):
    def decorate(command):
        command = click.option("--reverse", is_flag=True, help="Sort the other way round.")(command)
        return click.option(
            "--sort", type=click.Choice(SORTS), default=default, show_default=True,
            help="Order: relevance (best match; newest without words), year (newest), rating "
                 "(best; unrated last), title (A-Z), added (newest).")(command)
    return decorate

