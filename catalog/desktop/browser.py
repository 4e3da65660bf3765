"""Opening a paper's page in the user's browser (`catalog open`, `o` in the TUI), never
through a shell.

The link is checked again first (catalog/ingest/links.py: http or https only, percent-encoded
as RFC 3986 asks): a catalog made before imports checked links may hold `file:` ones.

`$BROWSER` is read as Python's webbrowser reads it: commands separated by `:`, each split as
a shell would split it (shlex) but run without one; `%s` in a command is where the link goes
(else it is the last argument), a trailing `&` runs it in the background. webbrowser itself
puts the link into whatever argument holds `%s`, so `BROWSER="sh -c 'firefox %s'"` hands the
link to a shell as code: `https://x.org/$(reboot)` would run `reboot`. Here such a command
(one whose `%s` is part of a longer argument) gets the link with every character a shell acts
on in a word (`$ & ; ' ( )`) percent-encoded too; a `%s` that is an argument of its own stays
one argument, whatever the link holds. When every `$BROWSER` command fails, no other browser
is tried (webbrowser would go on to its own list). Without `$BROWSER`, the desktop's opener
(xdg-open, macOS `open`) is used, else webbrowser's own search.

`quiet` (the TUI): the browser's input and output go to /dev/null, so nothing it prints
reaches the screen, and a browser still running after WAIT seconds counts as opened.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

from catalog.errors import CatalogError
from catalog.ingest.links import NotALink, web_link

WAIT = 5.0
_SHELL_ACTIVE = re.compile(r"[$&;'()]")


def openable(link: str) -> str:
    """`link` as it goes to a browser; CatalogError when it is not an http or https link."""
    try:
        found = web_link(link)
    except NotALink as exc:
        found, why = None, str(exc)
    else:
        why = "empty"
    if found is None:
        shown = link if len(link) <= 80 else link[:79] + "…"
        raise CatalogError(f"not opening {shown!r}: only http and https links are opened ({why})")
    return found


def open_link(link: str, *, quiet: bool = False) -> bool:
    """Open `link` (checked by openable) in the user's browser; whether one took it."""
    link = openable(link)
    browser = os.environ.get("BROWSER", "")
    if browser.strip():
        return any(_run(argv, background, quiet)
                   for argv, background in _browser_commands(browser, link))
    opener = _desktop_opener()
    if opener is not None:
        return _run([*opener, link], False, quiet)
    if quiet and sys.platform[:3] != "win":
        return False  # webbrowser's console browsers would take over the TUI's terminal
    import webbrowser

    return webbrowser.open(link)


def _browser_commands(browser: str, link: str) -> list[tuple[list[str], bool]]:
    """The command lines $BROWSER names for `link`, and whether each runs in the background."""
    commands = []
    for entry in browser.split(os.pathsep):
        try:
            argv = shlex.split(entry)
        except ValueError:  # an unbalanced quote: not a command
            continue
        background = bool(argv) and argv[-1] == "&"
        argv = argv[:-1] if background else argv
        if not argv:
            continue
        if not any("%s" in arg for arg in argv):
            argv.append("%s")
        quiet_link = _SHELL_ACTIVE.sub(lambda m: f"%{ord(m[0]):02X}", link)
        commands.append(([link if arg == "%s" else arg.replace("%s", quiet_link) for arg in argv], background))
    return commands


def _desktop_opener() -> list[str] | None:
    if sys.platform == "darwin":
        return ["open"]
    if sys.platform[:3] == "win":
        return None  # webbrowser opens the default browser through the shell's file association
    found = shutil.which("xdg-open")
    return [found] if found else None


def _run(argv: list[str], background: bool, quiet: bool) -> bool:
    quiet_io = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    try:
        process = subprocess.Popen(argv, close_fds=True, start_new_session=quiet or background,
                                   **(quiet_io if quiet else {}))
    except OSError:
        return False
    if background:
        return process.poll() in (None, 0)
    if not quiet:
        return process.wait() == 0
    try:
        return process.wait(WAIT) == 0
    except subprocess.TimeoutExpired:
        return True  # a browser that stays open is a browser that opened


# --- files: an attached PDF in the desktop's viewer -------------------------------------------

OPENER_VAR = "CATALOG_OPENER"


def open_file(path) -> bool:
    """Open a local file with `$CATALOG_OPENER` (a command, split as a shell would split it,
    run without one; `%s` is where the path goes, else it is the last argument), else the
    desktop's opener. The opener's input and output go to /dev/null, always: a viewer's
    messages must not land in the TUI's screen or a script's output. False: no opener, or it
    failed."""
    command = os.environ.get(OPENER_VAR, "").strip()
    if command:
        try:
            argv = shlex.split(command)
        except ValueError:
            return False
        if not any("%s" in arg for arg in argv):
            argv.append("%s")
        argv = [str(path) if arg == "%s" else arg.replace("%s", str(path)) for arg in argv]
    else:
        opener = _desktop_opener()
        if opener is None:
            return False
        argv = [*opener, str(path)]
    return _run(argv, False, True)
