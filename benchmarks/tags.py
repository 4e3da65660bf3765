"""`catalog tags rename` and `catalog tags undo` on a wide corpus: a tag on many papers renamed,
then the rename undone, each timed as the whole command (a new process, as a user runs it).

    python -m benchmarks.tags --size 20000 --tagged 5000 --work benchmarks/work/tags

Builds the catalog once (the wide corpus: 5,000 venues, 100,000 authors), tags `--tagged`
papers `bench` (a fifth of them `bench/sub` too), then renames `bench` to `benched` and undoes
that (which brings `bench` back), `--runs` times each, and prints each command's median and
slowest. `--against DIR`: another checkout's code (on PYTHONPATH) renames and undoes too,
alternated with this one's, on the same catalog.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _catalog(db: Path, *args: str, code: Path | None = None) -> float:
    """Run `catalog --db DB ARGS...` (with `code`'s catalog package); its wall time in seconds."""
    command = [str(Path(sys.executable).parent / "catalog"), "--db", str(db), *args]
    env = {**os.environ, "PYTHONPATH": str(code)} if code else None
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def build(size: int, tagged: int, work: Path) -> Path:
    from benchmarks.corpus import write_wide_jsonl
    from catalog.library import Catalog

    db = work / "catalog.db"
    if db.exists():
        return db
    work.mkdir(parents=True, exist_ok=True)
    _catalog(db, "import", str(write_wide_jsonl(size, work / "wide.jsonl")))
    catalog = Catalog.open(db)
    keys = [p.key for p in catalog.search("", limit=size, snippets=False)][::max(1, size // tagged)][:tagged]
    catalog.tag(keys, add=["bench"])
    catalog.tag(keys[::5], add=["bench/sub"])
    catalog.close()
    return db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=20_000)
    parser.add_argument("--tagged", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path(__file__).parent / "work" / "tags")
    parser.add_argument("--against", type=Path, help="another checkout, alternated with this one")
    args = parser.parse_args()
    db = build(args.size, args.tagged, args.work)
    checkouts = {"this checkout": None, **({str(args.against): args.against} if args.against else {})}
    times: dict[tuple[str, str], list[float]] = {}
    # The undo journal is kept in the state folder: the work folder's own, not the user's.
    os.environ["CATALOG_STATE_DIR"] = str(args.work / "state")
    for _ in range(args.runs):
        for name, code in checkouts.items():
            times.setdefault(("rename", name), []).append(
                _catalog(db, "tags", "rename", "bench", "benched", code=code))
            times.setdefault(("undo", name), []).append(_catalog(db, "tags", "undo", code=code))
    for (command, name), samples in times.items():
        print(f"catalog tags {command} ({name}), {args.tagged:,} papers tagged of {args.size:,} "
              f"({len(samples)} runs): median {statistics.median(samples):.2f} s, slowest {max(samples):.2f} s")


if __name__ == "__main__":
    main()
