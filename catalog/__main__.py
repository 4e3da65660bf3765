"""`python -m catalog` and the `catalog` command (pyproject's entry point).

Ctrl-C while Python is still loading the command (a second or more on a busy machine) ends
as it does later: one line and exit status 130, never a traceback."""

import sys


def run() -> None:
    try:
        from catalog.cli import main

        main()
    except KeyboardInterrupt:
        sys.stderr.write("catalog: interrupted\n")
        sys.exit(130)


if __name__ == "__main__":
    run()
