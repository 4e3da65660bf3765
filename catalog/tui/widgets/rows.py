"""One line of the paper list: column widths for the space available, and a row as Rich Text.

Widths are terminal cells (rich's cell_len), so Chinese titles and tags line up."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from catalog.results import PaperSummary
from catalog.tui.display import one_line, stars

YEAR, STATUS, RATING = 4, 7, 6
VENUE = 12  # cells a venue has whatever the width (more on a wide screen)
AUTHORS = 20  # at most: "Vaswani et al." fits, as do most "A & B"
MARKS = 3  # ● marked, ✎ has notes, ▤ has files (else a space)
NOTES = "✎"
FILES = "▤"  # in the gap before the title: a PDF or other file is attached


@dataclass(frozen=True)
class Columns:
    title: int
    venue: int
    tags: int
    authors: int = 0

    @classmethod
    def fit(cls, width: int, venue: int = 8, authors: bool = False, tags: bool = True) -> "Columns":
        """Title takes what is left; `authors` (some paper shown has them) gets a column
        when there is room, then `tags` (some paper has them), which else lead the title.
        `venue`: the venues' own width, given up to a fifth of the line past 20 cells, VENUE at least
        (a wide screen had `Journal of …` beside a title column with room to spare)."""
        venue = min(venue, max(VENUE, (width - 20) // 5))
        fixed = MARKS + (venue + 1) + (YEAR + 1) + (STATUS + 1) + (RATING + 1)
        rest = max(10, width - fixed)
        people = min(AUTHORS, rest // 4) if authors and rest >= 36 else 0
        rest -= people + 1 if people else 0
        tags = min(30, rest // 4) if tags and rest >= 60 else 0
        return cls(title=rest - (tags + 1 if tags else 0), venue=venue, tags=tags, authors=people)


def cell(text: str, width: int, style: Style | str = "") -> Text:
    """`text` in exactly `width` cells: cut with an ellipsis, or padded."""
    out = Text(text, style=style, no_wrap=True, end="")
    out.truncate(width, overflow="ellipsis", pad=True)
    return out


@dataclass(frozen=True)
class RowStyles:
    """Rich styles for one kind of row (plain, marked, under the cursor), resolved from the
    stylesheet's component classes on that row's background, so every theme applies.

    Each style carries its colour and background: segments are drawn as given."""

    base: Style  # spaces between columns
    title: Style
    mark: Style
    meta: Style
    rating: Style
    tags: Style
    status: dict[str, Style]
    notice: Style = Style(bold=True)  # a retraction, withdrawal or correction flag before the title

    @classmethod
    def plain(cls, style: Style | None = None) -> "RowStyles":
        style = style or Style()
        return cls(style, style, style, style, style, style, {})


# The sort order each header sorts by when clicked (catalog.searching.query.SORTS).
SORTABLE = {"Title": "title", "Year": "year", "Rating": "rating"}
# Which way each order runs when not reversed: its arrow.
DESCENDING = {"year": True, "rating": True, "title": False, "added": True, "relevance": True}


def _columns(cols: Columns) -> list[tuple[str, int]]:
    return [("Title", cols.title), ("Authors", cols.authors), ("Venue", cols.venue), ("Year", YEAR), ("Status", STATUS),
            ("Rating", RATING), ("Tags", cols.tags)]


def header(cols: Columns, style: Style, sort: tuple[str, bool] | None = None) -> Text:
    """The column names; `sort` (field, reversed) puts an arrow before the sorted column's."""
    line = Text(style=style, no_wrap=True, end="")
    line.append(" " * (MARKS - 1), style)
    for label, width in _columns(cols):
        if width:
            field = SORTABLE.get(label)
            if sort is not None and field == sort[0]:
                line.append("↓" if DESCENDING[field] != sort[1] else "↑", style)
            else:
                line.append(" ", style)
            line.append_text(cell(label, width, style))
    return line


def header_at(cols: Columns, x: int) -> str | None:
    """The sort order of the header under column `x` (a click), if it sorts."""
    start = MARKS - 1
    for label, width in _columns(cols):
        if width:
            if start <= x < start + 1 + width:
                return SORTABLE.get(label)
            start += 1 + width
    return None


def row(p: PaperSummary, cols: Columns, styles: RowStyles, marked: bool) -> Text:
    gap = styles.base
    line = Text(style=gap, no_wrap=True, end="")
    if p.match == "some" and not marked:  # ≈: holds only some of the search's words
        line.append("≈", styles.meta)
    else:
        line.append("●" if marked else " ", styles.mark)
    line.append(NOTES if p.has_notes else " ", styles.meta)
    line.append(FILES, styles.meta) if p.has_files else line.append(" ", gap)
    tags = " ".join("#" + one_line(t) for t in p.tags)
    width = cols.title
    if p.notice:  # "RETRACTED " leads the title: it changes how to read the paper
        flag = cell(p.notice.upper() + " ", min(cell_len(p.notice) + 1, width // 2), styles.notice)
        line.append_text(flag)
        width -= flag.cell_len
    if cols.tags or not tags:
        line.append_text(cell(one_line(p.title), width, styles.title))
    else:  # no room for a tags column: tags follow the title, which keeps at least half
        tag_room = min(cell_len(tags) + 1, width // 2)
        title = cell(one_line(p.title), width - tag_room, styles.title)
        title.append_text(cell(" " + tags, tag_room, styles.tags))
        line.append_text(title)
    if cols.authors:
        line.append(" ", gap)
        line.append_text(cell(one_line(p.authors), cols.authors, styles.meta))
    line.append(" ", gap)
    line.append_text(cell(one_line(p.venue), cols.venue, styles.meta))
    line.append(" ", gap)
    line.append_text(cell(str(p.year or ""), YEAR, styles.meta))
    line.append(" ", gap)
    line.append_text(cell(p.status, STATUS, styles.status.get(p.status, styles.title)))
    line.append(" ", gap)
    line.append_text(cell(stars(p.rating), RATING, styles.rating))
    if cols.tags:
        line.append(" ", gap)
        line.append_text(cell(tags, cols.tags, styles.tags))
    return line
