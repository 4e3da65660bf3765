"""Text colours that stay readable in every theme: a theme's colour as the stylesheet gives it,
blended onto the background it is drawn on, and moved towards black or white only as far as
needed to reach a minimum WCAG contrast ratio; in a 256-colour terminal (TERM=xterm-256color,
COLORTERM unset) both as given and as the terminal draws it, after Rich rounds it to the
nearest of the 256. Pure functions over Textual's Color."""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color as RichColor
from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.color import BLACK, WHITE, Color
from textual.constants import DIM_FACTOR
from textual.filter import LineFilter

TEXT = 4.5  # WCAG AA for body text: titles, statuses, tags
# Secondary columns (venue, year, unread): dimmer than titles, yet WCAG AA too (at 3.0 light
# themes drew them at 3.3:1 on the cursor row, issue 31).
MUTED = 4.5


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


def in_256(color: Color) -> Color:
    """The colour a 256-colour terminal shows for `color` (Rich's rounding)."""
    r, g, b = color.rich_color.downgrade(ColorSystem.EIGHT_BIT).get_truecolor()
    return Color(r, g, b)


def rounds_to_256(app) -> bool:
    """Whether the app's terminal shows 256 colours (Rich rounds every colour to one of them)."""
    return app.console.color_system == "256"


def shown_contrast(a: Color, b: Color, rounded: bool = False) -> float:
    """The contrast as the terminal shows it; `rounded`: the lower of true colour's and the 256
    colours' (the rounding took footer keys from 4.5:1 to 3.9:1)."""
    if not rounded:
        return contrast(a, b)
    return min(contrast(a, b), contrast(in_256(a), in_256(b)))


@lru_cache(maxsize=4096)  # the list asks per cell, with few distinct colours
def readable(color: Color, background: Color, minimum: float, rounded: bool = False) -> Color:
    """`color` on `background`, nudged towards black or white until the contrast is `minimum`
    (`rounded`: in 256 colours as well). Only a 256-colour terminal pays the darker colours the
    coarse palette needs (a footer key #005A9F in true colour, #002A4A to hold in both)."""
    if shown_contrast(color, background, rounded) >= minimum:
        return color
    target = WHITE if luminance(background) < 0.18 else BLACK
    for step in range(1, 21):
        moved = color.blend(target, step / 20, alpha=1.0)
        if shown_contrast(moved, background, rounded) >= minimum:
            return moved
    return target


def text_style(color: Color, background: Color, minimum: float, *, auto: bool = False,
               rounded: bool = False) -> Style:
    """A Rich style for text in a (possibly translucent or `auto`) theme colour on an opaque
    background (`rounded`: in a 256-colour terminal). ANSI themes leave colours to the
    terminal's palette: they are passed through."""
    if background.ansi is not None or color.ansi is not None:
        return Style(color=color.rich_color, bgcolor=background.rich_color, dim=color.a < 1)
    if auto:
        color = background.get_contrast_text(color.a)
    shown = readable(background + color, background, minimum, rounded)
    return Style(color=shown.rich_color, bgcolor=background.rich_color)


# Theme colours drawn as text, and the backgrounds they are drawn on (a translucent one over
# the page's): each is moved (towards black on a light theme, white on a dark one) until it
# reaches TEXT on every one of them. Light themes drew footer keys at 1.9:1, search hits at
# 3.3:1, the sidebar's cursor at 3.2:1 (issue 31).
PAGES = (("background",), ("surface",), ("panel",))
PAGES_NAMES = {"background", "surface", "panel"}
TEXT_ON = {
    **{name: PAGES for name in (
        "text-primary", "text-secondary", "text-accent", "text-warning", "text-error",
        "text-success", "text-muted", "foreground", "foreground-muted")},
    # (solarized-dark's footer is mid blue under a dark page)
    **{name: (("footer-background",),) for name in (
        "footer-foreground", "footer-key-foreground", "footer-description-foreground")},
    "block-cursor-foreground": (("background", "block-cursor-background"),
                                ("surface", "block-cursor-background")),
    "block-cursor-blurred-foreground": (("background", "block-cursor-blurred-background"),
                                        ("surface", "block-cursor-blurred-background")),
}


