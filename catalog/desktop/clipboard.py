"""Copying text with the desktop's own clipboard tool (wl-copy, xclip, xsel, pbcopy), so the
TUI's `y` can say whether the text reached a clipboard. The TUI also sends OSC 52, which
works over SSH but which many terminals ignore silently (tmux's default `set-clipboard
external`, VTE terminals): "Copied" said after OSC 52 alone was not always true.

Not pyperclip (a wheel is at hand): it runs the same tools but lets them write to the
terminal, where their messages would be painted over the TUI. Here they run in a session of
their own with every stream but the text's to /dev/null, and never through a shell."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

WAIT = 2.0  # seconds a tool may take (xclip forks and returns at once)


def tools() -> list[list[str]]:
    """The clipboard tools to try, best first: none without a display (over SSH, say)."""
    if sys.platform == "darwin":
        found = [["pbcopy"]]
    elif sys.platform[:3] == "win":
        return []  # clip.exe wants UTF-16 and no trailing newline handling: OSC 52 only
    else:
        found = []
        if os.environ.get("WAYLAND_DISPLAY"):
            found.append(["wl-copy"])
        if os.environ.get("DISPLAY"):
            found += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    return [argv for argv in found if shutil.which(argv[0])]


def system_copy(text: str) -> str | None:
    """Put `text` on the desktop's clipboard; the tool that took it, or None when there is no
    tool or every one failed."""
    for argv in tools():
        try:
            done = subprocess.run(argv, input=text.encode("utf-8"), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True, timeout=WAIT)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return argv[0]
    return None
