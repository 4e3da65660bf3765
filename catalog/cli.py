"""The `catalog` command: parse arguments, call the library, print. Nothing else lives here."""

from __future__ import annotations

import sys
from pathlib import Path

import click

EPILOG = ("Query language: words (any form), \"phrases\", =word or =\"a phrase\" (this form), OR, -word, prefix*,"
          " venue:ICML year:2024..2026 tag:x status:read rating:>=4 has:notes topic:3; a key, DOI or"
          " arXiv id alone finds that paper")


class CatalogGroup(click.Group):
    """Turns the errors users can cause into one line on stderr and a non-zero exit."""

    def invoke(self, ctx: click.Context):
        from catalog.errors import CatalogError, StoreError
        from catalog.query import QueryError

        try:
            return super().invoke(ctx)
        except (CatalogError, QueryError) as exc:
            _fail(str(exc))
        except KeyboardInterrupt:
            _fail("interrupted", code=130)
        except UnicodeEncodeError as exc:
            # Arguments that are not valid UTF-8 reach Python as lone surrogates.
            bad = exc.object[max(0, exc.start - 20):exc.end + 20]
            _fail(f"text is not valid UTF-8 (check the terminal's encoding): {bad!r}")
        except StoreError as exc:  # the database itself failing: still one line, no traceback
            _fail(f"database error: {exc}")


def _fail(message: str, code: int = 1):
    from catalog.text.terminal import safe

    click.echo(f"catalog: {safe(message)}", err=True)
    sys.exit(code)


def _open(ctx: click.Context):
    """The catalog named by --db / $CATALOG_DB / the default (seeded on first use)."""
    from catalog.library import Catalog
    from catalog.paths import resolve_db_path
    from catalog.text.terminal import safe

    if "catalog" not in ctx.meta:
        path, is_default = resolve_db_path(ctx.find_root().params.get("db"))
        ctx.meta["catalog"] = Catalog.open(
            path, seed=is_default, notify=lambda m: click.echo(safe(m), err=True)
        )
        ctx.call_on_close(ctx.meta["catalog"].close)
    return ctx.meta["catalog"]


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
SORTS = ("relevance", "year", "rating", "title", "added")  # catalog.query.SORTS (a test checks)


def sort_options(default: str):
    def decorate(command):
        command = click.option("--reverse", is_flag=True, help="Sort the other way round.")(command)
        return click.option(
            "--sort", type=click.Choice(SORTS), default=default, show_default=True,
            help="Order: relevance (best match; newest without words), year (newest), rating "
                 "(best; unrated last), title (A-Z), added (newest).")(command)
    return decorate


@click.group(cls=CatalogGroup, epilog=EPILOG,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", type=click.Path(), envvar=None,
              help="Catalog database file (default: $CATALOG_DB, else your data directory).")
@click.version_option(package_name="catalog")
def main(db):
    """A personal research-paper catalog: import paper lists, search, tag, rate, annotate."""


@main.command("import")
# readable=False: a file that cannot be read is reported like any failing file, and the rest import.
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False, path_type=Path))
@click.option("--venue", help="Venue for files without a header line (overrides the header).")
@click.option("--year", type=click.IntRange(1900, 2100), help="Year for files without a header line.")
@click.option("--map", "mapping", multiple=True, metavar="FIELD=COLUMN",
              help="JSON/CSV: read FIELD (title, abstract, authors, year, venue, doi, url, arxiv_id) "
                   "from COLUMN. Repeatable.")
@click.option("--verbose", "-v", is_flag=True,
              help="List each merge: which entry went into which paper, on what evidence.")
