"""Attached files: attach, detach, files (`catalog open` opens them: searching.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from catalog.cli.common import _fail, _open, json_option


@click.command()
@click.argument("key")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--link/--copy", default=None,
              help="Leave the files where they are (link), or copy them into the catalog's folder of "
                   "files (the default; $CATALOG_ATTACH=link changes it).")
@click.pass_context
def attach(ctx, key, files, link):
    """Attach files (PDFs first; any file) to paper KEY.

    Copies go into the folder of files beside the catalog ($CATALOG_FILES), named
    "{year} {author} - {title}.pdf" ($CATALOG_FILE_NAMES). Attaching the same bytes again
    changes nothing."""
    from catalog.cli import output

    catalog = _open(ctx)
    for path in files:
        attachment, new = catalog.attach_file(key, path, link=link)
        if new:
            click.echo(f"attached {path} as {attachment.number}: {attachment.location}", err=True)
        else:
            click.echo(f"{path} is attached already, as {attachment.number}", err=True)
    catalog.read_texts(lambda attachment, state: _said(attachment, state))
    output.print_attachments(catalog.attachments(key))


def _said(attachment, state: str) -> None:
    """One line for a PDF whose text cannot be searched."""
    if state != "text":
        click.echo(f"{attachment.name}: {TEXT_STATES[state]}; attached, but its text is not searched", err=True)


TEXT_STATES = {"no text": "no text layer (scanned pages?)", "encrypted": "encrypted (a password is needed)",
               "unreadable": "not a PDF that can be read (damaged?)"}


@click.command()
@click.argument("key")
@click.argument("number", type=click.IntRange(1), required=False)
@click.option("--yes", "-y", is_flag=True, help="Delete a copy in the folder of files without asking.")
@click.pass_context
def detach(ctx, key, number, yes):
    """Detach file NUMBER (as `catalog files KEY` numbers them) from paper KEY.

    A copy in the catalog's folder of files is deleted, after a question or --yes; a linked
    file is never touched."""
    catalog = _open(ctx)
    found = catalog.attachments(key)
    if number is None:
        if len(found) != 1:
            _fail(f"paper {key} has {len(found) or 'no'} attached files: say which (catalog files {key})"
                  if found else f"paper {key} has no attached files")
        number = 1
    if not 1 <= number <= len(found):
        _fail(f"paper {key} has no attached file {number} (it has {len(found) or 'none'})")
    chosen = found[number - 1]
    if chosen.stored == "managed" and chosen.present and not yes:
        if not sys.stdin.isatty():
            _fail(f"detaching deletes {chosen.location}: add --yes to do it without a question")
        click.confirm(f"Detach and delete {chosen.location}?", abort=True, err=True)
    gone = catalog.detach(key, number)
    deleted = " and deleted" if gone.stored == "managed" else ""
    click.echo(f"detached{deleted} {gone.location or gone.path}", err=True)


@click.command()
@click.argument("key")
@click.option("--notes", is_flag=True,
              help="First read the highlights and comments made in its PDFs into its notes (each once).")
@click.option("--rename", is_flag=True,
              help="First give its copies in the folder of files the names its details make now.")
@json_option
@click.pass_context
def files(ctx, key, notes, rename, as_json):
    """List the files attached to paper KEY: name, pages, size, where, and whether it is there."""
    from catalog.cli import output

    catalog = _open(ctx)
    if rename:
        for old, new in catalog.rename_files(key):
            click.echo(f"renamed {old} to {new}", err=True)
    if notes:
        added = catalog.read_pdf_notes(key)
        click.echo(f"{added} new note{'s' if added != 1 else ''} from the PDFs' highlights and comments", err=True)
    found = catalog.attachments(key)
    if as_json:
        output.print_json([a.as_json() for a in found])
    elif not found:
        click.echo(f"no files attached to {key}: catalog attach {key} FILE", err=True)
    else:
        output.print_attachments(found)


COMMANDS = (attach, detach, files)
