"""Editing a note in the user's own editor ($VISUAL, else $EDITOR) from the TUI: the app is
suspended (App.suspend gives the terminal back), the text goes to a temporary Markdown file,
the editor runs on it, and the app comes back with what the file then holds. The file is
removed afterwards. A missing or failing editor is one line (CatalogError); nothing is saved."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from catalog.errors import CatalogError


def editor_command() -> list[str]:
    """The editor to run, as its words ($EDITOR may hold arguments: `code --wait`)."""
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            try:
                return shlex.split(value)
            except ValueError:
                raise CatalogError(f"${name} cannot be read as a command: {value!r}") from None
    raise CatalogError("no editor: set $EDITOR (say, export EDITOR=nano); n edits notes in the app")


def edit_externally(app, text: str) -> str:
    """`text` after the user edited it in their editor, run with the app suspended."""
    command = editor_command()
    fd, name = tempfile.mkstemp(prefix="catalog-note-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text if not text or text.endswith("\n") else text + "\n")
        try:
            with app.suspend():
                finished = subprocess.run([*command, str(path)])
        except FileNotFoundError:
            raise CatalogError(f"editor {command[0]!r} not found: set $EDITOR to one that is installed") from None
        except Exception as exc:  # SuspendNotSupported (Textual web), a permission error
            raise CatalogError(f"cannot run the editor here: {exc or type(exc).__name__}") from None
        if finished.returncode != 0:
            raise CatalogError(f"the editor {command[0]!r} ended with status {finished.returncode}: "
                               "note not saved")
        return path.read_text(encoding="utf-8", errors="replace")
    finally:
        path.unlink(missing_ok=True)
