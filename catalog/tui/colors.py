"""Text colours that stay readable in every theme: a theme's colour as the stylesheet gives it,
blended onto the background it is drawn on, and moved towards black or white only as far as
needed to reach a minimum WCAG contrast ratio. Pure functions over Textual's Color."""

from __future__ import annotations

from rich.style import Style
from textual.color import BLACK, WHITE, Color

TEXT = 4.5  # WCAG AA for body text: titles, statuses, tags
MUTED = 3.0  # secondary columns (venue, year, unread), still readable, dimmer than titles


def luminance(color: Color) -> float:
    """WCAG relative luminance of an opaque colour."""

    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio, 1 (none) to 21 (black on white)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable(color: Color, background: Color, minimum: float) -> Color:
    """`color` on `background`, nudged towards black or white until the contrast is `minimum`."""
    if contrast(color, background) >= minimum:
        return color
    target = WHITE if luminance(background) < 0.18 else BLACK
    for step in range(1, 21):
        moved = color.blend(target, step / 20, alpha=1.0)
        if contrast(moved, background) >= minimum:
            return moved
    return target


def text_style(color: Color, background: Color, minimum: float, *, auto: bool = False) -> Style:
    """A Rich style for text in a (possibly translucent or `auto`) theme colour on an opaque
    background. ANSI themes leave colours to the terminal's palette: they are passed through."""
    if background.ansi is not None or color.ansi is not None:
        return Style(color=color.rich_color, bgcolor=background.rich_color, dim=color.a < 1)
    if auto:
        color = background.get_contrast_text(color.a)
    shown = readable(background + color, background, minimum)
    return Style(color=shown.rich_color, bgcolor=background.rich_color)
