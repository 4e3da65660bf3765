"""Files in and out: import, export, and annotations export/import."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import click

from catalog.cli.common import EPILOG, _fail, _open


@click.command("import")
# readable=False: a file that cannot be read is reported like any failing file, and the rest import.
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False, path_type=Path))
@click.option("--venue", help="Venue for files without a header line (overrides the header).")
@click.option("--year", type=click.IntRange(1900, 2100), help="Year for files without a header line.")
@click.option("--map", "mapping", multiple=True, metavar="FIELD=COLUMN",
              help="JSON/CSV: read FIELD (title, abstract, authors, year, venue, doi, url, arxiv_id, kind) "
                   "from COLUMN. Repeatable.")
@click.option("--verbose", "-v", is_flag=True,
              help="List each merge: which entry went into which paper, on what evidence; and each PDF.")
@click.option("--link/--copy", default=None,
              help="PDFs: leave them where they are (link), or copy them into the catalog's folder of files "
                   "(the default; $CATALOG_ATTACH=link changes it).")
@click.pass_context
def import_cmd(ctx, paths, venue, year, mapping, verbose, link):
    """Import paper lists, BibTeX (.bib), RIS (.ris), JSON/JSONL and CSV files, PDFs, or folders of them.

    Papers already in the catalog (same DOI, arXiv id, abstract or title, when nothing
    contradicts it) are not added again: their empty fields are filled in, and your tags,
    notes and ratings stay. Re-importing a file changes nothing. Bad entries are reported
    and skipped. `catalog split KEY` undoes a wrong merge.

    A PDF is attached to the paper it is (its DOI or arXiv id, else its title and abstract),
    or becomes a new paper from its own text.
    """
    from catalog.cli.progress import import_progress, ranking_progress
    from catalog.text.terminal import safe

    if not any(path.exists() for path in paths):  # before opening: a new --db is not made for nothing
        _fail("nothing to import: " + "; ".join(f"{path}: no such file or folder" for path in paths))
    _no_new_folders(ctx)
    catalog = _open(ctx, create=True)
    with ranking_progress() as ranking:
        try:
            with import_progress(paths) as advance:
                # background: the ranked lists here, the discovery cache in catalog/discover/refresher.py
                report = catalog.import_paths(paths, venue=venue, year=year, progress=advance, mapping=mapping,
                                              background=True, ranking=ranking.advance, link=link)
        except KeyboardInterrupt:
            if ranking.started is None:
                raise
            _fail(f"interrupted while ranking lists of frequent words: {ranking.left:,} left, ranked in the"
                  " background now (the papers are imported)", code=130)
    if not report.files:
        _fail("nothing to import: no paper lists (.txt, .md), .bib, .json, .jsonl, .csv or .pdf files in "
              + ", ".join(str(p) for p in paths))
    _say_pdfs(report)
    for warning in report.warnings:
        click.echo(f"catalog: {safe(str(warning))}", err=True)  # each says what became of it
    if report.said_before and verbose:
        for warning in report.said_before:
            click.echo(f"catalog: (unchanged file, as its first import said) {safe(str(warning))}", err=True)
    elif report.said_before:
        click.echo(f"{len(report.said_before)} warning(s) of unchanged files were said when they were first"
                   " imported (-v lists them again)", err=True)
    for f in report.errors:
        click.echo(f"catalog: {safe(f.error)}", err=True)
    if verbose:
        for merge in report.merges:
            click.echo(safe(merge), err=True)
    click.echo(report.summary(verbose=verbose), err=True)
    if ranking.done:
        click.echo(f"ranked the lists of {ranking.done:,} frequent words and prefixes in {ranking.seconds:.1f} s",
                   err=True)
        _say_lists_left(catalog)
    if report.errors or report.warnings:  # something in the files did not go in
        sys.exit(1)


def _say_lists_left(catalog) -> None:
    """The lists an import leaves to the background: prefixes searches as you type reach late or
    never (on SQLite those of one or two letters, in a catalog past SHORT_AT_IMPORT papers of
    catalog/store/lists/scoring.py; on PostgreSQL also the less frequent ones)."""
    from catalog.discover import refresher

    left = catalog.lists_left()
    if not left:
        return
    where = ("`catalog doctor --fix` ranks them (CATALOG_DISCOVER_REFRESH=off)" if refresher.mode() == "off"
             else "ranked in the background")
    click.echo(f"ranking lists: {left:,} left, of prefixes like `a*` or `in*` (a large catalog's import leaves"
               f" them; until then such a search ranks every match): {where}", err=True)


def _say_pdfs(report) -> None:
    """One line for the PDFs of an import: attached to papers already here, new, not imported."""
    pdfs = [f for f in report.files if f.path.lower().endswith(".pdf")]
    if not pdfs:
        return
    matched = sum(1 for f in pdfs if f.known and f.merges)
    new = sum(1 for f in pdfs if f.new)
    had = sum(1 for f in pdfs if f.known and not f.merges)
    click.echo(f"PDFs: {matched} attached to papers already here, {new} new papers from their own text, "
               f"{had} attached before, {sum(1 for f in pdfs if f.error)} not imported", err=True)


def add_pdfs(catalog, files: list[Path], link: bool | None) -> bool:
    """`catalog add FILE.pdf`: each PDF attached to the paper it is (its DOI or arXiv id, else
    its title and abstract), or made a new paper from its own text, one line each; whether all
    went in."""
    from catalog.text.terminal import safe

    reports = catalog.files.import_pdfs(list(files), link=link)
    for f in reports:
        for line in f.merges:
            click.echo(safe(line), err=True)
        if f.error:
            click.echo(f"catalog: {safe(f.error)}", err=True)
        elif f.known and not f.merges:
            click.echo(f"{safe(f.path)} is attached already", err=True)
    return not any(f.error for f in reports)


def _no_new_folders(ctx) -> None:
    """A --db (or $CATALOG_DB) in a folder that does not exist is refused, not made: a typo in
    the path must not leave new folders behind. (The default catalog's data folder is made.)"""
    from catalog.paths import resolve_db_path

    location, is_default = resolve_db_path(ctx.find_root().params.get("db"))
    if isinstance(location, Path) and not is_default and not location.parent.is_dir():
        _fail(f"cannot make a catalog at {location}: folder {location.parent} does not exist "
              "(make it first, or check the path)")


EXPORT_FORMATS = ("bibtex", "csljson", "ris", "markdown", "csv", "jsonl", "vault")


@click.command("export", epilog=EPILOG)
@click.argument("query", nargs=-1)
@click.option("--format", "-f", "fmt", type=click.Choice(EXPORT_FORMATS),
              help="Output format (default: from the -o file's suffix: .bib .json .ris .md .csv .jsonl).")
@click.option("--output", "-o", type=click.Path(allow_dash=True, path_type=Path),
              help="Write to this file (written whole, or not at all) instead of standard output "
                   "(or -); for vault, the folder.")
@click.option("--force", is_flag=True, help="Replace the -o file if it exists.")
@click.pass_context
def export_cmd(ctx, query, fmt, output, force):
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
    if output is not None and str(output) == "-":
        if fmt == "vault":
            raise click.UsageError("a vault is a folder of files; name the folder")
        output = None  # standard output, as without -o
    if fmt is None:
        fmt = format_for(output) if output else None
        if fmt is None:
            raise click.UsageError(f"say which format: --format {'|'.join(EXPORT_FORMATS)}")
    if output is not None and fmt != "vault" and output.is_dir():
        _fail(f"cannot write {output}: it is a folder; give a file name (or --format vault)")
    with _stream_hint():
        report = _open(ctx).exchange.export(" ".join(query), fmt, output, force=force)
    for skipped in report.skipped:
        click.echo(f"catalog: skipped {safe(skipped)}", err=True)
    if output:
        click.echo(f"Exported {report.papers} {'paper' if report.papers == 1 else 'papers'} "
                   f"to {output} ({fmt})"
                   + (f"; {report.unchanged} already up to date" if report.unchanged else ""), err=True)


@contextmanager
def _stream_hint():
    """A device or a pipe given as the file: say how to write into a stream instead."""
    from catalog.export.filewriter import NotAFile

    try:
        yield
    except NotAFile as exc:
        _fail(f"{exc}; -o - writes to standard output" if exc.kind != "a folder" else str(exc))


@click.group()
def annotations():
    """Your tags, notes, status, ratings, titles and saved searches, as a file to move or share."""


@annotations.command("export")
@click.argument("file", required=False, type=click.Path(allow_dash=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(allow_dash=True, path_type=Path),
              help="The file to write, as FILE does (as in catalog export).")
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@click.pass_context
def annotations_export(ctx, file, output, force):
    """Write your annotations to FILE (JSON); without one, or with -, to standard output."""
    if file is not None and output is not None and file != output:
        raise click.UsageError("name the file once: FILE or -o FILE")
    target = output or file
    to_file = target is not None and str(target) != "-"
    with _stream_hint():
        count = _open(ctx).exchange.export_annotations(target if to_file else None, force=force)
    click.echo(f"Exported annotations of {count} {'paper' if count == 1 else 'papers'}"
               + (f" to {target}" if to_file else ""), err=True)


@annotations.command("import")
@click.argument("file", type=click.Path(dir_okay=False, readable=False, path_type=Path))
@click.option("--theirs", is_flag=True,
              help="Where both sides set a different status, rating or title, take the file's.")
@click.pass_context
def annotations_import(ctx, file, theirs):
    """Merge annotations from FILE: tags and notes are added (never twice), conflicts reported."""
    from catalog.text.terminal import safe

    report = _open(ctx).exchange.import_annotations(file, theirs=theirs)
    for conflict in report.conflicts:
        click.echo(f"catalog: conflict: {safe(conflict)}", err=True)
    for missing in report.not_found:
        click.echo(f"catalog: not in this catalog: {safe(missing)}", err=True)
    for unsure in report.ambiguous:
        click.echo(f"catalog: ambiguous, not applied: {safe(unsure)}", err=True)
    click.echo(report.summary(), err=True)


@click.group()
def citekey():
    """Cite keys: each paper's is given once (docs/formats.md, "Cite keys")."""


@citekey.command("regen")
@click.argument("query", nargs=-1)
@click.pass_context
def citekey_regen(ctx, query):
    """Make the cite keys of the papers QUERY selects again by the pattern (a key a paper's file
    gave it stays), and list every change."""
    from catalog.text.terminal import safe

    changes = _open(ctx).citing.regen_citekeys(" ".join(query))
    for key, old, new in changes:
        click.echo(f"{key}  {safe(old or '(none)')} -> {safe(new)}")
    click.echo(f"{len(changes)} cite {'key' if len(changes) == 1 else 'keys'} changed", err=True)


@citekey.command("pattern")
@click.argument("pattern", required=False)
@click.pass_context
def citekey_pattern(ctx, pattern):
    """Show the pattern new cite keys are made by, or set it (like auth.lower+year+shorttitle;
    parts: auth, auth.lower, year, shorttitle, title3). Keys already given stay until regen."""
    click.echo(_open(ctx).citing.citekey_pattern(pattern))


@click.group()
def bib():
    """Project .bib files kept current (docs/formats.md, "A .bib that stays current")."""


@bib.command("add")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("query", nargs=-1, required=True)
@click.option("--aux", type=click.Path(dir_okay=False, path_type=Path),
              help="Only the entries this LaTeX .aux file cites.")
@click.pass_context
def bib_add(ctx, file, query, aux):
    """Keep FILE a BibTeX file of the papers QUERY selects (a tag, a saved search's query)."""
    from catalog.text.terminal import safe

    done = _open(ctx).citing.bib_add(file, " ".join(query), aux=aux)
    click.echo(f"{safe(done.path)}: {done.papers} {'entry' if done.papers == 1 else 'entries'}; kept current", err=True)


@bib.command("sync")
@click.pass_context
def bib_sync(ctx):
    """Rewrite each kept .bib file whose papers changed."""
    from catalog.text.terminal import safe

    for done in _open(ctx).citing.bib_sync():
        click.echo(f"{safe(done.path)}: {done.papers} entries, {'rewritten' if done.written else 'unchanged'}",
                   err=True)


@bib.command("list")
@click.pass_context
def bib_list(ctx):
    """The kept .bib files and their queries."""
    from catalog.text.terminal import safe

    for found in _open(ctx).citing.bib_files():
        click.echo(f"{safe(found.path)}\t{safe(found.query)}" + (f"\t--aux {safe(found.aux)}" if found.aux else ""))


@bib.command("remove")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_context
def bib_remove(ctx, file):
    """Stop keeping FILE current (the file itself stays)."""
    if not _open(ctx).citing.bib_remove(file):
        raise click.ClickException(f"{file} is not a kept .bib file (`catalog bib list` shows them)")


COMMANDS = (import_cmd, export_cmd, annotations, citekey, bib)
