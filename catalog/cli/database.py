"""The database itself: doctor, sql, backup, copy and the db group (path, upgrade, current, history)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from catalog.cli.common import _fail, _open, json_option


@click.command()
@click.argument("statement")
@click.option("--timeout", default=60.0, show_default=True, type=float, metavar="SECONDS",
              help="Stop the query after this long. Ctrl-C stops it at any time.")
@json_option
@click.pass_context
def sql(ctx, statement, timeout, as_json):
    """Run a read-only SQL query against the catalog (writes are refused).

    Into a pipe or a file the rows are tab-separated values with a header line.
    """
    import math
    import signal
    import threading

    from catalog.cli import output
    from catalog.errors import Interrupted

    if not (math.isfinite(timeout) and timeout > 0):
        _fail(f"--timeout {timeout:g}: give the seconds the query may take, a number above 0 like 60")
    if not statement.strip().strip(";").strip():
        _fail('nothing to run: give one SQL statement, like "SELECT count(*) FROM papers"')
    catalog = _open(ctx)
    # SQLite holds the thread until the statement ends: Ctrl-C sets a flag its progress
    # handler checks (signal handlers can only be set from the main thread). Only Python's
    # own Ctrl-C handling is replaced, as at start-up (catalog/__main__.py): a SIGINT the
    # caller ignores (a shell's background job) stays ignored.
    stop = threading.Event()
    own = (threading.current_thread() is threading.main_thread()
           and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set()) if own else None
    try:
        columns, rows = catalog.run_sql(statement, timeout=timeout, cancelled=stop.is_set)
    except Interrupted:
        raise KeyboardInterrupt from None
    finally:
        if own:
            signal.signal(signal.SIGINT, previous)
    if as_json:
        output.print_json([dict(zip(columns, r)) for r in rows])
    else:
        output.print_table(columns, rows)


@click.command()
@click.option("--fix", is_flag=True, help="Repair what is wrong (a file is copied first; on a server, one transaction).")
@click.option("--find-files", type=click.Path(exists=True, file_okay=False, path_type=Path), metavar="FOLDER",
              help="First look for missing attached files in FOLDER, by their bytes, and keep them where found.")
@click.pass_context
def doctor(ctx, fix, find_files):
    """Check the database (integrity, search index, rows pointing nowhere); --fix repairs.

    Exits non-zero while something is wrong.
    """
    from catalog.cli import output
    from catalog.library import Catalog
    from catalog.paths import resolve_db_path
    from catalog.text.terminal import safe

    if find_files is not None:
        for key, attachment, where in _open(ctx).find_files(find_files):
            click.echo(f"found {key}'s file {attachment.number} ({safe(attachment.name)}) at {safe(str(where))}", err=True)
    # Not _open: doctor is what people run on a file the other commands refuse.
    path, _ = resolve_db_path(ctx.find_root().params.get("db"))
    report = Catalog.check(path, fix=fix, notify=lambda m: click.echo(safe(m), err=True))
    output.print_doctor(report)
    if not report.healthy:
        sys.exit(1)


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace PATH if it exists.")
@click.pass_context
def backup(ctx, path, force):
    """Copy the catalog to PATH consistently (SQLite's backup API), even while the TUI is open."""
    target = _open(ctx).backup(path, force=force)
    click.echo(f"Backed up to {target}", err=True)


@click.group()
def db():
    """The database file: where it is and its schema version."""


@click.command("copy")
@click.argument("source")
@click.argument("target")
def copy_cmd(source, target):
    """Copy a whole catalog (papers, tags, notes, everyone's status and ratings, saved
    searches) from SOURCE to TARGET: each a file or a postgresql:// URL. TARGET is created,
    or must be an empty database. Keys stay the same."""
    from catalog.library import Catalog
    from catalog.paths import location_of, shown
    from catalog.text.terminal import safe

    notify = lambda m: click.echo(safe(m), err=True)  # noqa: E731
    src = location_of(source)
    if isinstance(src, Path) and not src.exists():
        _fail(f"there is no catalog at {src} to copy")
    catalog = Catalog.open(src, notify=notify)
    try:
        counts = catalog.copy_to(location_of(target), notify=notify)
    finally:
        catalog.close()
    click.echo(f"Copied {counts['paper']} papers, {counts['tag']} tags, {counts['note']} notes and "
               f"{counts['paper_reader']} reading marks to {safe(shown(location_of(target)))}", err=True)


@db.command("path")
def db_path():
    """Print the path of the catalog database."""
    from catalog.paths import resolve_db_path, shown

    click.echo(shown(resolve_db_path(click.get_current_context().find_root().params.get("db"))[0]))


@db.command("upgrade")
@click.pass_context
def db_upgrade(ctx):
    """Migrate the database to this version's schema (done automatically on open)."""
    catalog = _open(ctx)
    click.echo(f"{catalog.store.location} is at schema {catalog.schema_revision()} (head)")


@db.command("current")
@click.pass_context
def db_current(ctx):
    """Print the database's schema revision."""
    click.echo(_open(ctx).schema_revision())


@db.command("history")
def db_history():
    """List the schema migrations, oldest first."""
    from catalog.library import Catalog

    for revision, parent, message in Catalog.schema_history():
        click.echo(f"{parent or '<base>'} -> {revision}  {message.strip()}")


COMMANDS = (doctor, sql, backup, copy_cmd, db)