@click.pass_context
def import_cmd(ctx, paths, venue, year, mapping, verbose):
    """Import paper lists, BibTeX (.bib), RIS (.ris), JSON/JSONL and CSV files, or folders of them.

    Papers already in the catalog (same DOI, arXiv id, abstract or title, when nothing
    contradicts it) are not added again: their empty fields are filled in, and your tags,
    notes and ratings stay. Re-importing a file changes nothing. Bad entries are reported
    and skipped. `catalog split KEY` undoes a wrong merge.
    """
    from catalog.progress import import_progress
    from catalog.text.terminal import safe

    catalog = _open(ctx)
    with import_progress(paths) as advance:
        report = catalog.import_paths(paths, venue=venue, year=year, progress=advance, mapping=mapping,
                                      background=True)  # the discovery cache: catalog/refresher.py
    if not report.files:
        _fail("nothing to import: no paper lists (.txt, .md), .bib, .json, .jsonl or .csv files in "
              + ", ".join(str(p) for p in paths))
    for warning in report.warnings:
        click.echo(f"catalog: skipped {safe(str(warning))}", err=True)
    for f in report.errors:
        click.echo(f"catalog: {safe(f.error)}", err=True)
    if verbose:
        for merge in report.merges:
            click.echo(safe(merge), err=True)
    click.echo(report.summary(verbose=verbose), err=True)
    if report.errors or report.warnings:  # something in the files did not go in
        sys.exit(1)


@main.command(epilog=EPILOG)
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", "-n", default=20, show_default=True, type=click.IntRange(1, 100_000))
@sort_options("relevance")
@json_option
@click.pass_context
def search(ctx, query, limit, sort, reverse, as_json):
    """Ranked full-text search with highlighted snippets.

    A key (or its first 4+ characters), a DOI or an arXiv id as the whole query finds that
    paper first. Words that (almost) no paper holds get "did you mean" suggestions on stderr
    (with --json: {"papers": [...], "suggestions": [...], "did_you_mean": "..."}).
    """
    from catalog import output
    from catalog.identifiers import identify
    from catalog.query import parse

    text = " ".join(query)
    if identify(text) is None and parse(text).is_empty:
        _fail(f"nothing to search for in {text!r}: type words, \"a phrase\" or a filter like venue:ICML")
    catalog = _open(ctx)
    papers = catalog.search(text, limit=limit, sort=("-" if reverse else "") + sort)
    suggestions = catalog.suggest(text)  # words (almost) no paper holds: their closest words
    if as_json:
        output.print_json(output.search_json(text, papers, suggestions))
        return
    if papers:
        output.print_summaries(papers, with_snippets=True)
    if suggestions:
        output.print_suggestions(text, suggestions, found=bool(papers))
    elif not papers and (named := identify(text)) and named.kind != "key":
        click.echo(f"No paper has {'DOI' if named.kind == 'doi' else 'arXiv id'} {named.value}.", err=True)
    elif not papers:
        click.echo("No papers match; try fewer words, OR, or prefix*.", err=True)


@main.command("list", epilog=EPILOG)
@click.argument("query", nargs=-1)
@click.option("--limit", "-n", default=1000, show_default=True, type=click.IntRange(1, 10_000_000))
@sort_options("year")
@json_option
@click.pass_context
def list_cmd(ctx, query, limit, sort, reverse, as_json):
    """List papers, newest first, optionally filtered (same language as search)."""
    from catalog import output

    papers = _open(ctx).search(" ".join(query), limit=limit, snippets=False,
                               sort=("-" if reverse else "") + sort)
    if as_json:
        output.print_json([p.as_json() for p in papers])
    else:
        output.print_summaries(papers)


@main.command()
@click.argument("key")
@json_option
@click.pass_context
def show(ctx, key, as_json):
    """Show one paper: abstract, tags, status, rating, notes and where it came from."""
    from catalog import output

    detail = _open(ctx).get(key)
    if as_json:
        output.print_json(detail.as_json())
    else:
        output.print_detail(detail)


