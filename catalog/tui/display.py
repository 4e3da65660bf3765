"""Small display helpers shared by the widgets: imported text made safe, stars.

Imported text is only ever put into Text/Content objects as plain text; nothing here builds
markup, so `[bold]` or `[link=...]` in an abstract stays literal."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

from catalog.text.terminal import safe, stars  # noqa: F401  (stars: for the widgets)




def one_line(value: object) -> str:
    return " ".join(safe(value).split())


def shorten(value: object, width: int = 40) -> str:
    """`value` on one line in at most `width` terminal cells, ending in … when cut (at a word
    boundary when one is near). Every shortened title or note in the app goes through here."""
    text = one_line(value)
    if cell_len(text) <= width:
        return text
    cut = set_cell_size(text, width - 1).rstrip()
    space = cut.rfind(" ")
    if space >= width * 2 // 3:  # a word boundary near the end: cut there, not mid-word
        cut = cut[:space].rstrip(" ,;:-")
    return cut + "…"


def first_line(exc: BaseException) -> str:
    """An exception as one line for a notification (database errors run to several)."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
