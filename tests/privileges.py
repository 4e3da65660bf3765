"""Running the CLI as a user for whom file permissions hold.

As root (this machine, CI containers) permission bits are ignored: the child process drops
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER from its bounding set before exec, so a
read-only file is read-only for it too. As another user nothing needs dropping.
"""

from __future__ import annotations

import ctypes
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def without_override() -> None:
    """In the child before exec: as root, give up bypassing file permissions."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for capability in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
            if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def unprivileged(*args: str) -> subprocess.CompletedProcess:
    """`catalog ARGS` in a subprocess that file permissions apply to."""
    return subprocess.run([sys.executable, "-m", "catalog", *args], capture_output=True, text=True,
                          preexec_fn=without_override, cwd=ROOT, env={**os.environ, "CATALOG_DB": ""})


class Permissions:
    """Take permissions away from paths; `restore` gives them back (so tmp_path can go)."""

    def __init__(self, tmp_path: Path):
        self.changed: list[tuple[Path, int]] = []
        probe = tmp_path / ".probe"
        probe.write_text("x")
        self.read_only(probe)
        if not sys.platform.startswith("linux") or subprocess.run(
                ["sh", "-c", f"echo y >> '{probe}'"], preexec_fn=without_override,
                capture_output=True).returncode == 0:
            self.restore()
            pytest.skip("cannot make a file read-only for a child process here")

    def _set(self, path: Path, mode: int) -> Path:
        self.changed.append((path, path.stat().st_mode))
        path.chmod(mode)
        return path

    def read_only(self, path: Path) -> Path:
        return self._set(path, path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))

    def unreadable(self, path: Path) -> Path:
        return self._set(path, 0)

    def restore(self) -> None:
        for path, mode in reversed(self.changed):
            path.chmod(mode)
        self.changed.clear()


@pytest.fixture
def permissions(tmp_path):
    taken = Permissions(tmp_path)
    yield taken
    taken.restore()