@main.command()
@click.argument("key")
@click.argument("numbers", nargs=-1, type=click.IntRange(min=1), metavar="[N]...")
@click.pass_context
def split(ctx, key, numbers):
    """Undo a merge: records that joined paper KEY become papers of their own.

    Without N, every record that joined KEY leaves it; with N, those of the sources numbered N
    in `catalog show KEY`. KEY keeps its key, tags, notes, status, rating and title, and gives
    back the fields only the leaving records gave it.
    """
    from catalog import output

    result = _open(ctx).split(key, numbers)
    click.echo(f"Split {result.records} {'record' if result.records == 1 else 'records'} off "
               f"{result.kept.key} into {len(result.split_off)} new "
               f"{'paper' if len(result.split_off) == 1 else 'papers'}:", err=True)
    output.print_summaries([result.kept, *result.split_off])


@main.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, required=True)
@click.pass_context
def tag(ctx, args):
    """Add (+name) and remove (-name) tags: catalog tag KEY [KEY...] +toread -later.

    Tags may be hierarchical (project/thesis); filtering by tag:project includes children.
    """
    from catalog import output

    keys = [a for a in args if a[0] not in "+-"]
    add = [a[1:] for a in args if a.startswith("+")]
    remove = [a[1:] for a in args if a.startswith("-")]
    if not keys:
        raise click.UsageError("name a paper key first: catalog tag KEY +tag -tag")
    if not add and not remove:
        raise click.UsageError("say what to change: +tag to add, -tag to remove")
    output.print_summaries(_open(ctx).tag(keys, add, remove).papers)


@main.command()
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


@main.command()
@click.argument("args", nargs=-1, required=True, metavar="KEY... STATUS")
@click.pass_context
def status(ctx, args):
    """Set reading status: unread, queued, reading, read or skipped."""
    from catalog import output

    if len(args) < 2:
        raise click.UsageError("usage: catalog status KEY [KEY...] STATUS")
    output.print_summaries(_open(ctx).set_status(list(args[:-1]), args[-1]).papers)


@main.command()
@click.argument("args", nargs=-1, required=True, metavar="KEY... RATING")
@click.pass_context
def rate(ctx, args):
    """Rate papers 1-5 (0 clears the rating)."""
    from catalog import output

    if len(args) < 2 or not args[-1].isdigit():
        raise click.UsageError("usage: catalog rate KEY [KEY...] RATING (1-5, 0 to clear)")
    rating = int(args[-1])
    output.print_summaries(_open(ctx).set_rating(list(args[:-1]), rating or None).papers)


@main.command()
@click.argument("key")
@click.argument("text", nargs=-1)
@click.option("--clear", is_flag=True, help="Remove your title; the derived headline shows again.")
@click.pass_context
def title(ctx, key, text, clear):
    """Give a paper your own title (shown everywhere instead of the headline)."""
    from catalog import output

    if not text and not clear:
        raise click.UsageError("give the title text, or --clear")
    output.print_summaries(_open(ctx).set_title(key, None if clear else " ".join(text)).papers)


@main.command()
@json_option
@click.pass_context
def tags(ctx, as_json):
    """All tags with the number of papers carrying each."""
    from catalog import output

    found = _open(ctx).tags()
    if as_json:
        output.print_json([{"tag": t.name, "papers": t.count} for t in found])
    elif not found:
        click.echo("No tags yet: catalog tag KEY +name", err=True)
    else:
        output.print_tags(found)


@main.command()
@json_option
@click.pass_context
def stats(ctx, as_json):
    """Counts per venue and year, status and rating."""
    from catalog import output

    s = _open(ctx).stats()
    if as_json:
        output.print_json(output.stats_json(s))
    else:
        output.print_stats(s)


@main.command()
@click.argument("statement")
@click.option("--timeout", default=60.0, show_default=True, type=click.FloatRange(min=0), metavar="SECONDS",
              help="Stop the query after this long (0: no limit). Ctrl-C stops it at any time.")
