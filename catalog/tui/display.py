"""Small display helpers shared by the widgets: imported text made safe, stars.

Imported text is only ever put into Text/Content objects as plain text; nothing here builds
markup, so `[bold]` or `[link=...]` in an abstract stays literal."""

from __future__ import annotations

from catalog.text import printable, stars  # noqa: F401  (stars: re-exported for the widgets)


safe = printable  # text for the screen: control characters and escape sequences removed


def one_line(value: object) -> str:
    return " ".join(safe(value).split())


def first_line(exc: BaseException) -> str:
    """An exception as one line for a notification (database errors run to several)."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
