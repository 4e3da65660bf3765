"""The test suite's cost: pytest on the same test files with this checkout's tests and code and
with another checkout's, alternated, each run's wall time and the CPU time of pytest and every
process it started (workers, the CLI subprocesses, a PostgreSQL server: children's rusage).

    python -m benchmarks.suite --against DIR --rounds 2 -- tests/test_kinds.py -n 0

On a shared machine the wall time follows the load; the CPU time is what the suite asks of it
(on an otherwise idle 2-core CI machine the wall time is about the CPU time over 2). Arguments
after `--` go to pytest as they are; with none, the whole suite as the README runs it.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def run(checkout: Path, pytest_args: list[str]) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, exit status, pytest's last line) of one pytest run in `checkout`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *pytest_args],
                          cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)},
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return wall, cpu, done.returncode, lines[-1] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", type=Path, required=True, help="another checkout, alternated with this one")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments")
    args = parser.parse_args()
    checkouts = {"this checkout": HERE, str(args.against): args.against.resolve()}
    cpu: dict[str, list[float]] = {name: [] for name in checkouts}
    for n in range(1, args.rounds + 1):
        for name, path in checkouts.items():
            load = os.getloadavg()[0]
            wall, seconds, status, last = run(path, args.pytest_args)
            cpu[name].append(seconds)
            print(f"round {n} {name}: wall {wall:.1f} s, CPU {seconds:.1f} s, exit {status}, load {load:.1f}"
                  f"-{os.getloadavg()[0]:.1f}: {last}", flush=True)
    for name, values in cpu.items():
        print(f"{name}: CPU median {statistics.median(values):.1f} s over {len(values)} runs")


if __name__ == "__main__":
    main()