@json_option
@click.pass_context
def sql(ctx, statement, timeout, as_json):
    """Run a read-only SQL query against the catalog (writes are refused).

    Into a pipe or a file the rows are tab-separated values with a header line.
    """
    import signal
    import threading

    from catalog import output
    from catalog.errors import Interrupted

    if not statement.strip().strip(";").strip():
        _fail('nothing to run: give one SQL statement, like "SELECT count(*) FROM papers"')
    catalog = _open(ctx)
    # SQLite holds the thread until the statement ends: Ctrl-C sets a flag its progress
    # handler checks (signal handlers can only be set from the main thread).
    stop = threading.Event()
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set()) if main_thread else None
    try:
        columns, rows = catalog.run_sql(statement, timeout=timeout, cancelled=stop.is_set)
    except Interrupted:
        raise KeyboardInterrupt from None
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous)
    if as_json:
        output.print_json([dict(zip(columns, r)) for r in rows])
    else:
        output.print_table(columns, rows)


@main.command(epilog=EPILOG)
@click.option("--triage", is_flag=True,
              help="Start in triage mode: QUERY's papers (all by default) one at a time, one "
                   "key per decision; it resumes where the last triage of QUERY stopped.")
@click.argument("query", nargs=-1)
@click.pass_context
def tui(ctx, triage, query):
    """Browse, search, tag, rate and annotate in the terminal UI (on QUERY's results, if given)."""
    catalog = _open(ctx)  # a damaged or foreign file is refused first, as by every command
    text = " ".join(query) if query else None
    if text is not None:
        from catalog.query import parse

        parse(text)  # a bad filter is one line here, before the screen is taken over
    for name, stream in (("output", sys.stdout), ("input", sys.stdin)):
        if not stream.isatty():
            _fail(f"catalog tui needs a terminal, and its {name} is not one (redirected?); "
                  "catalog list, search and export write to files")
    from catalog.tui.app import CatalogApp
    from catalog.tui.state import StateStore

    CatalogApp(catalog, state=StateStore.default(), query="" if triage and text is None else text,
               triage=triage).run()


@main.command("open")
@click.argument("key")
@click.option("--print", "print_only", is_flag=True, help="Print the address instead of opening it.")
@click.pass_context
def open_cmd(ctx, key, print_only):
    """Open a paper's page (its URL, DOI or arXiv page) in your browser; $BROWSER is honoured."""
    import webbrowser

    from catalog.text.terminal import safe

    detail = _open(ctx).get(key)
    link = detail.link
    if link is None:
        _fail(f"{detail.summary.key} has no URL, DOI or arXiv id to open")
    link = safe(link)
    if print_only:
        click.echo(link)
        return
    click.echo(f"opening {link}", err=True)
    if not webbrowser.open(link):
        _fail(f"no browser to open {link} (set $BROWSER)")


@main.command()
@click.argument("key")
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(1, 1000))
@json_option
@click.pass_context
def similar(ctx, key, limit, as_json):
    """Papers most like paper KEY, each with the distinctive terms both share.

    catalog similar k3x9q2m --limit 5
    """
    from catalog import output

    papers = _open(ctx).similar(key, limit)
    if as_json:
        output.print_json([p.as_json() for p in papers])
    elif not papers:
        click.echo(f"No paper shares a distinctive term with {key}.", err=True)
    else:
        output.print_related(papers, "shares")


@main.command(epilog=EPILOG)
@click.argument("args", nargs=-1, metavar="[TAG] [FILTERS]...")
@click.option("--limit", "-n", default=20, show_default=True, type=click.IntRange(1, 100_000))
@json_option
@click.pass_context
def recommend(ctx, args, limit, as_json):
    """Papers to read next: ranked by likeness to those tagged TAG (with no tag: those rated
    4-5 or marked read), learned by a classifier over the catalog's words. Papers already
    tagged TAG, read or skipped are left out. FILTERS pick the papers to rank.

    catalog recommend thesis venue:ICLR year:2026
    """
    from catalog import output

    tag, filters = None, list(args)
    if filters and ":" not in filters[0]:  # a filter has a colon; a tag has none
        tag = filters.pop(0)
    papers = _open(ctx).recommend(tag, " ".join(filters), limit)
    if as_json:
        output.print_json([p.as_json() for p in papers])
    else:
        output.print_related(papers, "for")


