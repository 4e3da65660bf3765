"""Papers from the web: add (by DOI, arXiv id or link) and enrich (what papers lack)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from catalog.cli.common import _fail, _open, json_option


@click.command()
@click.argument("identifiers", nargs=-1)
@click.option("--from", "from_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Read identifiers from FILE, one per line ('-': standard input; # starts a comment).")
@json_option
@click.pass_context
def add(ctx, identifiers, from_file, as_json):
    """Add papers by DOI, arXiv id or link: fetch each record and add it, or fill in the paper
    already here.

    \b
    catalog add 10.48550/arXiv.1706.03762 arXiv:1706.03762 https://arxiv.org/abs/1706.03762v5
    catalog add https://openreview.net/forum?id=ID https://doi.org/10.1371/journal.pone.0033693
    catalog add --from dois.txt

    arXiv ids ask arXiv's API, DOIs Crossref (then DataCite), OpenReview links OpenReview.
    Answers are cached, so adding again asks nothing and changes nothing. Set
    $CATALOG_CONTACT to your e-mail address: the services ask who is calling (docs/web.md).
    """
    import json

    from catalog.text.terminal import safe

    wanted = list(identifiers) + (_read_list(from_file) if from_file else [])
    if not wanted:
        _fail("nothing to add: give DOIs, arXiv ids or links, or --from FILE")
    from catalog.fetching import identifiers as parsing

    for text in wanted:  # before opening: a typo must not make a new catalog
        parsing.parse(text)
    catalog = _open(ctx, create=True)

    def each(added) -> None:
        if as_json:
            return
        if added.outcome == "failed":
            click.echo(f"catalog: {safe(added.identifier)}: {safe(added.error)}", err=True)
            return
        said = {"new": "added", "updated": "filled in " + ", ".join(added.filled),
                "unchanged": "already in the catalog"}[added.outcome]
        paper = added.paper
        click.echo(f"{paper.key}  {safe(paper.title)}  ({said})" if paper else f"{safe(added.identifier)}: {said}")

    results = catalog.add_identifiers(wanted, on_each=each)
    if as_json:
        click.echo(json.dumps([a.as_json() for a in results], ensure_ascii=False, indent=2))
    if any(a.outcome == "failed" for a in results):
        sys.exit(1)


@click.command()
@click.argument("query", nargs=-1)
@click.option("--dry-run", is_flag=True, help="Say what would be filled in; change nothing.")
@json_option
@click.pass_context
def enrich(ctx, query, dry_run, as_json):
    """Fill in titles, authors and identifiers of papers that lack them, from the web.

    QUERY selects papers as `catalog list` does (all when empty); of those, the ones without a
    title, authors, or a DOI or arXiv id are looked up: by their DOI or arXiv id, else on
    arXiv by their abstract's words, a candidate taken only when its abstract says the same
    (docs/web.md). Only empty fields are filled: your titles, the paper's abstract and all
    you set stay. Each paper gets a line with the evidence; `catalog split KEY` undoes one.
    """
    import json

    from catalog.text.terminal import safe

    catalog = _open(ctx)

    def each(e) -> None:
        if as_json:
            return
        if e.outcome in ("filled", "would fill"):
            what = f"{e.outcome} {', '.join(e.filled)}: {safe(e.found_title or '')}"
        elif e.outcome == "unchanged":
            what = f"nothing to add ({safe(e.found_title or '')})"
        else:
            what = e.outcome
        click.echo(f"{e.key}  {what}  [{safe(e.evidence)}]")

    done = catalog.enrich(" ".join(query), dry_run=dry_run, on_each=each)
    if as_json:
        click.echo(json.dumps([e.as_json() for e in done], ensure_ascii=False, indent=2))
    elif not done:
        click.echo("No paper there lacks a title, authors or identifiers.", err=True)
    counts = {o: sum(e.outcome == o for e in done) for o in ("filled", "would fill", "unchanged", "no match", "refused", "failed")}
    if done and not as_json:
        click.echo(", ".join(f"{n} {o}" for o, n in counts.items() if n), err=True)
    if counts["failed"]:
        sys.exit(1)


def _read_list(path: Path) -> list[str]:
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text("utf-8")
    except OSError as exc:
        _fail(f"{path}: {exc.strerror or exc}")
    except UnicodeDecodeError:
        _fail(f"{path}: not a text file (UTF-8) of identifiers")
    lines = (line.split("#", 1)[0].strip() if not line.lstrip().startswith("http") else line.strip()
             for line in text.splitlines())
    return [line for line in lines if line]


COMMANDS = (add, enrich)