def readable_variables(variables: dict[str, str], rounded: bool = False) -> dict[str, str]:
    """A theme's CSS variables with each text colour made readable on each background it is
    drawn on, `rounded`: in a 256-colour terminal (an ANSI theme, or a colour given as `auto`,
    is left as it is: the terminal or Textual picks)."""
    out = dict(variables)
    for name, grounds in TEXT_ON.items():
        try:
            backgrounds = [_solid(variables, layers) for layers in grounds]
            color = _auto(variables[name], backgrounds) or _solid(variables, (name,), translucent=True)
        except (KeyError, ValueError):
            continue  # missing, or ANSI: not ours to move
        shown = backgrounds[0] + color  # a translucent colour, as drawn on the page
        for background in backgrounds:
            shown = readable(shown, background, TEXT, rounded)
        if shown != backgrounds[0] + color or variables[name].startswith("auto"):
            out[name] = shown.hex
        # White text can get no lighter: where the 256-colour rounding lightens the cursor or
        # the footer under it (catppuccin-latte's cursor, 4.1:1), that background moves instead.
        ground = grounds[0][-1]
        if ground not in PAGES_NAMES and any(shown_contrast(shown, b, rounded) < TEXT for b in backgrounds):
            out[ground] = readable(backgrounds[0], shown, TEXT, rounded).hex
    try:  # muted text, moved as far as it needed, never outshines the text it is muted beside
        page = _solid(out, ("background",))
        muted, text = page + _solid(out, ("foreground-muted",), True), page + _solid(out, ("foreground",), True)
        if contrast(muted, page) > contrast(text, page):
            out["foreground-muted"] = out["foreground"]
    except (KeyError, ValueError):
        pass
    return out


def _auto(value: str, backgrounds: list[Color]) -> Color | None:
    """`auto N%` as the better of black and white on these backgrounds (Textual's own choice
    put white on solarized's mid blue cursor, 3.2:1, where black reaches 5.6:1)."""
    if not value.startswith("auto"):
        return None
    alpha = float(value.removeprefix("auto").strip().rstrip("%") or 100) / 100
    best = max((BLACK, WHITE), key=lambda c: min(contrast(c, b) for b in backgrounds))
    return best.with_alpha(alpha)


def _solid(variables: dict[str, str], layers: tuple[str, ...], translucent: bool = False) -> Color:
    """The colour of these variables painted one over the other (KeyError, ValueError: one
    is missing, `auto`, ANSI or unparseable)."""
    out: Color | None = None
    for name in layers:
        value = variables[name]
        if value.startswith("auto"):
            raise ValueError(value)
        color = Color.parse(value)
        if color.ansi is not None:
            raise ValueError(value)
        out = color if out is None else out + color
    if out is None or (out.a < 1 and not translucent):
        raise ValueError(layers)
    return out


@lru_cache(maxsize=4096)
def _undimmed(style: Style, background: RichColor, rounded: bool) -> Style:
    bg = Color.from_rich_color(style.bgcolor or background)
    fg = Color.from_rich_color(style.color)
    dimmed = bg.blend(fg, DIM_FACTOR, alpha=1.0)  # as Textual dims: towards the background
    return style + Style(color=readable(dimmed, bg, TEXT, rounded).rich_color, dim=False)


class ReadableDim(LineFilter):
    """Dim text (Rich's `dim`: facet counts, hints in pickers) dimmed as Textual dims it, but
    never below TEXT contrast: Textual's halfway blend left sidebar counts at 2.5:1 on
    solarized-light. Before Textual's own filter, which would dim it further. `rounded`: in a
    256-colour terminal."""

    def __init__(self, rounded: bool = False) -> None:
        super().__init__()
        self.rounded = rounded

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        back = background.rich_color
        return [Segment(s.text, _undimmed(s.style, back, self.rounded), s.control)
                if s.style is not None and s.style.dim and _truecolor(s.style, back) else s
                for s in segments]


def _truecolor(style: Style, background: RichColor) -> bool:
    return (style.color is not None and style.color.triplet is not None
            and (style.bgcolor or background).triplet is not None)
