"""Finding papers: search, list, show, open, tags, stats, saved searches, acronyms and the TUI."""

from __future__ import annotations

import sys

import click

from catalog.cli.common import EPILOG, _fail, _open, json_option, sort_options


@click.command(epilog=EPILOG)
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", "-n", default=20, show_default=True, type=click.IntRange(1, 100_000))
@sort_options("relevance")
@click.option("--in", "within", type=click.Choice(("all", "abstracts", "text")), default="all", show_default=True,
              help="Where to look: everywhere, titles/abstracts/tags/notes only, or only the text of attached PDFs.")
@json_option
@click.pass_context
def search(ctx, query, limit, sort, reverse, within, as_json):
    """Ranked full-text search with highlighted snippets.

    The text of attached PDFs counts too, below a paper's own title and abstract; a hit there
    shows its page (`p. 7: ...`).

    A key (or its first 4+ characters), a DOI or an arXiv id as the whole query finds that
    paper first. Papers holding every word (connecting words like via or versus aside) come
    first, then those holding some of them (marked ≈), the rarest words counting most. A word no paper holds is named on stderr, and
    words that (almost) no paper holds get "did you mean" suggestions there; when one or two
    words are in no paper, each a typo of a word many hold, and the others are found, the
    corrected search runs instead, saying so (with --json: {"papers": [...], "suggestions": [...],
    "did_you_mean": "...", "missing_words": ..., "corrected": "..."}).
    """
    from catalog.cli import output
    from catalog.searching.request import request

    text = " ".join(query)
    asked = request(text, ("-" if reverse else "") + sort)  # the only parse of this search
    if asked.is_empty:
        _fail(f"nothing to search for in {text!r}: type words, \"a phrase\" or a filter like venue:ICML")
    catalog = _open(ctx)
    papers = catalog.search(asked, limit=limit, within=within)
    # One or two words in no paper, typos of ones many hold, the others found: search it corrected.
    fixed = catalog.words.correction(asked) if not any(p.match in ("all", "text") for p in papers) else None
    if fixed is not None:
        asked = request(fixed, asked.sort)
        papers = catalog.search(asked, limit=limit, within=within)
    suggestions = [] if fixed else catalog.words.suggest(asked)  # words (almost) no paper holds: their closest words
    # Only partial matches can come when a word is in no paper: then name it, once.
    missing = catalog.words.missing_words(asked) if any(p.match == "some" for p in papers) else None
    _lists_left(catalog)
    if as_json:
        output.print_json(output.search_json(text, papers, suggestions, missing, fixed))
        return
    if papers:
        output.print_summaries(papers, with_snippets=True)
    if fixed:
        output.print_corrected(text, fixed)
    if missing:
        output.print_missing(missing)
    if suggestions:
        output.print_suggestions(text, suggestions, found=bool(papers))
    elif not papers and (named := asked.named) and named.kind != "key":
        click.echo(f"No paper has {'DOI' if named.kind == 'doi' else 'arXiv id'} {named.value}.", err=True)
    elif not papers:
        click.echo("No papers match; try fewer words, OR, or prefix*.", err=True)


def _lists_left(catalog) -> None:
    """Say on stderr when ranked lists of frequent words are still to be ranked (an import cut
    short, or still at it): until then those words rank every match. Nobody at it: the
    detached refresher is started to finish them."""
    left = catalog.lists_left()
    if left:
        catalog.rank_lists_elsewhere()
        click.echo(f"ranking lists: {left:,} left (until then searches of frequent words take longer)", err=True)


@click.command("list", epilog=EPILOG)
@click.argument("query", nargs=-1)
@click.option("--limit", "-n", default=1000, show_default=True, type=click.IntRange(1, 10_000_000))
@sort_options("year")
@json_option
@click.pass_context
def list_cmd(ctx, query, limit, sort, reverse, as_json):
    """List papers, newest first, optionally filtered (same language as search)."""
    from catalog.cli import output

    papers = _open(ctx).search(" ".join(query), limit=limit, snippets=False,
                               sort=("-" if reverse else "") + sort)
    if as_json:
        output.print_json([p.as_json() for p in papers])
    else:
        output.print_summaries(papers)


