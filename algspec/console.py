"""The `algspec` console script: start-up that a Ctrl-C cannot turn into a traceback.

The command line's modules (typer, pydantic, the IR) take most of a second to
import; a Ctrl-C then would print Python's traceback. Here the import itself
runs under the same rule as every command: one `interrupted` line, exit 130.
"""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from algspec.cli import main as run
    except KeyboardInterrupt:
        print("interrupted: algspec was starting; nothing was done", file=sys.stderr)
        sys.exit(130)
    run()


if __name__ == "__main__":
    main()
