"""The text of a PDF, page by page, and what its file says about itself (title, author), read
with pypdfium2 (PDFium: fast, and the best text of the candidates in docs/benchmarks.md).

Imported only by what reads PDFs (attaching one, importing a folder of them, the benchmarks):
pypdfium2 loads a native library, and no other command pays for it (tests/test_extras.py).

A file that cannot give text says which of these it is, in one word, and nothing else
changes: 'encrypted' (a password is needed), 'unreadable' (not a PDF, or broken), 'no text'
(scanned pages without a text layer: fewer than MIN_CHARS characters a page on average).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

MIN_CHARS = 20
# Characters PDFium hands over that are no text: form feeds, NULs, Windows line ends, and \x02,
# its mark of a hyphen that broke a word at a line end ("com\x02pile"; the line break is often
# gone). Some files' fonts give \x02 for every space instead: on a page holding more of them
# than spaces, or a line holding several and more of them than spaces, they are spaces (PDFium
# runs a paragraph's hyphenated lines into one: "imper\x02fect agents ... obser\x02vations").
_JUNK = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]")
_BROKEN_WORD = re.compile(r"(\w)(?:[\u00ad\x02]\s*|-\r?\n)(\w)")
_SPACES = re.compile(r"[ \t]+")


@dataclass
class PdfText:
    state: str  # 'text', 'no text', 'encrypted', 'unreadable'
    pages: list[str] = field(default_factory=list)  # page 1 first
    metadata: dict[str, str] = field(default_factory=dict)  # Title, Author, Subject, Keywords
    why: str = ""  # for 'unreadable': what PDFium said

    @property
    def page_count(self) -> int:
        return len(self.pages)


def clean(text: str) -> str:
    """A page's text as it is indexed: words broken at a line end joined again, line ends as
    `\\n`, control characters gone, runs of spaces as one."""
    text = text.replace("\r\n", "\n")
    if "\x02" in text:
        spaces = text.count("\x02") > text.count(" ")
        text = "\n".join(line.replace("\x02", " ") if spaces or line.count("\x02") > max(1, line.count(" ")) else line
                         for line in text.split("\n"))
    text = _BROKEN_WORD.sub(r"\1\2", text)
    return _SPACES.sub(" ", _JUNK.sub(" ", text)).strip()


def read(path: Path, *, max_pages: int | None = None) -> PdfText:
    """The text of each page (of the first `max_pages`), or why there is none."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            return PdfText("encrypted")
        return PdfText("unreadable", why=message.split(".")[0])
    except (OSError, ValueError) as exc:
        return PdfText("unreadable", why=str(exc))
    try:
        metadata = {k: clean(v) for k, v in (document.get_metadata_dict(skip_empty=True) or {}).items()
                    if isinstance(v, str)}
        pages = []
        for number in range(len(document) if max_pages is None else min(len(document), max_pages)):
            page = document[number]
            textpage = page.get_textpage()
            try:
                pages.append(clean(textpage.get_text_bounded()))
            finally:
                textpage.close()
                page.close()
    except pdfium.PdfiumError as exc:
        return PdfText("unreadable", why=str(exc).split(".")[0])
    finally:
        document.close()
    chars = sum(len(p) for p in pages)
    state = "text" if pages and chars >= MIN_CHARS * len(pages) else "no text"
    return PdfText(state, pages, metadata)
