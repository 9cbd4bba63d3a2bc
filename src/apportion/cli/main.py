"""Entry point of the `apportion` command.

Every command group lives in its own module with a `register(subparsers)` function that adds its commands;
each command's handler takes the parsed arguments and returns an exit status. This module owns the exit-code
contract: 0 success, 2 bad input (`InputError`, argparse errors, a missing file; also the system's refusals
a user can act on: other `OSError`s, `MemoryError`) with one line on stderr and no traceback, 1 internal error, 130 interrupted (Ctrl-C, at any moment: one line `apportion: interrupted`).
Set APPORTION_DEBUG=1 to see tracebacks.

Ctrl-C is handled from this module's first lines on, before the heavy imports, and the same way at every
moment: the SIGINT handler writes the line, removes the output files being written (outputs are written to a
temporary file and renamed, `_atomic.py`), stops the child processes the command started (`_children.py`), and
ends the process. It never raises KeyboardInterrupt into the
running code: an exception injected at an arbitrary point can leave a lock held (Numba's compiler lock, which
a pool thread then waits for forever), come out of a compiled call as a SystemError, or escape a native
callback of LLVM and crash the process. When `main` is called from a thread other than the main one, the
caller's handling stays; an error caused by a KeyboardInterrupt is then still reported as the interrupt.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings


def _on_sigint(signum, frame) -> None:
    """Ctrl-C: one line, no partial outputs, exit 130 now (see the module docstring for why nothing unwinds)."""
    message = b"apportion: interrupted\n"
    try:
        if os.isatty(2):  # a progress bar may be on the line and the cursor hidden: clear and show it
            message = b"\r\x1b[2K\x1b[?25h" + message
    except OSError:
        pass
    try:
        os.write(2, message)
        _atomic = sys.modules.get("apportion._atomic")  # imported only by commands that write files
        if _atomic is not None:
            _atomic.remove_unfinished()
        _children = sys.modules.get("apportion._children")  # imported only by commands that start processes
        if _children is not None:
            _children.terminate_all()
    finally:
        os._exit(130)


def _install_sigint_handler():
    """Install the handler; returns the previous one (None when not in the main thread, which keeps its own)."""
    try:
        return signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:  # signal handlers can only be set in the main thread
        return None


if __name__ == "__main__":  # `python -m apportion.cli.main`: before the imports below, which take a while
    _install_sigint_handler()

import argparse  # noqa: E402 - after the handler on purpose
import atexit  # noqa: E402
import importlib  # noqa: E402
from typing import Any, Callable  # noqa: E402

from apportion import __version__  # noqa: E402
from apportion.errors import InputError, UnavailableError  # noqa: E402

COMMAND_MODULES = (
    "apportion.cli.graph_commands",      # generate, info, convert, evaluate
    "apportion.cli.partition_commands",  # partition
    "apportion.cli.mst_command",         # mst
    "apportion.cli.run_command",         # run (the asynchronous multi-device graph runtime)
    "apportion.cli.edge_commands",       # edge-partition, spmv
    "apportion.cli.schedule_commands",   # schedule
    "apportion.cli.threshold_command",   # threshold (seed 004: work split by sampling)
    "apportion.cli.grid_commands",       # grid, perfmodel, stencil
    "apportion.cli.demo_command",        # demo, compile
    "apportion.cli.datasets_command",    # datasets
)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) instead of usage dumps."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="apportion",
        description="Divide work among heterogeneous processors so that they finish together and "
                    "communicate little, then run it.",
    )
    parser.add_argument("--version", action="version", version=f"apportion {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """warnings.showwarning for the command line: `apportion: warning: …`, one line, no source path."""
    lines = str(message).strip().splitlines()
    sys.stderr.write(f"apportion: warning: {lines[0] if lines else category.__name__}\n")


def main(argv: list[str] | None = None) -> int:
    """Run the command line `argv` (default sys.argv[1:]); returns the exit status. While it runs, SIGINT and
    the display of warnings are the command line's, and a Ctrl-C ends the process with status 130. Both are
    restored on return when `argv` is given (a caller running commands in its own process); as the process's
    entry point (`argv` None) the handler stays until the interpreter exits."""
    previous = _install_sigint_handler()
    previous_show = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        return _main(argv)
    finally:
        warnings.showwarning = previous_show
        if previous is not None and argv is not None:
            signal.signal(signal.SIGINT, previous)


def _caused_by_interrupt(error: BaseException) -> bool:
    """True when `error` is a KeyboardInterrupt or was raised while handling one (a KeyboardInterrupt inside a
    compiled call can surface as `SystemError: ... returned a result with an exception set`). Only reached
    where the caller's SIGINT handling applies (`main` called outside the main thread)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def _os_path(error: OSError) -> str:
    return str(error.filename) if error.filename else str(error)


#: The exit-code contract as one table: the first row whose exception class matches decides the line written
#: to stderr (after "apportion: "; None writes nothing) and the exit status. Specific classes come first.
ERRORS: tuple[tuple[type[BaseException], Callable[[Any], str | None], int], ...] = (
    (KeyboardInterrupt, lambda e: "interrupted", 130),
    (BrokenPipeError, lambda e: None, 0),  # the reader of stdout went away (`… | head`): not a failure
    (InputError, lambda e: f"error: {e}", 2),
    (UnavailableError, lambda e: f"error: {e}", 2),
    (FileNotFoundError, lambda e: f"error: {_os_path(e)}: no such file", 2),
    (IsADirectoryError, lambda e: f"error: {_os_path(e)}: is a directory", 2),
    (PermissionError, lambda e: f"error: {_os_path(e)}: permission denied", 2),
    # a file name too long, a full disk, a read-only file system: the user's path, the system's reason
    (OSError, lambda e: f"error: {_os_path(e)}: {e.strerror or e}" if e.filename else f"error: {e}", 2),
    (MemoryError, lambda e: "error: out of memory: the input needs more memory than this machine (or this "
                            "process's limit) has", 2),
    (Exception, lambda e: f"internal error: {type(e).__name__}: {e} (set APPORTION_DEBUG=1 for a traceback)", 1),
)


def report(error: BaseException) -> tuple[str | None, int]:
    """The stderr line (without the "apportion: " prefix) and exit status for `error`, by ERRORS; anything
    raised while an interrupt is pending counts as the interrupt."""
    if _caused_by_interrupt(error):
        return "interrupted", 130
    for kind, message, status in ERRORS:
        if isinstance(error, kind):
            return message(error), status
    raise error  # a BaseException outside the table (SystemExit from argparse): not ours to report


def _main(argv: list[str] | None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if getattr(args, "handler", None) is None:
            parser.print_help()
            return 2
        from apportion import ui

        ui.set_quiet(getattr(args, "quiet", False) or getattr(args, "json", False))
        status = args.handler(args)
        return int(status or 0)
    except (KeyboardInterrupt, Exception) as error:  # noqa: BLE001 - the contract: every failure, one line
        message, status = report(error)
        if status in (1, 2) and os.environ.get("APPORTION_DEBUG"):
            raise
        if message is not None:
            sys.stderr.write(f"apportion: {message}\n")
        return status


def run() -> None:
    """The process's entry point (the `apportion` script and `python -m apportion.cli.main`): `main()`, then
    the exit functions (atexit: Ray's shutdown) and the end of the process without the interpreter's teardown,
    during which SIGINT is back to its default action: so Ctrl-C is exit 130 with its line up to the end."""
    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader went away (`| head`): nothing more to deliver
            pass
    atexit._run_exitfuncs()
    os._exit(status)


if __name__ == "__main__":
    run()