@main.command(epilog=EPILOG)
@click.argument("query", nargs=-1, metavar="[FILTERS]...")
@click.option("--papers", "shown", default=5, show_default=True, type=click.IntRange(0, 100_000),
              help="Papers shown per topic (0: all); --json always has all.")
@json_option
@click.pass_context
def topics(ctx, query, shown, as_json):
    """Group the catalog (or the papers FILTERS select) into labelled topics; every paper is in
    one. Stored in the topic table, so `catalog sql` and sqlite3 can query them.

    catalog topics venue:ICLR year:2026
    """
    from catalog import output

    found = _open(ctx).topics(" ".join(query))
    if as_json:
        output.print_json([t.as_json() for t in found])
    else:
        output.print_topics(found, shown)


@main.command()
@click.option("--fix", is_flag=True, help="Repair what is wrong (a copy of the file is kept first).")
@click.pass_context
def doctor(ctx, fix):
    """Check the database (integrity, search index, rows pointing nowhere); --fix repairs.

    Exits non-zero while something is wrong.
    """
    from catalog import output
    from catalog.library import Catalog
    from catalog.paths import resolve_db_path
    from catalog.text.terminal import safe

    # Not _open: doctor is what people run on a file the other commands refuse.
    path, _ = resolve_db_path(ctx.find_root().params.get("db"))
    report = Catalog.check(path, fix=fix, notify=lambda m: click.echo(safe(m), err=True))
    output.print_doctor(report)
    if not report.healthy:
        sys.exit(1)


EXPORT_FORMATS = ("bibtex", "csljson", "ris", "markdown", "csv", "jsonl", "vault")


@main.command("export", epilog=EPILOG)
@click.argument("query", nargs=-1)
@click.option("--format", "-f", "fmt", type=click.Choice(EXPORT_FORMATS),
              help="Output format (default: from the -o file's suffix: .bib .json .ris .md .csv .jsonl).")
@click.option("--output", "-o", type=click.Path(path_type=Path),
              help="Write to this file (replaced atomically) instead of standard output; "
                   "for vault, the folder.")
@click.pass_context
def export_cmd(ctx, query, fmt, output):
    """Export papers (all, or those QUERY selects) as BibTeX, CSL-JSON, RIS, Markdown, CSV or JSONL,
    or as a Markdown vault: one file per paper in a folder (Obsidian, Logseq).

    catalog export tag:toread --format markdown -o reading.md

    catalog export --format vault ~/notes/papers    (re-export keeps what you wrote below the marker line)
    """
    from catalog.export import format_for
    from catalog.text.terminal import safe

    if fmt == "vault" and output is None and query:
        *query, output = query  # catalog export [QUERY] --format vault DIR
        output = Path(output)
    if fmt is None:
        fmt = format_for(output) if output else None
        if fmt is None:
            raise click.UsageError(f"say which format: --format {'|'.join(EXPORT_FORMATS)}")
    if output is not None and fmt != "vault" and output.is_dir():
        raise click.UsageError(f"{output} is a folder; give a file name (or --format vault)")
    report = _open(ctx).export(" ".join(query), fmt, output)
    for skipped in report.skipped:
        click.echo(f"catalog: skipped {safe(skipped)}", err=True)
    if output:
        click.echo(f"Exported {report.papers} {'paper' if report.papers == 1 else 'papers'} "
                   f"to {output} ({fmt})"
                   + (f"; {report.unchanged} already up to date" if report.unchanged else ""), err=True)


@main.group()
def annotations():
    """Your tags, notes, status, ratings, titles and saved searches, as a file to move or share."""


@annotations.command("export")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path))
@click.pass_context
def annotations_export(ctx, file):
    """Write your annotations to FILE (JSON; - for standard output)."""
    catalog = _open(ctx)
    if str(file) == "-":
        count = catalog.export_annotations(None)
    else:
        count = catalog.export_annotations(file)
    click.echo(f"Exported annotations of {count} {'paper' if count == 1 else 'papers'}"
               + (f" to {file}" if str(file) != "-" else ""), err=True)


