"""PDFs made in the tests with PDFium itself (pypdfium2's raw API): pages of text in a
standard font, or pages with no text at all (a scan without a text layer, as the scanner
leaves it). Real PDFs live in tests/data/pdf/."""

from __future__ import annotations

import ctypes
import textwrap
from pathlib import Path

LINE = 90  # characters a line


def make(path: Path, pages: list[str], *, size=(612, 792)) -> Path:
    """A PDF at `path` with one page per string (an empty string: a page without text); each
    line of a string is wrapped at LINE characters, a page holds 62 lines."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    document = pdfium.PdfDocument.new()
    for text in pages:
        page = document.new_page(*size)
        lines = [line for paragraph in text.split("\n") for line in textwrap.wrap(paragraph, LINE) or [""]]
        for number, line in enumerate(lines[:62]):
            item = raw.FPDFPageObj_NewTextObj(document.raw, b"Helvetica", ctypes.c_float(10))
            encoded = (line + "\0").encode("utf-16-le")
            buffer = ctypes.create_string_buffer(encoded, len(encoded))
            raw.FPDFText_SetText(item, ctypes.cast(buffer, ctypes.POINTER(raw.FPDF_WCHAR)))
            raw.FPDFPageObj_Transform(item, 1, 0, 0, 1, 40, size[1] - 50 - 12 * number)
            raw.FPDFPage_InsertObject(page.raw, item)
        raw.FPDFPage_GenerateContent(page.raw)
        page.close()
    document.save(str(path))
    document.close()
    return path


def highlight(path: Path, page: int, line: int, comment: str, *, rgb=(255, 255, 0), size=(612, 792)) -> Path:
    """Add a highlight over line `line` (0-based, as make() placed it) of page `page` (1-based)
    with `comment`, as a PDF reader saves one; the file is written again in place."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    document = pdfium.PdfDocument(path.read_bytes())
    handle = document[page - 1]
    annot = raw.FPDFPage_CreateAnnot(handle.raw, raw.FPDF_ANNOT_HIGHLIGHT)
    raw.FPDFAnnot_SetColor(annot, raw.FPDFANNOT_COLORTYPE_Color, *rgb, 255)
    bottom, top = size[1] - 49 - 12 * line, size[1] - 44 - 12 * line  # inside the line, not its neighbours
    quad = raw.FS_QUADPOINTSF(38, top, 560, top, 38, bottom, 560, bottom)
    raw.FPDFAnnot_AppendAttachmentPoints(annot, quad)
    raw.FPDFAnnot_SetRect(annot, raw.FS_RECTF(38, top, 560, bottom))
    encoded = (comment + "\0").encode("utf-16-le")
    buffer = ctypes.create_string_buffer(encoded, len(encoded))
    raw.FPDFAnnot_SetStringValue(annot, b"Contents", ctypes.cast(buffer, ctypes.POINTER(raw.FPDF_WCHAR)))
    raw.FPDFPage_CloseAnnot(annot)
    handle.close()
    document.save(str(path))
    document.close()
    return path
