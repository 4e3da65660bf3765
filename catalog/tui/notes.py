"""Notes are Markdown: shown rendered (emphasis, headings, lists, quotes, code, links as
`text (address)`), as Content built from plain strings and theme variables. Nothing a note
says is read as markup, no link becomes clickable, and control characters are gone."""

from __future__ import annotations

from functools import lru_cache

from textual.content import Content

from catalog.tui.display import safe

CODE = "$text-accent"
QUOTE = "$text-muted"
INLINE = {"em": "italic", "strong": "bold", "s": "strike"}


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt  # Textual's own Markdown parser; loaded on first note

    return MarkdownIt("commonmark", {"html": False}).enable("strikethrough")


def note_content(markdown: str) -> Content:
    """One note, rendered."""
    tokens = _parser().parse(safe(markdown))
    lines: list[Content] = []
    prefixes: list[str] = []  # list bullets and quote bars of the blocks we are inside
    numbers: list[int | None] = []  # per open list: the next number, or None for bullets
    first_line_prefix: str | None = None  # a list item's bullet, for its first line only
    heading = ""
    quote = 0
    for token in tokens:
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            numbers.append(int(token.attrGet("start") or 1) if kind == "ordered_list_open" else None)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            numbers.pop()
            if not numbers and lines and lines[-1].plain:
                lines.append(Content(""))
        elif kind == "list_item_open":
            number = numbers[-1]
            bullet = "• " if number is None else f"{number}. "
            if number is not None:
                numbers[-1] = number + 1
            first_line_prefix = "".join(prefixes) + bullet
            prefixes.append(" " * len(bullet))
        elif kind == "list_item_close":
            prefixes.pop()
        elif kind == "blockquote_open":
            quote += 1
            prefixes.append("▌ ")
        elif kind == "blockquote_close":
            quote -= 1
            prefixes.pop()
        elif kind == "heading_open":
            heading = "bold underline" if token.tag == "h1" else "bold"
        elif kind == "heading_close":
            heading = ""
            lines.append(Content(""))
        elif kind == "paragraph_close" and not numbers and not token.hidden:
            lines.append(Content(""))
        elif kind in ("fence", "code_block"):
            for line in token.content.rstrip("\n").split("\n"):
                lines.append(_prefixed(prefixes, None, Content.styled(line, CODE)))
            lines.append(Content(""))
        elif kind == "hr":
            lines.append(Content.styled("─" * 20, QUOTE))
            lines.append(Content(""))
        elif kind == "inline":
            body = _inline(token.children or [])
            if heading:
                body = body.stylize(heading)
            if quote:
                body = body.stylize(QUOTE)
            for i, line in enumerate(body.split("\n")):
                lines.append(_prefixed(prefixes, first_line_prefix if i == 0 else None, line))
            first_line_prefix = None
    while lines and not lines[-1].plain:
        lines.pop()
    return Content("\n").join(lines)


def _prefixed(prefixes: list[str], first: str | None, line: Content) -> Content:
    prefix = first if first is not None else "".join(prefixes)
    if not prefix:
        return line
    return Content.assemble(Content.styled(prefix, QUOTE if "▌" in prefix else ""), line)


def _inline(children) -> Content:
    parts: list[Content] = []
    styles: list[str] = []
    link: list[str] = []  # addresses of the links we are inside
    link_text: list[str] = []
    for child in children:
        kind = child.type
        if kind.endswith("_open") and kind[:-5] in INLINE:
            styles.append(INLINE[kind[:-5]])
        elif kind.endswith("_close") and kind[:-6] in INLINE:
            styles.pop()
        elif kind == "link_open":
            link.append(child.attrGet("href") or "")
            link_text.append("")
        elif kind == "link_close":
            href, text = link.pop(), link_text.pop()
            if href and href != text:
                parts.append(Content.styled(f" ({href})", QUOTE))
        elif kind in ("text", "html_inline"):
            parts.append(Content.styled(child.content, " ".join(styles)))
            if link_text:
                link_text[-1] += child.content
        elif kind == "code_inline":
            parts.append(Content.styled(child.content, " ".join([*styles, CODE])))
        elif kind in ("softbreak", "hardbreak"):
            parts.append(Content("\n"))
        elif kind == "image":
            parts.append(Content.styled(child.content or "image", "italic"))
    return Content.assemble(*parts) if parts else Content("")