@click.command()
@click.argument("key")
@json_option
@click.pass_context
def show(ctx, key, as_json):
    """Show one paper: abstract, tags, status, rating, notes and where it came from."""
    from catalog.cli import output

    detail = _open(ctx).get(key)
    if as_json:
        output.print_json(detail.as_json())
    else:
        output.print_detail(detail)


@click.command(epilog=EPILOG)
@click.argument("query", nargs=-1)
@click.option("--limit", "-n", default=100, show_default=True, type=click.IntRange(1, 1_000_000))
@json_option
@click.pass_context
def authors(ctx, query, limit, as_json):
    """People with the most papers (among those QUERY finds), with how many each wrote."""
    from catalog.cli import output

    found = _open(ctx).authors(" ".join(query), limit=limit)
    if as_json:
        output.print_json([{"name": a.name, "papers": a.papers} for a in found])
    elif not found:
        click.echo("No authors among these papers.", err=True)
    else:
        output.print_table(["author", "papers"], [(a.name, a.papers) for a in found])


@click.command()
@json_option
@click.option("--plot", is_flag=True, help="Charts: papers per year, top venues, ratings, papers "
              "read per week, a tag over the years.")
@click.option("--tag", metavar="TAG", help="The tag --plot follows over the years (default: the most used).")
@click.option("--width", type=click.IntRange(40, 300), help="Width of the charts (default: the terminal's).")
@click.pass_context
def stats(ctx, as_json, plot, tag, width):
    """Counts per venue and year, status and rating; --plot draws them."""
    from catalog.cli import output

    if plot or tag:
        output.print_charts(_open(ctx).statistics.charts(tag), width)
        return
    s = _open(ctx).stats()
    if as_json:
        output.print_json(output.stats_json(s))
    else:
        output.print_stats(s)


@click.group(invoke_without_command=True)
@click.pass_context
def saved(ctx):
    """Saved searches (the TUI's smart lists): list, add, run and delete them. Without a
    command, lists them."""
    if ctx.invoked_subcommand is None:  # as `git remote` lists: the likeliest wish
        ctx.invoke(saved_list)


@saved.command("list")
@json_option
@click.pass_context
def saved_list(ctx, as_json):
    """List saved searches by name, with their queries."""
    from catalog.cli import output
    from catalog.text.terminal import safe

    searches = _open(ctx).saved.saved_searches()
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

    saved = _open(ctx).saved.save_search(name, " ".join(query)).changes[0]
    was = f" (was: {safe(saved.before)})" if saved.before is not None else ""
    click.echo(f"Saved {safe(saved.name)!r}: {safe(saved.after)}{was}", err=True)


@saved.command("run", epilog=EPILOG)
@click.argument("name")
@click.option("--limit", "-n", default=20, show_default=True, type=click.IntRange(1, 100_000))
@json_option
@click.pass_context
def saved_run(ctx, name, limit, as_json):
    """Run the saved search NAME, like `catalog search` (or `catalog list` without words)."""
    from catalog.cli import output
    from catalog.searching.request import request

    catalog = _open(ctx)
    wanted = {s.name: s for s in catalog.saved.saved_searches()}.get(" ".join(name.split()))
    if wanted is None:
        _fail(f"no saved search named {name!r} (see `catalog saved list`)")
    asked = request(wanted.query)
    papers = catalog.search(asked, limit=limit)
    if as_json:
        output.print_json(output.summaries_json(papers))
    elif not papers:
        click.echo(f"No papers match {wanted.query!r}.", err=True)
    else:
        output.print_summaries(papers, with_snippets=asked.query.has_text)


@saved.command("delete")
@click.argument("name")
@click.pass_context
def saved_delete(ctx, name):
    """Delete the saved search NAME."""
    from catalog.text.terminal import safe

    _open(ctx).saved.delete_saved_search(" ".join(name.split()))
    click.echo(f"Deleted saved search {safe(name)!r}", err=True)


