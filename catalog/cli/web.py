"""Papers from the web: add (by DOI, arXiv id or link), enrich (what papers lack), refs and
cited-by, fetch-pdf."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from catalog.cli.common import _fail, _open, json_option


@click.command()
@click.argument("identifiers", nargs=-1)
@click.option("--from", "from_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Read identifiers from FILE, one per line ('-': standard input; # starts a comment).")
@click.option("--link/--copy", default=None,
              help="PDFs: leave them where they are, or copy them into the catalog's folder of files (the default).")
@json_option
@click.pass_context
def add(ctx, identifiers, from_file, link, as_json):
    """Add papers by DOI, arXiv id or link: fetch each record and add it, or fill in the paper
    already here. A PDF file is attached to the paper it is, or becomes one (docs/files.md).

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
    pdfs = [Path(text) for text in wanted if text.lower().endswith(".pdf") and Path(text).is_file()]
    added = True
    if pdfs:
        from catalog.cli.files import add_pdfs

        wanted = [text for text in wanted if Path(text) not in pdfs]
        added = add_pdfs(_open(ctx, create=True), pdfs, link)
        if not wanted:
            sys.exit(0 if added else 1)
    if not wanted:
        _fail("nothing to add: give DOIs, arXiv ids or links, PDF files, or --from FILE")
    from catalog.fetching import identifiers as parsing

    for text in wanted:  # before opening: a typo must not make a new catalog
        parsing.parse(text)
    if _new_catalog(ctx):  # nor being offline, nor ids nobody knows: fetch first, then make it
        from catalog.parts.web import Web

        failed = Web.fetch_ahead(wanted)
        if len(failed) == len(wanted):
            for line in failed:
                click.echo(f"catalog: {safe(line)}", err=True)
            sys.exit(1)
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

    results = catalog.web.add_identifiers(wanted, on_each=each)
    if as_json:
        click.echo(json.dumps([a.as_json() for a in results], ensure_ascii=False, indent=2))
    if any(a.outcome == "failed" for a in results) or not added:
        sys.exit(1)


@click.command()
@click.argument("query", nargs=-1)
@click.option("--dry-run", is_flag=True, help="Say what would be filled in; change nothing.")
@click.option("--updates", is_flag=True,
              help="Instead: ask arXiv again about preprints (an arXiv id, no DOI) for the DOI of their published version.")
@json_option
@click.pass_context
def enrich(ctx, query, dry_run, updates, as_json):
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

    done = catalog.web.enrich(" ".join(query), dry_run=dry_run, updates=updates, on_each=each)
    if as_json:
        click.echo(json.dumps([e.as_json() for e in done], ensure_ascii=False, indent=2))
    elif not done:
        click.echo("No preprint there lacks a DOI." if updates else
                   "No paper there lacks a title, authors or identifiers.", err=True)
    counts = {o: sum(e.outcome == o for e in done) for o in ("filled", "would fill", "unchanged", "no match", "refused", "failed")}
    if done and not as_json:
        click.echo(", ".join(f"{n} {o}" for o, n in counts.items() if n), err=True)
    if counts["failed"]:
        sys.exit(1)


@click.command("fetch-pdf")
@click.argument("query", nargs=-1)
@json_option
@click.pass_context
def fetch_pdf(ctx, query, as_json):
    """Download and attach the open-access PDF of each paper QUERY selects (all when empty)
    that has none attached: from the link arXiv, OpenReview or Crossref gave (catalog add,
    enrich), or arXiv's for its arXiv id. Copies go into the folder of files, as with
    `catalog attach`, and their text is then searched."""
    import json

    from catalog.text.terminal import safe

    catalog = _open(ctx)

    def each(p) -> None:
        if as_json or p.outcome in ("had one", "no link"):
            return
        if p.outcome == "failed":
            click.echo(f"catalog: {p.key}: {safe(p.error)}", err=True)
        else:
            click.echo(f"{p.key}  attached {safe(p.location)}  [{safe(p.url)}]")

    done = catalog.web.fetch_pdfs(" ".join(query), on_each=each)
    catalog.files.read_texts()
    if as_json:
        click.echo(json.dumps([p.as_json() for p in done], ensure_ascii=False, indent=2))
    counts = {o: sum(p.outcome == o for p in done) for o in ("attached", "had one", "no link", "failed")}
    if not as_json:
        click.echo(", ".join(f"{n} {o}" for o, n in counts.items() if n) or "no papers there", err=True)
    if counts["failed"]:
        sys.exit(1)


def _new_catalog(ctx) -> bool:
    from catalog.paths import resolve_db_path

    location, _ = resolve_db_path(ctx.find_root().params.get("db"))
    return isinstance(location, Path) and not location.exists()


def _linked_command(name: str, citing: bool):
    about = ("The papers citing paper KEY, from Semantic Scholar." if citing else
             "The papers paper KEY cites: from Semantic Scholar, else the list its publisher gave Crossref.")

    @click.command(name, help=about + (
        "\n\nEach line: the catalog's key when it holds the paper (else -), the title, the year and an "
        "identifier; the abstract below it when the service has one. KEY needs a DOI or an arXiv id "
        "(catalog enrich finds them)."))
    @click.argument("key")
    @json_option
    @click.pass_context
    def command(ctx, key, as_json):
        import json

        from rich.text import Text

        from catalog.cli.output import stdout
        from catalog.text.terminal import safe

        linked = _open(ctx).web.linked(key, citing=citing)
        if as_json:
            click.echo(json.dumps(linked.as_json(), ensure_ascii=False, indent=2))
            return
        for p in linked.papers:
            ident = f"DOI {p.doi}" if p.doi else f"arXiv:{p.arxiv_id}" if p.arxiv_id else ""
            line = Text(f"{p.key or '-':8} ", style="bold" if p.key else "dim")
            line.append(safe(p.title or "(no title)"))
            line.append("  " + "  ".join(safe(str(x)) for x in (p.year, ident) if x), style="dim")
            stdout.print(line, soft_wrap=True)
            if p.abstract:
                stdout.print(Text("         " + safe(p.abstract[:240]) + ("..." if len(p.abstract) > 240 else ""),
                                  style="dim"), soft_wrap=True)
        held = sum(1 for p in linked.papers if p.key)
        what = "papers citing it" if citing else "references"
        click.echo(f"{len(linked.papers)} {what} from {linked.service}; {held} in the catalog (their keys first on the line)",
                   err=True)

    return command


refs = _linked_command("refs", citing=False)
cited_by = _linked_command("cited-by", citing=True)


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


COMMANDS = (add, enrich, refs, cited_by, fetch_pdf)
