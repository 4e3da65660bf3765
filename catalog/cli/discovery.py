"""Discovery: similar papers, recommendations, topics."""

from __future__ import annotations

import click

from catalog.cli.common import EPILOG, _open, json_option


@click.command()
@click.argument("key")
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(1, 1000))
@json_option
@click.pass_context
def similar(ctx, key, limit, as_json):
    """Papers most like paper KEY, each with the distinctive terms both share.

    catalog similar k3x9q2m --limit 5
    """
    from catalog.cli import output

    papers = _open(ctx).discovery.similar(key, limit)
    if as_json:
        output.print_json([p.as_json() for p in papers])
    elif not papers:
        click.echo(f"No paper shares a distinctive term with {key}.", err=True)
    else:
        output.print_related(papers, "shares")


@click.command(epilog=EPILOG)
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
    from catalog.cli import output

    tag, filters = None, list(args)
    if filters and ":" not in filters[0]:  # a filter has a colon; a tag has none
        tag = filters.pop(0)
    papers = _open(ctx).discovery.recommend(tag, " ".join(filters), limit)
    if as_json:
        output.print_json([p.as_json() for p in papers])
    else:
        output.print_related(papers, "for")


@click.command(epilog=EPILOG)
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
    from catalog.cli import output

    found = _open(ctx).discovery.topics(" ".join(query))
    if as_json:
        output.print_json([t.as_json() for t in found])
    else:
        output.print_topics(found, shown)


COMMANDS = (similar, recommend, topics)
