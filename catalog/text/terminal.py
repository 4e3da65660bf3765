"""Text made safe for a terminal (and for storing what users type): escape sequences and
control characters removed, newline and tab kept; or, where text leaves the catalog in an
export, shown as visible stand-ins. How ratings print."""

from __future__ import annotations

import re

_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[\x20-\x7e]?"  # two-byte escapes, or a lone ESC
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f])  # ASCII ones


def safe(value: object) -> str:
    """Any value as text without ANSI escape sequences or C0/C1 controls (newline and tab
    stay; CRLF is a newline, a lone CR a space); None is "". What users type is stored this
    way, and whatever is printed goes through it."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    # Most imported text needs no regex at all. ASCII text (isascii() is O(1))
    # is checked by deleting control bytes, 2x faster than isprintable().
    if text.isascii():
        data = text.encode("ascii")
        if len(data.translate(None, _CONTROL_BYTES)) == len(data):
            return text
    elif text.isprintable() or not _CONTROL.search(text):
        return text
    if "\r" in text:  # a line end (CRLF, or an old Mac's lone CR) must not join two words
        text = text.replace("\r\n", "\n").replace("\r", " ")
    return _CONTROL.sub("", _ANSI.sub("", text))


# Control characters left in stored text (written before stripping existed, or by hand) are
# shown, not obeyed, where text leaves the catalog: C0 as their Unicode pictures (ESC is ␛),
# DEL as ␡, C1 as U+FFFD.
_VISIBLE = {**{c: 0x2400 + c for c in range(0x20) if c not in (0x09, 0x0a)}, 0x7f: 0x2421,
            **{c: 0xFFFD for c in range(0x80, 0xA0)}}


def visible_controls(text: str) -> str:
    """Text with every control character but newline and tab replaced by a visible stand-in."""
    if text.isascii() and text.isprintable():
        return text
    return text.translate(_VISIBLE) if _CONTROL.search(text) else text


def stars(rating: int | None) -> str:
    return "★" * rating + "☆" * (5 - rating) if rating else ""