@annotations.command("import")
@click.argument("file", type=click.Path(dir_okay=False, readable=False, path_type=Path))
@click.option("--theirs", is_flag=True,
              help="Where both sides set a different status, rating or title, take the file's.")
@click.pass_context
def annotations_import(ctx, file, theirs):
    """Merge annotations from FILE: tags and notes are added (never twice), conflicts reported."""
    from catalog.text.terminal import safe

    report = _open(ctx).import_annotations(file, theirs=theirs)
    for conflict in report.conflicts:
        click.echo(f"catalog: conflict: {safe(conflict)}", err=True)
    for missing in report.not_found:
        click.echo(f"catalog: not in this catalog: {safe(missing)}", err=True)
    click.echo(report.summary(), err=True)


@main.group()
def saved():
    """Saved searches (the TUI's smart lists): list, add, run and delete them."""


@saved.command("list")
@json_option
@click.pass_context
def saved_list(ctx, as_json):
    """List saved searches by name, with their queries."""
    from catalog import output
    from catalog.text.terminal import safe

    searches = _open(ctx).saved_searches()
    if as_json:
        output.print_json([{"name": s.name, "query": s.query} for s in searches])
    elif not searches:
        click.echo("No saved searches; add one with `catalog saved add NAME QUERY`.", err=True)
    else:
        width = max(len(s.name) for s in searches)
        for s in searches:
            click.echo(f"{safe(s.name):<{width}}  {safe(s.query)}")


@saved.command("add")
@click.argument("name")
@click.argument("query", nargs=-1, required=True)
@click.pass_context
def saved_add(ctx, name, query):
    """Save QUERY under NAME (replacing a search of that name)."""
    from catalog.text.terminal import safe

    saved = _open(ctx).save_search(name, " ".join(query)).changes[0]
    was = f" (was: {safe(saved.before)})" if saved.before is not None else ""
    click.echo(f"Saved {safe(saved.name)!r}: {safe(saved.after)}{was}", err=True)


@saved.command("run", epilog=EPILOG)
@click.argument("name")
@click.option("--limit", "-n", default=20, show_default=True, type=click.IntRange(1, 100_000))
@json_option
@click.pass_context
def saved_run(ctx, name, limit, as_json):
    """Run the saved search NAME, like `catalog search` (or `catalog list` without words)."""
    from catalog import output
    from catalog.query import parse

    catalog = _open(ctx)
    wanted = {s.name: s for s in catalog.saved_searches()}.get(" ".join(name.split()))
    if wanted is None:
        _fail(f"no saved search named {name!r} (see `catalog saved list`)")
    papers = catalog.search(wanted.query, limit=limit)
    if as_json:
        output.print_json(output.summaries_json(papers))
    elif not papers:
        click.echo(f"No papers match {wanted.query!r}.", err=True)
    else:
        output.print_summaries(papers, with_snippets=parse(wanted.query).has_text)


@saved.command("delete")
@click.argument("name")
@click.pass_context
def saved_delete(ctx, name):
    """Delete the saved search NAME."""
    from catalog.text.terminal import safe

    _open(ctx).delete_saved_search(" ".join(name.split()))
    click.echo(f"Deleted saved search {safe(name)!r}", err=True)


@main.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace PATH if it exists.")
@click.pass_context
def backup(ctx, path, force):
    """Copy the catalog to PATH consistently (SQLite's backup API), even while the TUI is open."""
    target = _open(ctx).backup(path, force=force)
    click.echo(f"Backed up to {target}", err=True)


@main.group()
def db():
    """The database file: where it is and its schema version."""


@db.command("path")
def db_path():
    """Print the path of the catalog database."""
    from catalog.paths import resolve_db_path

    click.echo(resolve_db_path(click.get_current_context().find_root().params.get("db"))[0])


@db.command("upgrade")
@click.pass_context
def db_upgrade(ctx):
    """Migrate the database to this version's schema (done automatically on open)."""
    catalog = _open(ctx)
    click.echo(f"{catalog.path} is at schema {catalog.schema_revision()} (head)")


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
