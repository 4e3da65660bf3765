"""Highlights, underlines and comments a reader made in a PDF, read with pypdfium2, as the
notes they become (Catalog.files.read_pdf_notes): `p. 3 · highlight (yellow): “the text” — comment`.

The text a highlight covers is the page's text inside its quadrilaterals. Imported only where
PDFs are read (catalog/attachments/pdftext.py's rule).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path

# PDF annotation subtypes (PDF 32000, 12.5.6) that carry a reader's marks.
KINDS = {1: "comment", 3: "text box", 9: "highlight", 10: "underline", 11: "squiggly", 12: "strikeout"}
MARKING = {9, 10, 11, 12}  # these cover text on the page
COLOURS = {  # the nearest of these names a reader's colour
    "yellow": (255, 255, 0), "green": (0, 255, 0), "blue": (0, 0, 255), "red": (255, 0, 0),
    "pink": (255, 105, 180), "orange": (255, 165, 0), "purple": (128, 0, 128), "cyan": (0, 255, 255),
    "grey": (128, 128, 128), "black": (0, 0, 0),
}
MAX_QUOTE = 2000


@dataclass(frozen=True)
class Annotation:
    page: int  # 1-based
    kind: str  # highlight, underline, squiggly, strikeout, comment, text box
    colour: str | None
    quote: str  # the text it marks ("" for a comment)
    comment: str  # what the reader wrote

    def note(self) -> str:
        """The note it becomes."""
        head = f"p. {self.page} · {self.kind}" + (f" ({self.colour})" if self.colour else "")
        said = [f"“{self.quote}”"] if self.quote else []
        said += [self.comment] if self.comment else []
        return f"{head}: " + " — ".join(said)


def read(path: Path) -> list[Annotation]:
    """The reader's marks in the PDF at `path`, page by page; [] for a file PDFium cannot open."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    try:
        document = pdfium.PdfDocument(str(path))
    except (pdfium.PdfiumError, OSError, ValueError):
        return []
    found = []
    try:
        for number in range(len(document)):
            page = document[number]
            textpage = None
            try:
                for index in range(raw.FPDFPage_GetAnnotCount(page.raw)):
                    annot = raw.FPDFPage_GetAnnot(page.raw, index)
                    try:
                        kind = raw.FPDFAnnot_GetSubtype(annot)
                        if kind not in KINDS:
                            continue
                        quote = ""
                        if kind in MARKING:
                            textpage = textpage or page.get_textpage()
                            quote = _covered(raw, annot, textpage)
                        comment = " ".join(_string(raw, annot, b"Contents").split())
                        if quote or comment:
                            found.append(Annotation(number + 1, KINDS[kind], _colour(raw, annot), quote, comment))
                    finally:
                        raw.FPDFPage_CloseAnnot(annot)
            finally:
                if textpage is not None:
                    textpage.close()
                page.close()
    except pdfium.PdfiumError:
        pass
    finally:
        document.close()
    return found


def _string(raw, annot, key: bytes) -> str:
    size = raw.FPDFAnnot_GetStringValue(annot, key, None, 0)
    if size <= 2:
        return ""
    buffer = ctypes.create_string_buffer(size)
    raw.FPDFAnnot_GetStringValue(annot, key, ctypes.cast(buffer, ctypes.POINTER(raw.FPDF_WCHAR)), size)
    return buffer.raw[:size - 2].decode("utf-16-le", "replace")


def _covered(raw, annot, textpage) -> str:
    """The page's text inside the annotation's quadrilaterals, one line each, joined."""
    parts = []
    for index in range(raw.FPDFAnnot_CountAttachmentPoints(annot)):
        quad = raw.FS_QUADPOINTSF()
        if not raw.FPDFAnnot_GetAttachmentPoints(annot, index, quad):
            continue
        xs, ys = (quad.x1, quad.x2, quad.x3, quad.x4), (quad.y1, quad.y2, quad.y3, quad.y4)
        parts.append(textpage.get_text_bounded(min(xs), min(ys), max(xs), max(ys)))
    text = " ".join(" ".join(parts).replace("\x02", "").split())
    return text[:MAX_QUOTE]


def _colour(raw, annot) -> str | None:
    r, g, b, a = (ctypes.c_uint() for _ in range(4))
    if not raw.FPDFAnnot_GetColor(annot, raw.FPDFANNOT_COLORTYPE_Color, r, g, b, a):
        return None  # drawn by its appearance stream only: PDFium does not say
    rgb = (r.value, g.value, b.value)
    return min(COLOURS, key=lambda name: sum((x - y) ** 2 for x, y in zip(COLOURS[name], rgb)))
