"""The tag vocabulary: `catalog tags` lists the tags; rename, merge and delete change a tag on
every paper (catalog/parts/vocabulary.py), and `catalog tags undo` takes the last of those back.

The last change is kept per person and per catalog in a small JSON file in the user's state
directory ($CATALOG_STATE_DIR overrides it, as for the TUI's session): a shell has no undo
stack, and on a shared server another member's change must never be what your undo takes
back. Undo writes what it did there, so a second undo is a redo."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import click

from catalog.cli.common import _open, json_option

JOURNAL = "tags-undo.json"


@click.group(invoke_without_command=True)
@json_option
@click.pass_context
def tags(ctx, as_json):
    """All tags with the number of papers carrying each; rename, merge and delete them.

    A tag includes its children: renaming project renames project/thesis too. Each change
    can be taken back with `catalog tags undo`."""
    if ctx.invoked_subcommand is not None:
        return
    from catalog.cli import output

    found = _open(ctx).tags()
    if as_json:
        output.print_json([{"tag": t.name, "papers": t.count} for t in found])
    elif not found:
        click.echo("No tags yet: catalog tag KEY +name", err=True)
    else:
        output.print_tags(found)


@tags.command("rename")
@click.argument("old")
@click.argument("new")
@click.pass_context
def tags_rename(ctx, old, new):
    """Rename tag OLD (and OLD/...) to NEW on every paper; an existing NEW absorbs it."""
    catalog = _open(ctx)
    _done(ctx, catalog.vocabulary.rename(old, new), f"Renamed {old} to {new}")


@tags.command("merge")
@click.argument("names", nargs=-1, required=True, metavar="TAG... INTO")
@click.pass_context
def tags_merge(ctx, names):
    """Merge tags into the last one named: catalog tags merge ml machine-learning learning."""
    if len(names) < 2:
        raise click.UsageError("usage: catalog tags merge TAG [TAG...] INTO")
    catalog = _open(ctx)
    _done(ctx, catalog.vocabulary.merge(names[:-1], names[-1]), f"Merged {', '.join(names[:-1])} into {names[-1]}")


@tags.command("delete")
@click.argument("name")
@click.pass_context
def tags_delete(ctx, name):
    """Take tag NAME (and NAME/...) off every paper."""
    catalog = _open(ctx)
    _done(ctx, catalog.vocabulary.delete(name), f"Deleted {name}")


@tags.command("undo")
@click.pass_context
def tags_undo(ctx):
    """Take back the last rename, merge or delete (again: redo it)."""
    from catalog.errors import CatalogError
    from catalog.results import Edit

    catalog = _open(ctx)
    changes = _journal_read(catalog.location)
    if not changes:
        raise CatalogError("no tag rename, merge or delete to undo in this catalog")
    edit = catalog.undo(Edit(changes))
    catalog.citing.keep_current()
    for conflict in edit.conflicts:
        click.echo(f"Left alone: {conflict}", err=True)
    # What came off and what went back on: "Undone: 13 papers changed" did not say which.
    off = sorted({t for c in edit.changes for t in c.removed})
    on = sorted({t for c in edit.changes for t in c.added})
    what = (f"{', '.join(off)} back to {', '.join(on)}" if off and on
            else f"{', '.join(on)} put back" if on else f"{', '.join(off)} taken off" if off else "nothing")
    _done(ctx, edit, f"Undone: {what}", undo=True)


def _done(ctx, edit, what: str, undo: bool = False) -> None:
    from catalog.text.terminal import safe

    _journal_write(_open(ctx).location, edit.changes)
    papers = len({c.key for c in edit.changes})
    counted = f"{papers:,} {'paper' if papers == 1 else 'papers'}"
    again = "redoes it" if undo else "takes it back"
    click.echo(safe((f"{what} on {counted}" if undo else f"{what}: {counted} changed")
                    + (f" (catalog tags undo {again})" if papers else "")), err=True)


# --- the journal: the last change per catalog -----------------------------------------------

def _journal_path() -> Path:
    directory = os.environ.get("CATALOG_STATE_DIR")
    if directory:
        return Path(directory) / JOURNAL
    from platformdirs import user_state_path

    return user_state_path("catalog", appauthor=False) / JOURNAL


def _journal_all() -> dict:
    try:
        data = json.loads(_journal_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or unreadable: nothing to undo
    return data if isinstance(data, dict) else {}


def _journal_read(location: str) -> tuple:
    from catalog.results import TagsChanged
    from catalog.tui.state import catalog_identity

    rows = _journal_all().get(catalog_identity(str(location)), [])
    try:
        return tuple(TagsChanged(r["key"], tuple(r["added"]), tuple(r["removed"])) for r in rows)
    except (KeyError, TypeError):
        return ()


def _journal_write(location: str, changes) -> None:
    from catalog.tui.state import catalog_identity

    data = _journal_all()
    data[catalog_identity(str(location))] = [
        {"key": c.key, "added": list(c.added), "removed": list(c.removed)} for c in changes]
    path = _journal_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tags-undo-")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(tmp, path)
    except OSError as exc:  # the change is made; only its undo is lost
        click.echo(f"warning: cannot keep the undo ({exc.strerror})", err=True)


COMMANDS = (tags,)
