"""Searches as whole processes, this tree against another checkout, alternated: `catalog --db
DB search QUERY` run afresh each time (nothing remembered between processes; what the catalog
file keeps is what a process finds). Each side searches its own copy of one catalog, since a
search may keep lists in the file: the first round is a query's first search in that catalog,
the later rounds read what it left.

    python -m benchmarks.first_keys --against /path/to/base-checkout BASE.db THIS.db \\
        'the mod*' 'the model*' 'attention eva*' --rounds 3

Run it from a folder that is neither checkout (`python -m` puts the folder it runs in first on
the path): each side runs with its own checkout first on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
WARM_UP = "hessian"  # a rare word: no list of its own is kept


def timed_search(tree: Path, db: Path, query: str) -> float:
    """Seconds of one `catalog search` process (its answer is not checked here: benchmarks.typed
    --check compares pages with the full ranking)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    # As an installed catalog runs: its modules compiled once, not at each start (a shell that
    # sets this adds half a second of compiling to every process, on both sides).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "catalog", "--db", str(db), "search", "-n", "20", query],
                   check=True, capture_output=True, env=env, cwd="/")
    return time.perf_counter() - start


def compare(against: Path, base_db: Path, this_db: Path, queries: list[str], rounds: int) -> list[str]:
    for tree, db in ((against, base_db), (HERE, this_db)):  # compiled, and the file's pages read once
        timed_search(tree, db, WARM_UP)
    lines = [f"load before: {os.getloadavg()[0]:.1f}"]
    print(lines[0], flush=True)
    for query in queries:
        for round_ in range(1, rounds + 1):
            base = timed_search(against, base_db, query)
            this = timed_search(HERE, this_db, query)
            lines.append(f"{query!r:22} round {round_}: against {base:6.2f} s   this tree {this:6.2f} s")
            print(lines[-1], flush=True)
    lines.append(f"load after: {os.getloadavg()[0]:.1f}")
    print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", type=Path, required=True, help="the other checkout")
    parser.add_argument("base_db", type=Path, help="the other checkout's copy of the catalog")
    parser.add_argument("this_db", type=Path, help="this tree's copy of the same catalog")
    parser.add_argument("queries", nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.base_db.resolve() == args.this_db.resolve():
        parser.error("give each side its own copy: a search may keep lists in the file")
    compare(args.against, args.base_db, args.this_db, args.queries, args.rounds)


if __name__ == "__main__":
    main()