@click.group(invoke_without_command=True)
@click.pass_context
def acronyms(ctx):
    """Acronyms you add: a search for either form also finds the other, over those the
    abstracts define and the field's common ones catalog knows (docs/query.md). Without a
    command, lists those added."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(acronyms_list)


@acronyms.command("list")
@json_option
@click.pass_context
def acronyms_list(ctx, as_json):
    """List the acronyms added, by short form."""
    from catalog.cli import output
    from catalog.text.terminal import safe

    found = _open(ctx).words.acronyms()
    if as_json:
        output.print_json([a.as_json() for a in found])
    elif not found:
        click.echo('No acronyms added; add one with `catalog acronyms add SHORT "long form"`.', err=True)
    else:
        width = max(len(a.short) for a in found)
        for a in found:
            click.echo(f"{safe(a.short):<{width}}  {safe(a.long)}")


@acronyms.command("add")
@click.argument("short")
@click.argument("long", nargs=-1, required=True)
@click.pass_context
def acronyms_add(ctx, short, long):
    """Searches for SHORT also find LONG, and the other way round (a short form may have
    several long forms: add each)."""
    from catalog.text.terminal import safe

    long = " ".join(long)
    new = _open(ctx).words.add_acronym(short, long)
    click.echo(f"{'Added' if new else 'Already added'}: {safe(short)} = {safe(long)}", err=True)


@acronyms.command("remove")
@click.argument("short")
@click.argument("long", nargs=-1)
@click.pass_context
def acronyms_remove(ctx, short, long):
    """Remove an added acronym: all of SHORT's long forms, or LONG only."""
    from catalog.text.terminal import safe

    removed = _open(ctx).words.remove_acronym(short, " ".join(long) if long else None)
    click.echo(f"Removed {removed} long form{'s' if removed != 1 else ''} of {safe(short)}", err=True)


@click.command(epilog=EPILOG)
@click.option("--triage", is_flag=True,
              help="Start in triage mode: QUERY's papers (all by default) one at a time, one "
                   "key per decision; it resumes where the last triage of QUERY stopped.")
@click.option("--keys-file", is_flag=True, help="Print where your own keys are read from (keys.toml) and stop.")
@click.argument("query", nargs=-1)
@click.pass_context
def tui(ctx, triage, keys_file, query):
    """Browse, search, tag, rate and annotate in the terminal UI (on QUERY's results, if given)."""
    if keys_file:
        from catalog.tui.keymap import default_path

        click.echo(default_path())
        return
    catalog = _open(ctx)  # a damaged or foreign file is refused first, as by every command
    text = " ".join(query) if query else None
    if text is not None:
        from catalog.searching.query import parse

        parse(text)  # a bad filter is one line here, before the screen is taken over
    for name, stream in (("output", sys.stdout), ("input", sys.stdin)):
        if not stream.isatty():
            _fail(f"catalog tui needs a terminal, and its {name} is not one (redirected?); "
                  "catalog list, search and export write to files")
    from catalog.tui import keymap
    from catalog.tui.app import CatalogApp
    from catalog.tui.state import StateStore

    CatalogApp(catalog, state=StateStore.default(), query="" if triage and text is None else text,
               triage=triage, keymap=keymap.load(keymap.default_path())).run()


@click.command("open")
@click.argument("key")
@click.option("--link", "link_only", is_flag=True, help="Open its URL, DOI or arXiv page even when it has a PDF.")
@click.option("--print", "print_only", is_flag=True, help="Print the file or address instead of opening it.")
@click.pass_context
def open_cmd(ctx, key, link_only, print_only):
    """Open a paper's attached PDF ($CATALOG_OPENER, else xdg-open or open), else its page
    (its URL, DOI or arXiv page) in your browser; $BROWSER is honoured.

    Only http and https links are opened, never through a shell."""
    from catalog.desktop import browser

    catalog = _open(ctx)
    detail = catalog.get(key)
    attached = None if link_only else catalog.files.file_to_open(key)
    if attached is not None:
        if print_only:
            click.echo(attached.location)
            return
        click.echo(f"opening {attached.location}", err=True)
        if not browser.open_file(attached.location):
            _fail(f"no program to open {attached.location} (set $CATALOG_OPENER, or install xdg-open)")
        return
    if detail.link is None:
        _fail(f"{detail.summary.key} has no URL, DOI or arXiv id to open")
    link = browser.openable(detail.link)
    if print_only:
        click.echo(link)
        return
    click.echo(f"opening {link}", err=True)
    if not browser.open_link(link):
        _fail(f"no browser to open {link} (set $BROWSER)")


COMMANDS = (search, list_cmd, show, open_cmd, authors, stats, saved, acronyms, tui)
