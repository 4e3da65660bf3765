"""How the CLI prints: Rich Text built piece by piece, so imported text is never parsed as markup
and never carries escape sequences to the terminal. Rich's tables, and the names of kinds of
publication, are imported by the few printers that use them: a search needs neither."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

from catalog.results import MissingWords, PaperDetail, PaperSummary, Stats, Suggestion, TagCount
from catalog.searching.highlight import END as HIGHLIGHT_END, START as HIGHLIGHT_START
from catalog.text.terminal import safe, stars

stdout = Console(highlight=False, soft_wrap=False)
stderr = Console(stderr=True, highlight=False)




def highlighted(snippet: str) -> Text:
    """A snippet with its \\x02...\\x03 marks shown as bold."""
    out = Text()
    bold = False
    for i, part in enumerate(snippet.replace(HIGHLIGHT_END, HIGHLIGHT_START).split(HIGHLIGHT_START)):
        if i:
            bold = not bold
        out.append(safe(part), style="bold yellow" if bold else None)
    return out


def plain_snippet(snippet: str | None) -> str | None:
    if snippet is None:
        return None
    return safe(snippet.replace(HIGHLIGHT_START, "").replace(HIGHLIGHT_END, ""))


def summary_line(p: PaperSummary) -> Text:
    line = Text()
    line.append(p.key, style="cyan")
    line.append("  ")
    if p.notice:  # before the title: it changes how to read the paper
        line.append(f"{safe(p.notice).upper()}  ", style="bold red" if p.notice_grave else "bold yellow")
    line.append(safe(p.title), style="bold")
    if p.authors:
        line.append(f"  {safe(p.authors)}", style="italic")
    meta = " ".join(x for x in (safe(p.venue), safe(p.year or "")) if x)
    if meta:
        line.append(f"  {meta}", style="dim")
    if p.status != "unread":
        line.append(f"  [{p.status}]", style="green")
    if p.rating:
        line.append(f"  {stars(p.rating)}", style="yellow")
    if p.tags:
        line.append("  " + " ".join("#" + safe(t) for t in p.tags), style="magenta")
    return line


def piped() -> bool:
    """Output goes to a pipe or a file: one record per line, never wrapped, no snippets."""
    return not stdout.is_terminal


def partial_separator(papers: list[PaperSummary]) -> str:
    """The line between the papers holding every word and those holding some of them."""
    full = sum(1 for p in papers if p.match == "all")
    held = "no paper holds" if not full else f"{full} {'paper holds' if full == 1 else 'papers hold'}"
    return f"── {held} every word; these hold some of them ──"


def print_summaries(papers: list[PaperSummary], *, with_snippets: bool = False) -> None:
    if piped():
        # One record per line for scripts; `--json` tells partial matches apart.
        for p in papers:
            stdout.print(summary_line(p), soft_wrap=True)
        return
    for i, p in enumerate(papers):
        if p.match == "some" and (i == 0 or papers[i - 1].match != "some"):
            stdout.print(Text(partial_separator(papers), style="dim"))
        line = summary_line(p)
        if p.match == "some":  # ≈: holds only some of the search's words
            line = Text.assemble(("≈ ", "dim"), line)
        stdout.print(line)
        if with_snippets and p.snippet:
            snippet = highlighted(p.snippet)
            snippet.pad_left(4)
            stdout.print(snippet)
        if with_snippets and p.page_snippet:
            snippet = Text(f"p. {p.page}: ", style="dim")
            snippet.append_text(highlighted(p.page_snippet))
            snippet.pad_left(4)
            stdout.print(snippet)


def print_json(data) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def summaries_json(papers: list[PaperSummary]) -> list[dict]:
    return [{**p.as_json(), "snippet": plain_snippet(p.snippet), "match": p.match,
             **({"page": p.page, "page_snippet": plain_snippet(p.page_snippet)} if p.page else {})} for p in papers]


def search_json(query: str, papers: list[PaperSummary], suggestions: list[Suggestion],
                missing: MissingWords | None = None, fixed: str | None = None) -> dict:
    """`catalog search --json`: the papers, the suggestions for words (almost) no paper holds,
    the words no paper holds (`missing_words`: {"missing": [...], "held": [...]} or null), and
    the corrected search that ran instead of the typed one (`corrected`, or null)."""
    from catalog.searching.suggest import corrected

    return {"papers": summaries_json(papers), "suggestions": [s.as_json() for s in suggestions],
            "did_you_mean": corrected(query, suggestions) if suggestions else None,
            "missing_words": missing.as_json() if missing else None, "corrected": fixed}


def print_corrected(query: str, fixed: str) -> None:
    """On stderr: `No paper matches 'watermarkng': showing watermarking.`"""
    line = Text(f"No paper matches {safe(query)!r}: showing ")
    line.append(safe(fixed), style="bold")
    line.append(".")
    stderr.print(line, soft_wrap=True)


def missing_line(missing: MissingWords) -> str:
    """`No paper has "subquadratic"; showing papers with "attention".`, and for a compound
    `...; showing papers with "interpretability" and papers with the words of "weight-based" apart.`"""
    def quoted(words) -> str:
        return ", ".join(f'"{safe(w)}"' for w in words)

    shown = [f"papers with {quoted(missing.held)}"] if missing.held else []
    if missing.apart:
        shown.append(f"papers with the words of {quoted(missing.apart)} apart")
    return f"No paper has {quoted(missing.missing)}; showing {' and '.join(shown)}."


def print_missing(missing: MissingWords) -> None:
    stderr.print(Text(missing_line(missing)), soft_wrap=True)


def print_suggestions(query: str, suggestions: list[Suggestion], *, found: bool) -> None:
    """On stderr: `No papers match "atention sink". Did you mean: attention sink?`, and the
    other close words when there are several."""
    from catalog.searching.suggest import corrected

    head = "Few papers match" if found else "No papers match"
    line = Text(f"{head} {safe(query)!r}. Did you mean: ")
    line.append(safe(corrected(query, suggestions)), style="bold")
    line.append("?")
    stderr.print(line, soft_wrap=True)
    for s in suggestions:
        if len(s.alternatives) > 1:
            stderr.print(Text(f"  {safe(s.word)}: " + ", ".join(map(safe, s.alternatives)), style="dim"),
                         soft_wrap=True)


# The services `catalog add` and `enrich` ask (catalog/fetching/), as sources name them.
WEB_SERVICES = {"arxiv": "arXiv", "crossref": "Crossref", "datacite": "DataCite", "openreview": "OpenReview"}


def print_detail(d: PaperDetail) -> None:
    from catalog.ingest.kinds import label as kind_label

    stdout.print(summary_line(d.summary))
    if d.authors:
        stdout.print(Text(safe(d.authors), style="italic"))
    if d.user_title:
        stdout.print(Text(f"(your title; derived headline: {safe(d.headline)})", style="dim"))
    for label, value in (("Type", kind_label(d.kind)), ("DOI", d.doi), ("arXiv", d.arxiv_id), ("URL", d.url),
                         ("PDF", d.pdf_url)):
        if value:
            stdout.print(Text(f"{label}: {safe(value)}", style="dim"))
    for n in d.notices:  # a retraction matters more than any other line here
        what = safe(n.label or n.kind.replace("_", " ").capitalize())
        when = f" of {n.updated}" if n.updated else ""
        stdout.print(Text(f"{what}{when}: https://doi.org/{safe(n.doi)}", style="bold red" if n.grave else "bold"),
                     soft_wrap=True)
    stdout.print()
    stdout.print(Text(safe(d.abstract_text)))
    if d.notes:
        stdout.print()
        for note in d.notes:
            by = f" by {safe(note.author)}" if note.author else ""
            stdout.print(Text(f"Note {note.number}{by} ({note.updated_at:%Y-%m-%d %H:%M})", style="bold"))
            stdout.print(Text(safe(note.body)))
    if d.attachments:
        stdout.print()
        print_attachments(d.attachments)
    if d.sources:
        stdout.print()
        for number, s in enumerate(d.sources, 1):
            where = " ".join(x for x in (safe(s.venue), safe(s.year or "")) if x)
            how = f" (merged: {safe(s.evidence)})" if s.evidence else ""
            if s.format in WEB_SERVICES:  # where the web's fields came from, and when
                how = f" (fetched from {WEB_SERVICES[s.format]} on {s.added})" + how
            stdout.print(Text(f"{number}. from {safe(s.path)} #{s.position} {where}".rstrip() + how, style="dim"),
                         soft_wrap=True)
    for r in d.records:
        stdout.print()
        what = " ".join(x for x in (safe(r.entry_type or ""), safe(r.cite_key or "")) if x)
        stdout.print(Text(f"Fields of {safe(r.source)} #{r.position}" + (f" ({what})" if what else ""),
                          style="bold"), soft_wrap=True)
        for name, value, *_ in r.fields:
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            shown = " ".join(shown.split())
            shown = shown if len(shown) <= 100 else shown[:99] + "…"
            stdout.print(Text(f"  {safe(str(name))} = {safe(shown)}", style="dim"), soft_wrap=True)


def attachment_line(a) -> str:
    """`1. 2024 Smith - Title.pdf  12 pages, 1.2 MB` (linked, missing...)."""
    facts = [f"{a.pages} page{'s' if a.pages != 1 else ''}"] if a.pages else []
    facts.append(file_size(a.size))
    if a.stored == "linked":
        facts.append("linked")
    if a.text_state not in (None, "text"):
        facts.append(a.text_state)
    if a.present is False:
        facts.append("MISSING")
    return f"{a.number}. {Path(a.path).name}  {', '.join(facts)}"


def print_attachments(attachments) -> None:
    for a in attachments:
        stdout.print(Text(safe(attachment_line(a)), style="bold red" if a.present is False else ""), soft_wrap=True)
        stdout.print(Text(f"   {safe(a.location or a.path)}", style="dim"), soft_wrap=True)


def file_size(size: int) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000
    return ""


def print_tags(tags: list[TagCount]) -> None:
    if piped():
        for t in tags:
            stdout.print(Text(f"{safe(t.name)}  {t.count}"), soft_wrap=True)
        return
    from rich.table import Table

    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column("tag", style="magenta")
    table.add_column("papers", justify="right")
    for t in tags:
        table.add_row(Text(safe(t.name)), str(t.count))
    stdout.print(table)


def print_stats(s: Stats) -> None:
    from rich.table import Table

    stdout.print(Text(f"{_n(s.papers, 'paper')} from {_n(s.sources, 'file')}, {_n(s.notes, 'note')}, "
                      f"{_n(s.tags, 'tag')}"))
    for title, rows in (("venue", [(f"{safe(v)} {y or ''}".strip(), n) for v, y, n in s.by_venue]),
                        ("status", s.by_status),
                        ("rating", [(stars(r) or "unrated", n) for r, n in s.by_rating])):
        table = Table(title=None, box=None, pad_edge=False)
        table.add_column(title)
        table.add_column("papers", justify="right")
        for label, n in rows:
            table.add_row(Text(str(label)), str(n))
        stdout.print()
        stdout.print(table)


def print_charts(found, width: int | None) -> None:
    """`catalog stats --plot`: each chart under its title, as wide as the terminal (at most 100)."""
    import shutil

    from catalog.parts import charts

    width = width or min(100, shutil.get_terminal_size((80, 24)).columns)
    for chart in charts.draw(found, width):
        stdout.print(Text(chart.title, style="bold"))
        stdout.print(Text(chart.text), soft_wrap=True)
        stdout.print()


def stats_json(s: Stats) -> dict:
    return {
        "papers": s.papers, "sources": s.sources, "notes": s.notes, "tags": s.tags,
        "by_venue": [{"venue": v, "year": y, "papers": n} for v, y, n in s.by_venue],
        "by_status": [{"status": st, "papers": n} for st, n in s.by_status],
        "by_rating": [{"rating": r, "papers": n} for r, n in s.by_rating],
    }


def print_table(columns: list[str], rows: list[tuple]) -> None:
    """A box table on a terminal; tab-separated values with a header line otherwise (NULL is
    empty; tab, newline, carriage return and backslash inside a value are written \\t \\n \\r \\\\)."""
    if piped():
        sys.stdout.write("".join("\t".join(map(_tsv, row)) + "\n" for row in [columns, *rows]))
        return
    from rich.table import Table

    table = Table(pad_edge=False)
    for c in columns:
        table.add_column(Text(safe(c)))
    for row in rows:
        table.add_row(*(Text(safe(v) if v is not None else "NULL") for v in row))
    stdout.print(table)


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _tsv(value) -> str:
    """One TSV cell: the separators escaped first (safe() keeps tabs and newlines),
    then control characters dropped."""
    return "" if value is None else safe(str(value).translate(_TSV_ESCAPES))


def _line(text: str | Text) -> None:
    """One line, never wrapped, never read as markup."""
    stdout.print(text if isinstance(text, Text) else Text(text), soft_wrap=True)


def print_doctor(report) -> None:
    """`catalog doctor`: each check and its problems, then what --fix did and what is left."""
    for name in report.checked:
        problems = [f.problem for f in report.found if f.check == name]
        mark = Text("problem", style="bold red") if problems else Text("ok", style="green")
        _line(Text.assemble(mark, " " * (9 - len(mark)), name))
        for problem in problems:
            _line(f"         - {safe(problem)}")
    for note in report.notes:
        _line(Text(safe(note), style="dim"))
    if report.backup:
        _line(Text(f"Kept a copy at {safe(report.backup)}", style="dim"))
    for done in report.repaired:
        _line(Text(f"Fixed: {safe(done)}", style="green"))
    if not report.remaining:
        _line("Repaired; the catalog is healthy now." if report.repaired else "The catalog is healthy.")
    elif not report.backup and any(f.fixable for f in report.remaining):
        from catalog.paths import is_server_url

        safety = ("every repair runs in one transaction" if is_server_url(str(report.path))
                  else "a copy of the file is kept first")
        _line(f"Run `catalog doctor --fix` to repair ({safety}).")
    elif all(f.check == "attached files" for f in report.remaining):
        _line("Put the missing files back where the catalog keeps them, or `catalog detach KEY NUMBER`.")
    else:
        if report.backup:
            _line(Text("Still wrong:", style="bold red"))
            for f in report.remaining:
                _line(f"  {f.check}: {safe(f.problem)}")
        _line(f"Cannot repair this here: {safe(report.recover_hint)}.")


def print_related(papers, reason: str) -> None:
    """`catalog similar` / `recommend`: score and paper, then why (`reason`: "shares", "for")."""
    for p in papers:
        line = Text(f"{p.score:6.3f}  ", style="dim")
        line.append_text(summary_line(p.summary))
        why = Text(f"{reason}: {', '.join(safe(w) for w in p.why)}" if p.why else "", style="dim")
        if piped():  # one record per line
            if p.why:
                line.append("  ")
                line.append_text(why)
            stdout.print(line, soft_wrap=True)
            continue
        stdout.print(line)
        if p.why:
            why.pad_left(8)
            stdout.print(why)


def print_topics(topics, shown: int) -> None:
    """`catalog topics`: each topic's label and size, then up to `shown` of its papers (0: all)."""
    for topic in topics:
        head = Text(f"{topic.number:>2}. ", style="bold")
        head.append(safe(topic.label), style="bold cyan")
        head.append(f"  ({topic.size} {'paper' if topic.size == 1 else 'papers'})", style="dim")
        stdout.print(head, soft_wrap=piped())
        papers = topic.papers if shown == 0 else topic.papers[:shown]
        for p in papers:
            line = Text("    ")
            line.append_text(summary_line(p))
            stdout.print(line, soft_wrap=piped())
        if len(papers) < topic.size:
            stdout.print(Text(f"    ... and {topic.size - len(papers)} more (--papers 0 lists all)",
                              style="dim"), soft_wrap=piped())


def _n(count: int, noun: str) -> str:
    """`1 note`, `2 notes`, `1,203 papers`."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
