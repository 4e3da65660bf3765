"""The docs can be followed as written: every relative link leads to a file that exists, every
`catalog COMMAND` they show is a command (and subcommand) the CLI has, the README's install and
test commands are the ones .ci/run runs, the README stays a front page, and docstrings say why
without figures or issue numbers that go stale."""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path

import click
import pytest

from catalog.cli import main

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
INDENTED = re.compile(r"(?m)^ {4}(catalog .*)$")


def _ids(pages):
    return [str(p.relative_to(REPO)) for p in pages]


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_relative_links_resolve(page):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert broken == []


def _shell_lines(text: str) -> list[str]:
    """The lines of the page's fenced shell blocks (```sh, or ``` with no language)."""
    lines, language = [], None
    for line in text.splitlines():
        if line.startswith("```"):
            language = None if language is not None else (line[3:].strip() or "sh")
        elif language in ("sh", "bash"):
            lines.append(line)
    return lines


def _commands(text: str):
    """Each `catalog ...` line of the page's shell examples, as words (comments dropped)."""
    lines = _shell_lines(text) + INDENTED.findall(text)
    for line in lines:
        for part in re.split(r"&&|\|", line.split("  #")[0]):
            words = part.strip().split()
            for start, word in enumerate(words):
                if word in ("catalog", ".venv/bin/catalog"):
                    yield words[start + 1:]
                    break


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_every_command_shown_exists(page):
    unknown = []
    for words in _commands(page.read_text(encoding="utf-8")):
        group, path = main, []
        for word in words:
            if word.startswith("-"):
                break
            if not isinstance(group, click.Group):
                break
            command = group.get_command(click.Context(group), word)
            if command is None:
                unknown.append(" ".join(["catalog", *path, word]))
                break
            group, path = command, [*path, word]
    assert unknown == []


def test_the_readme_test_command_is_what_ci_runs():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    test_line = ci[ci.index("# The README's test command:") + 1]
    shown = [line for line in _shell_lines(readme) if "pytest" in line]
    assert len(shown) == 1
    assert [w for w in shlex.split(test_line) if w != "--quiet"] == shlex.split(shown[0])
    assert "-c constraints.txt" in shown[0] and (REPO / "constraints.txt").exists()


def test_the_readme_is_a_front_page():
    words = len((REPO / "README.md").read_text(encoding="utf-8").split())
    assert words < 1500, words


# A measured time ("0.6-3.6 s", "110 ms") or an issue number in a docstring is true on the day
# it was written: figures live in docs/benchmarks.md, history in git.
STALE = re.compile(r"\b\d[\d.,]*(?:-\d[\d.,]*)?\s?(?:ms|µs|s|seconds|milliseconds)\b|\bissues? \d+|#\d+\b",
                   re.IGNORECASE)


def test_docstrings_hold_no_timings_or_issue_numbers():
    found = []
    for path in sorted((REPO / "catalog").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                text = ast.get_docstring(node, clean=False) or ""
                found += [f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 1)}: {m[0]!r}"
                          for m in STALE.finditer(text)]
    assert found == []
