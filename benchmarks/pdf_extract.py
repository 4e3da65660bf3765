"""Text extraction from PDFs: catalog's reading (catalog/attachments/pdftext.py: pypdfium2 plus cleaning)
against pypdfium2's own extraction, and pypdf (pure Python) when it is installed, over at
least PAGES pages of real PDFs, alternated in one run so the machine's load falls on each alike.

    python -m benchmarks.pdf_extract FOLDER_OR_PDF... [--pages 1000] [--repeats 3]

Real papers come from a public corpus (pdf.js's test/pdfs, fetched beside the repository);
the files are read again in turn until PAGES pages are reached. Text quality: how many of
a set of phrases known to be printed in the papers each extractor gives back whole (spaces
and line breaks counted as one space).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from time import perf_counter

# Phrases printed on pages of the pdf.js corpus's papers (tracemonkey.pdf, TAMReview.pdf),
# copied from the rendered pages: what a search for them must find.
PHRASES = (
    "Trace-based Just-in-Time Type Specialization for Dynamic Languages",
    "Dynamic languages such as JavaScript are more difficult to compile than statically typed ones",
    "type-specialized code",
    "Overview of the Technology Acceptance Model",
    "perceived usefulness",
)
_SPACE = re.compile(r"\s+")


def pdfium_raw(path: Path) -> list[str]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        return [document[i].get_textpage().get_text_bounded() for i in range(len(document))]
    finally:
        document.close()


def catalog_read(path: Path) -> list[str]:
    from catalog.attachments import pdftext

    return pdftext.read(path).pages


def pypdf_read(path: Path) -> list[str]:
    import logging

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its font warnings are not the benchmark's

    return [page.extract_text() or "" for page in PdfReader(str(path)).pages]


def catalog_import_read(path: Path) -> list[str]:
    """As `catalog import` reads a PDF: page 1's runs by size of type too (its title)."""
    from catalog.attachments import pdftext

    return pdftext.read(path, headings=True).pages


def candidates() -> dict:
    found = {"catalog (pdftext.read)": catalog_read, "catalog import (with page 1's headings)": catalog_import_read,
             "pypdfium2 alone": pdfium_raw}
    try:
        import pypdf  # noqa: F401
    except ImportError:
        print("pypdf is not installed: compared without it", file=sys.stderr)
    else:
        found["pypdf"] = pypdf_read
    return found


def pdfs(paths: list[str]) -> list[Path]:
    files = []
    for name in paths:
        path = Path(name)
        files += sorted(path.rglob("*.pdf")) if path.is_dir() else [path]
    return files


def run(files: list[Path], pages: int, repeats: int) -> str:
    with_text = [f for f in files if catalog_read(f)]
    counts = {f: len(catalog_read(f)) for f in with_text}
    if not counts or not sum(counts.values()):
        raise SystemExit("no PDF with pages among the files given")
    plan, total = [], 0
    while total < pages:
        for f in with_text:
            plan.append(f)
            total += counts[f]
            if total >= pages:
                break
    extractors = candidates()
    times = {name: [] for name in extractors}
    for _ in range(repeats):
        for name, extract in extractors.items():
            start = perf_counter()
            for f in plan:
                extract(f)
            times[name].append(perf_counter() - start)
    texts = {name: " ".join(_SPACE.sub(" ", " ".join(extract(f))) for f in with_text)
             for name, extract in extractors.items()}
    wanted = [p for p in PHRASES if any(p in t for t in texts.values())] or list(PHRASES)
    base = min(times["pypdfium2 alone"])
    lines = [f"### PDF text: {total:,} pages ({len(plan)} reads of {len(with_text)} real PDFs), best of {repeats}",
             "", "| | time | per page | ratio to pypdfium2 alone | known phrases found |", "| --- | --- | --- | --- | --- |"]
    for name, samples in times.items():
        best = min(samples)
        found = sum(1 for p in wanted if p in texts[name])
        lines.append(f"| {name} | {best:.2f} s | {1000 * best / total:.2f} ms | {best / base:.2f}x | {found} of {len(wanted)} |")
    return "\n".join(lines + [""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="PDF files or folders of them")
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(run(pdfs(args.paths), args.pages, args.repeats))


if __name__ == "__main__":
    main()
