"""Standard output that fails as one line: a full disk (`catalog list > /dev/full`), a closed
descriptor (`catalog list >&-`) or any other write error ends the command with one line on
stderr and status 1, never a traceback. A reader that went away (`catalog list | head -1`)
ends it quietly with status 141, as a program killed by SIGPIPE does (`cat`, `grep`).

Only the real program guards its output (catalog/__main__.py); tests that capture output
in-process see plain streams.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import NoReturn

BROKEN_PIPE_STATUS = 128 + 13  # 128 + SIGPIPE: what a shell reports for `cat` in the same place


class StdoutFailed(Exception):
    """Writing to standard output failed (not an OSError, so that nothing on the way up takes
    it for a file's error)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))
        self.errno = error.errno


class _Guarded:
    """sys.stdout, whose write errors are StdoutFailed; everything else is the stream's."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise StdoutFailed(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise StdoutFailed(exc) from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


class _Closed:
    """Standard output when the program started without one (`>&-`): any write fails."""

    encoding = "utf-8"
    errors = "strict"

    def write(self, text):
        raise StdoutFailed(OSError(errno.EBADF, "it is closed"))

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def guard() -> None:
    """Route standard output's write errors to StdoutFailed."""
    sys.stdout = _Guarded(sys.stdout) if sys.stdout is not None else _Closed()


def flush() -> None:
    """Write out what is still buffered, while a failure can still be reported."""
    sys.stdout.flush()


def failed(exc: StdoutFailed) -> NoReturn:
    """End the program after standard output failed: one line (none for a closed pipe)."""
    # Whatever is still buffered would fail again at exit ("Exception ignored ..."): from
    # here on standard output goes nowhere.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass
    if exc.errno == errno.EPIPE:
        sys.exit(BROKEN_PIPE_STATUS)
    sys.stderr.write(f"catalog: cannot write to standard output: {exc}\n")
    sys.exit(1)
