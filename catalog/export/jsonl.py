"""JSON Lines: one object per paper with the CSV columns; tags and notes as lists."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from catalog.export.csvfile import row
from catalog.results import ExportPaper


def write(papers: Sequence[ExportPaper], out: TextIO) -> None:
    for p in papers:
        out.write(json.dumps(row(p), ensure_ascii=False) + "\n")
