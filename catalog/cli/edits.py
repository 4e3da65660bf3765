"""Changes to papers: tag, note, status, rate, title, edit (a paper's own fields), and split
(undoing a merge)."""

from __future__ import annotations

import click

from catalog.cli.common import _open


@click.command()
@click.argument("key")
@click.argument("numbers", nargs=-1, type=click.IntRange(min=1), metavar="[N]...")
@click.pass_context
def split(ctx, key, numbers):
    """Undo a merge: records that joined paper KEY become papers of their own.

    Without N, every record that joined KEY leaves it; with N, those of the sources numbered N
    in `catalog show KEY`. KEY keeps its key, tags, notes, status, rating and title, and gives
    back the fields only the leaving records gave it.
    """
    from catalog.cli import output

    result = _open(ctx).split(key, numbers)
    click.echo(f"Split {result.records} {'record' if result.records == 1 else 'records'} off "
               f"{result.kept.key} into {len(result.split_off)} new "
               f"{'paper' if len(result.split_off) == 1 else 'papers'}:", err=True)
    output.print_summaries([result.kept, *result.split_off])


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, required=True)
@click.pass_context
def tag(ctx, args):
    """Add (+name) and remove (-name) tags: catalog tag KEY [KEY...] +toread -later.

    Tags may be hierarchical (project/thesis); filtering by tag:project includes children.
    """
    from catalog.cli import output

    keys = [a for a in args if a[0] not in "+-"]
    add = [a[1:] for a in args if a.startswith("+")]
    remove = [a[1:] for a in args if a.startswith("-")]
    if not keys:
        raise click.UsageError("name a paper key first: catalog tag KEY +tag -tag")
    if not add and not remove:
        raise click.UsageError("say what to change: +tag to add, -tag to remove")
    output.print_summaries(_open(ctx).tag(keys, add, remove).papers)


@click.command()
@click.argument("key")
@click.argument("text", nargs=-1)
@click.option("--edit", "edit_number", type=int, default=None, is_flag=False, flag_value=0,
              metavar="[N]", help="Edit note N (1 = oldest; no N: the newest) in $EDITOR, or "
                                  "replace it with TEXT; with no notes yet, write the first.")
@click.option("--delete", "delete_number", type=int, default=None, metavar="N", help="Delete note N.")
@click.pass_context
def note(ctx, key, text, edit_number, delete_number):
    """Add a note to a paper (opens $EDITOR when TEXT is omitted), or edit/delete one."""
    catalog = _open(ctx)
    if delete_number is not None:
        removed = catalog.delete_note(key, delete_number).note
        click.echo(f"Deleted note {removed.number}.", err=True)
        return
    body = " ".join(text)
    notes = catalog.get(key).notes if edit_number is not None else ()
    if notes:
        number = edit_number or len(notes)
        current = notes[number - 1].body if 1 <= number <= len(notes) else ""
        body = body or _edit(current)
        if body.strip() == current.strip():
            click.echo("Note unchanged.", err=True)
            return
        saved = catalog.edit_note(key, number, body).note
    else:
        body = body or _edit("")
        saved = catalog.add_note(key, body).note
    click.echo(f"Saved note {saved.number}.", err=True)


def _edit(initial: str) -> str:
    from catalog.errors import CatalogError

    edited = click.edit(initial + "\n", extension=".md")
    if edited is None or not edited.strip():
        raise CatalogError("note not saved: the editor closed without text")
    return edited


@click.command()
@click.argument("args", nargs=-1, required=True, metavar="KEY... STATUS")
@click.pass_context
def status(ctx, args):
    """Set reading status: unread, queued, reading, read or skipped."""
    from catalog.cli import output

    if len(args) < 2:
        raise click.UsageError("usage: catalog status KEY [KEY...] STATUS")
    output.print_summaries(_open(ctx).set_status(list(args[:-1]), args[-1]).papers)


@click.command()
@click.argument("args", nargs=-1, required=True, metavar="KEY... RATING")
@click.pass_context
def rate(ctx, args):
    """Rate papers 1-5 (0 clears the rating)."""
    from catalog.cli import output

    if len(args) < 2 or not args[-1].isdigit():
        raise click.UsageError("usage: catalog rate KEY [KEY...] RATING (1-5, 0 to clear)")
    rating = int(args[-1])
    output.print_summaries(_open(ctx).set_rating(list(args[:-1]), rating or None).papers)


@click.command()
@click.argument("key")
@click.argument("text", nargs=-1)
@click.option("--clear", is_flag=True, help="Remove your title; the derived headline shows again.")
@click.pass_context
def title(ctx, key, text, clear):
    """Give a paper your own title (shown everywhere instead of the headline)."""
    from catalog.cli import output

    if not text and not clear:
        raise click.UsageError("give the title text, or --clear")
    output.print_summaries(_open(ctx).set_title(key, None if clear else " ".join(text)).papers)


@click.command("edit")
@click.argument("key")
@click.option("--title", help="The paper's title (as published; `catalog title` sets your own).")
@click.option("--authors", help='"First Last, First Last" (or separated by "and" or ";").')
@click.option("--venue")
@click.option("--year")
@click.option("--doi")
@click.option("--url")
@click.pass_context
def edit(ctx, key, **values):
    """Correct a paper's fields; an empty value ("") clears one. Exports write the corrected
    values, enrichment never overwrites them, and `catalog edit` again puts one back."""
    from catalog.cli import output

    values = {name: value for name, value in values.items() if value is not None}
    if not values:
        raise click.UsageError("say what to change: --title, --authors, --venue, --year, --doi or --url")
    done = _open(ctx).corrections.edit(key, values)
    if not done.changes:
        click.echo("Nothing changed: the paper already says so.", err=True)
    output.print_summaries(done.papers)


COMMANDS = (split, tag, note, status, rate, title, edit)
