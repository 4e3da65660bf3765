"""The `catalog` command: parse arguments, call the library, print. Nothing else lives here.

This module builds the command group and dispatches; the commands live beside it, one module
per group, as MODULES lists them; common.py holds what they share. A command's module is
imported when that command runs (or when --help lists them all), so `catalog search` does not
load what `import`, `export` or `doctor` need (a test holds MODULES to each module's own
COMMANDS)."""

from __future__ import annotations

import click

from catalog.cli.common import EPILOG, SORTS, _fail

__all__ = ["MODULES", "SORTS", "main"]

MODULES = {
    "files": ("import", "export", "annotations", "citekey", "bib"),
    "web": ("add", "enrich", "refs", "cited-by", "fetch-pdf"),
    "attachments": ("attach", "detach", "files"),
    "searching": ("search", "list", "show", "open", "authors", "stats", "saved", "acronyms", "tui"),
    "tags": ("tags",),
    "discovery": ("similar", "recommend", "topics"),
    "edits": ("split", "tag", "note", "status", "rate", "title", "edit"),
    "database": ("doctor", "sql", "backup", "copy", "db"),
    "sharing": ("share",),
}
_MODULE_OF = {command: module for module, commands in MODULES.items() for command in commands}


class CatalogGroup(click.Group):
    """Turns the errors users can cause into one line on stderr and a non-zero exit; loads each
    command's module when the command is asked for (MODULES)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_MODULE_OF)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in _MODULE_OF:
            for command in _commands_of(_MODULE_OF[name]):
                self.add_command(command)
        return self.commands.get(name)

    def make_context(self, *args, **kwargs) -> click.Context:
        # Ctrl-C while the arguments are read would be click's own "Aborted!" and status 1.
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            _interrupted()

    def invoke(self, ctx: click.Context):
        from catalog.errors import CatalogError, StoreError

        try:
            return super().invoke(ctx)
        except CatalogError as exc:
            _fail(str(exc))
        except KeyboardInterrupt:
            _interrupted()
        except UnicodeEncodeError as exc:
            # Arguments that are not valid UTF-8 reach Python as lone surrogates.
            bad = exc.object[max(0, exc.start - 20):exc.end + 20]
            _fail(f"text is not valid UTF-8 (check the terminal's encoding): {bad!r}")
        except StoreError as exc:  # the database itself failing: still one line, no traceback
            _fail(f"database error: {exc}")
        except Exception as exc:
            if _a_query_error(exc):
                _fail(str(exc))
            if not _an_interrupt_in_disguise(exc):
                raise
            _interrupted()


def _a_query_error(exc: Exception) -> bool:
    """A query that cannot mean anything (catalog/searching/query.py's QueryError). Its module is
    imported here, not before the command runs: `catalog --help` never loads it, and whatever
    raised one has loaded it already."""
    from catalog.searching.query import QueryError

    return isinstance(exc, QueryError)


def _commands_of(module: str) -> tuple[click.Command, ...]:
    """The commands of one of MODULES, imported now (each import written out, so that a reader
    and farm-studio can follow it)."""
    match module:
        case "files":
            from catalog.cli import files as loaded
        case "web":
            from catalog.cli import web as loaded
        case "attachments":
            from catalog.cli import attachments as loaded
        case "searching":
            from catalog.cli import searching as loaded
        case "tags":
            from catalog.cli import tags as loaded
        case "discovery":
            from catalog.cli import discovery as loaded
        case "edits":
            from catalog.cli import edits as loaded
        case "database":
            from catalog.cli import database as loaded
        case "sharing":
            from catalog.cli import sharing as loaded
    return loaded.COMMANDS


def _interrupted():
    """Ctrl-C: one line and status 130, and nothing after it (PDFium's exit-time cleanup)."""
    from catalog.attachments.pdftext import quiet_after_interrupt

    quiet_after_interrupt()
    _fail("interrupted", code=130)


def _an_interrupt_in_disguise(exc: Exception) -> bool:
    """Ctrl-C that lands while ctypes converts a call's arguments (pypdfium2 reading a PDF)
    comes out as ctypes.ArgumentError("argument 1: KeyboardInterrupt: "), the interrupt
    itself dropped: ctypes keeps only its name. One that lands in a class's __set_name__ while
    a module loads (a dataclass field's, Catalog's parts': modules load as a command runs)
    comes out as the RuntimeError it caused (Python 3.11)."""
    return ((type(exc).__name__ == "ArgumentError" and ": KeyboardInterrupt" in str(exc))
            or isinstance(exc.__cause__, KeyboardInterrupt))


@click.group(cls=CatalogGroup, epilog=EPILOG,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", type=click.Path(), envvar=None,
              help="Catalog database file (default: $CATALOG_DB, else your data directory).")
@click.version_option(package_name="catalog")
def main(db):
    """A personal research-paper catalog: import paper lists, search, tag, rate, annotate."""
