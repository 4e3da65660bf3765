"""`python -m catalog` and the `catalog` command (pyproject's entry point).

Ctrl-C while Python is still loading the command (a second or more on a busy machine) ends
as it does later: one line and exit status 130, never a traceback. It is held until the
imports are done: raised inside an import it can surface as another error (Python 3.11 wraps
it in a RuntimeError when it lands in a class's `__set_name__`) or reach click's "Aborted!".

Standard output that cannot be written (a full disk, a closed pipe) ends the program as
catalog/cli/stdout.py says: one line, or quietly for `catalog ... | head`."""

import signal
import sys


def run() -> None:
    held = []
    # Only Python's own Ctrl-C handling is replaced: a SIGINT the caller ignores stays ignored.
    holding = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if holding:
        signal.signal(signal.SIGINT, lambda *_: held.append(True))
    try:
        try:
            from catalog.cli import main, stdout
            import catalog.errors  # noqa: F401 - what the command group loads first
        finally:
            if holding:
                signal.signal(signal.SIGINT, signal.default_int_handler)
        if held:
            raise KeyboardInterrupt
        _guarded(main, stdout)
    except KeyboardInterrupt:
        sys.stderr.write("catalog: interrupted\n")
        sys.exit(130)


def _guarded(main, stdout) -> None:
    stdout.guard()
    try:
        try:
            main()
        except SystemExit:
            stdout.flush()  # what is still buffered fails here, where it can be reported
            raise
    except stdout.StdoutFailed as exc:
        stdout.failed(exc)


if __name__ == "__main__":
    run()
