"""Benchmarks: `python -m benchmarks --help`. Results go to docs/benchmarks.md."""
