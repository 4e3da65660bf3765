"""Small display helpers shared by the widgets: imported text made safe, stars.

Imported text is only ever put into Text/Content objects as plain text; nothing here builds
markup, so `[bold]` or `[link=...]` in an abstract stays literal."""

from __future__ import annotations

from catalog.text import strip_control


def safe(value: object) -> str:
    """Text for the screen: control characters and escape sequences removed."""
    return strip_control(str(value)) if value is not None else ""


def one_line(value: object) -> str:
    return " ".join(safe(value).split())


def first_line(exc: BaseException) -> str:
    """An exception as one line for a notification (database errors run to several)."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def stars(rating: int | None) -> str:
    return "★" * rating + "☆" * (5 - rating) if rating else ""
