"""The text of a PDF, page by page, and what its file says about itself (title, author), read
with pypdfium2 (PDFium: fast, and the best text of the candidates in docs/benchmarks.md).

Imported only by what reads PDFs (attaching one, importing a folder of them, the benchmarks):
pypdfium2 loads a native library, and no other command pays for it (tests/test_extras.py).

A file that cannot give text says which of these it is, in one word, and nothing else
changes: 'encrypted' (a password is needed), 'unreadable' (not a PDF, or broken), 'no text'
(scanned pages without a text layer: fewer than MIN_CHARS characters a page on average).
"""

from __future__ import annotations

import logging
import re
import sys
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
    # Page 1's runs of text in one size of type, above its abstract, largest type first (read
    # with `headings`): a paper's title is set in its largest type, where a line of page 1's
    # text alone does not tell it from a running head or the authors.
    headings: list[str] = field(default_factory=list)

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


def quiet_after_interrupt() -> None:
    """Keep PDFium's exit-time cleanup from writing to stderr after Ctrl-C. An interrupt that
    lands inside pypdfium2 (between closing an object and dropping it from its tracker) leaves
    it a dead entry, and at exit it says "Weakref ... was not cleaned up from ObjectTracker?"
    below the command's one line. Nothing is lost: the process ends and frees everything."""
    settings = sys.modules.get("pypdfium2_cfg")  # loaded only if a PDF was read
    if settings is not None:
        settings.DEBUG_AUTOCLOSE.value = logging.CRITICAL + 1


def read(path: Path, *, max_pages: int | None = None, headings: bool = False) -> PdfText:
    """The text of each page (of the first `max_pages`), or why there is none; with
    `headings`, page 1's runs of text by size of type too (a few ms a file)."""
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
        pages, runs = [], []
        for number in range(len(document) if max_pages is None else min(len(document), max_pages)):
            page = document[number]
            textpage = page.get_textpage()
            try:
                pages.append(clean(textpage.get_text_bounded()))
                if headings and number == 0:
                    runs = _headings(textpage)
            finally:
                textpage.close()
                page.close()
    except pdfium.PdfiumError as exc:
        return PdfText("unreadable", why=str(exc).split(".")[0])
    finally:
        document.close()
    chars = sum(len(p) for p in pages)
    state = "text" if pages and chars >= MIN_CHARS * len(pages) else "no text"
    return PdfText(state, pages, metadata, headings=runs)


SAME_SIZE = 0.1  # type within 10% of a run's size continues it (italics, accents)
_ABSTRACT = re.compile(r"(?i)abstract")


def _headings(textpage) -> list[str]:
    """Runs of characters of one size of type (each character's height as PDFium boxes it:
    a font's size alone says nothing when the page's matrix scales it), spaces and line ends
    joining a run, up to the word "Abstract"; upright text only (arXiv's stamp runs up the
    margin). Largest type first, then in reading order."""
    import pypdfium2.raw as raw

    # Character by character: the page's text as one string may skip a character PDFium
    # counts, and its positions then no longer name the characters.
    text = "".join(chr(raw.FPDFText_GetUnicode(textpage.raw, i) or 32)
                   for i in range(min(raw.FPDFText_CountChars(textpage.raw), 4000)))
    stop = _ABSTRACT.search(text)
    runs: list[tuple[float, int, list[str]]] = []  # (size, first character, characters)
    for index in range(stop.start() if stop else len(text)):
        char = text[index]
        if not char.strip() or char == "\x02":
            if runs and runs[-1][2][-1:] != [" "]:
                runs[-1][2].append(" ")
            continue
        if abs(raw.FPDFText_GetCharAngle(textpage.raw, index)) > 0.01:
            continue
        left, bottom, right, top = textpage.get_charbox(index, loose=True)
        size = top - bottom
        if runs and abs(size - runs[-1][0]) <= SAME_SIZE * max(size, runs[-1][0]):
            runs[-1][2].append(char)
        else:
            runs.append((size, index, [char]))
    found = [(size, first, " ".join("".join(chars).split())) for size, first, chars in runs]
    return [text for _, _, text in sorted(found, key=lambda run: (-run[0], run[1])) if len(text.split()) >= 3]
