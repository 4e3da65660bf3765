"""Search as a whole process: `catalog search` against `sqlite-utils search`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.measure import timed

QUERIES = ["hessian", "model", "sparse attention"]


def compare(catalog_db: Path, sqlite_utils_db: Path, repeats: int) -> dict[str, list[float]]:
    tool = Path(sys.executable).with_name("sqlite-utils")
    catalog = Path(sys.executable).with_name("catalog")
    times: dict[str, list[float]] = {"catalog search": [], "sqlite-utils search": []}
    for _ in range(repeats):
        for query in QUERIES:
            times["catalog search"].append(timed(lambda: subprocess.run(
                [catalog, "--db", catalog_db, "search", "-n", "20", query],
                check=True, capture_output=True)))
            times["sqlite-utils search"].append(timed(lambda: subprocess.run(
                [tool, "search", sqlite_utils_db, "papers", query, "--limit", "20"],
                check=True, capture_output=True)))
    return times
