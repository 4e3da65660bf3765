"""Search as a whole process: `catalog search` against `sqlite-utils search`, and the other
quick commands (`show`, `tags`, `--help`), with this checkout's code and another's.

    python -m benchmarks.processes CATALOG_DB SQLITE_UTILS_DB --against DIR --rounds 5

Each round runs every command once with each checkout's code (PYTHONPATH), then `sqlite-utils
search` (its `papers` table and FTS), alternated, so the machine's load falls on all alike;
prints medians of the wall time and of the process's CPU time (user + system), and the
ratios. Python's compiled bytecode is kept in a folder of its own for each checkout
(PYTHONPYCACHEPREFIX), written by a first run that is not counted: an installed catalog has
its .pyc files, while a checkout without __pycache__ run with PYTHONDONTWRITEBYTECODE=1 (as on
the team's machines) compiles every module it imports, every time (`--source` runs the
checkouts as they are, writing no bytecode, to measure that).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
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


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed(lambda: subprocess.run(command, check=True, capture_output=True, env=env, cwd="/"))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def checkouts_compared(catalog_db: Path, sqlite_utils_db: Path, code: dict[str, Path], rounds: int,
                       *, source: bool = False) -> dict[str, dict[str, list[tuple[float, float]]]]:
    """{command: {who: [(wall, cpu), ...]}}: each checkout's `catalog` (python -m catalog with
    its folder on PYTHONPATH, run from / so no other checkout is on the path) and `sqlite-utils
    search` on the same words."""
    tool = str(Path(sys.executable).with_name("sqlite-utils"))
    key = subprocess.run([sys.executable, "-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1])"
                          ".execute('SELECT key FROM paper ORDER BY id LIMIT 1').fetchone()[0])", str(catalog_db)],
                         check=True, capture_output=True, text=True).stdout.strip()
    commands = {f"search {q}": ["search", "-n", "20", q] for q in QUERIES}
    commands |= {"show": ["show", key], "tags": ["tags"], "--help": ["--help"]}
    with tempfile.TemporaryDirectory(prefix="pycache-") as caches:
        envs = {}
        for who, folder in code.items():
            env = {**os.environ, "PYTHONPATH": str(folder.resolve())}
            if not source:  # bytecode as an installed catalog has it, in a folder of its own
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                env["PYTHONPYCACHEPREFIX"] = str(Path(caches) / who.replace("/", "_"))
            envs[who] = env
            for args in commands.values():  # writes the bytecode; not counted
                subprocess.run([sys.executable, "-m", "catalog", "--db", str(catalog_db), *args],
                               check=True, capture_output=True, env=env, cwd="/")
        times: dict[str, dict[str, list[tuple[float, float]]]] = {c: {} for c in commands}
        for _ in range(rounds):
            for name, args in commands.items():
                for who, env in envs.items():
                    times[name].setdefault(who, []).append(
                        _run([sys.executable, "-m", "catalog", "--db", str(catalog_db), *args], env))
                if name.startswith("search "):
                    words = name.removeprefix("search ")
                    times[name].setdefault("sqlite-utils", []).append(_run(
                        [tool, "search", str(sqlite_utils_db), "papers", words, "--limit", "20"], dict(os.environ)))
    return times


def report(times: dict[str, dict[str, list[tuple[float, float]]]]) -> list[str]:
    lines = ["| command | who | wall median | CPU median | wall ratio to first | CPU ratio to first |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, by in times.items():
        first = None
        for who, samples in by.items():
            wall = statistics.median(w for w, _ in samples)
            cpu = statistics.median(c for _, c in samples)
            first = first or (wall, cpu)
            lines.append(f"| {name} | {who} | {wall * 1000:.0f} ms | {cpu * 1000:.0f} ms | "
                         f"{wall / first[0]:.2f}x | {cpu / first[1]:.2f}x |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("catalog_db", type=Path)
    parser.add_argument("sqlite_utils_db", type=Path, help="a sqlite-utils database of the same papers "
                        "(`papers` table with FTS: `sqlite-utils insert` + `enable-fts`, as `python -m benchmarks` builds)")
    parser.add_argument("--against", type=Path, action="append", default=[], help="another checkout (repeatable)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--source", action="store_true",
                        help="no bytecode written: a checkout without __pycache__ compiles its modules at each run")
    args = parser.parse_args()
    code = {"this checkout": Path(__file__).resolve().parent.parent, **{str(d): d for d in args.against}}
    load = os.getloadavg()[0]
    times = checkouts_compared(args.catalog_db, args.sqlite_utils_db, code, args.rounds, source=args.source)
    print(f"load {load:.1f} -> {os.getloadavg()[0]:.1f}, {args.rounds} rounds, "
          f"{'source' if args.source else 'bytecode'}")
    print("\n".join(report(times)))


if __name__ == "__main__":
    main()
