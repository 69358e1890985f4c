"""The `algspec` console script: start-up that a Ctrl-C cannot turn into a traceback.

The command line's modules (typer, pydantic, the IR) take most of a second to
import. From this module's first line until the command starts, a Ctrl-C
prints one `interrupted` line and exits with 130 at once (`os._exit`: no
exception unwinds through an import, so no traceback can be printed); the
command then installs its own handler, which says what was left.

The limit: a Ctrl-C that arrives before this module runs (while Python itself
starts and imports `site`, or imports the `algspec` package, which imports only
`typing` and the version) is Python's to handle, and prints its traceback (or
`Fatal Python error: init_import_site`). No code of ours runs that early.
"""

import os
import signal
import sys


def _stopped_while_starting(signum: int, frame: object) -> None:
    """Ctrl-C before the command started: nothing was done; say so and exit 130."""
    os.write(2, b"interrupted: algspec was starting; nothing was done\n")
    os._exit(130)


def _is_console_script() -> bool:
    """Whether this process is the `algspec` command (not a program importing us)."""
    main_file = getattr(sys.modules.get("__main__"), "__file__", None) or ""
    name = os.path.basename(main_file).removesuffix(".exe").removesuffix("-script.py")
    return name == "algspec" or __name__ == "__main__"


if _is_console_script():
    signal.signal(signal.SIGINT, _stopped_while_starting)


def main() -> None:
    try:
        from algspec.cli import main as run
    except KeyboardInterrupt:  # a handler replaced ours meanwhile
        print("interrupted: algspec was starting; nothing was done", file=sys.stderr)
        sys.exit(130)
    run()  # the command's own handler (`cli_args.recording_sigint`) replaces ours


if __name__ == "__main__":
    main()
