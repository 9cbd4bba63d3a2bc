"""Entry point of the `apportion` command.

Every command group lives in its own module with a `register(subparsers)` function that adds its commands;
each command's handler takes the parsed arguments and returns an exit status. This module owns the exit-code
contract: 0 success, 2 bad input (`InputError`, argparse errors, a missing file) with one line on stderr and no
traceback, 1 internal error. Set APPORTION_DEBUG=1 to see tracebacks.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from apportion import __version__
from apportion.errors import InputError, UnavailableError

COMMAND_MODULES = (
    "apportion.cli.graph_commands",      # generate, info, convert, evaluate
    "apportion.cli.partition_commands",  # partition
    "apportion.cli.mst_command",         # mst
    "apportion.cli.edge_commands",       # edge-partition, spmv
    "apportion.cli.schedule_commands",   # schedule
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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    from apportion import ui

    ui.set_quiet(getattr(args, "quiet", False) or getattr(args, "json", False))
    debug = bool(os.environ.get("APPORTION_DEBUG"))
    try:
        status = args.handler(args)
        return int(status or 0)
    except InputError as error:
        if debug:
            raise
        sys.stderr.write(f"apportion: error: {error}\n")
        return 2
    except FileNotFoundError as error:
        if debug:
            raise
        name = error.filename if error.filename else str(error)
        sys.stderr.write(f"apportion: error: {name}: no such file\n")
        return 2
    except IsADirectoryError as error:
        if debug:
            raise
        sys.stderr.write(f"apportion: error: {error.filename}: is a directory\n")
        return 2
    except PermissionError as error:
        if debug:
            raise
        sys.stderr.write(f"apportion: error: {error.filename}: permission denied\n")
        return 2
    except UnavailableError as error:
        if debug:
            raise
        sys.stderr.write(f"apportion: error: {error}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("apportion: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # noqa: BLE001 - the contract: internal failures exit 1 with one line
        if debug:
            raise
        sys.stderr.write(f"apportion: internal error: {type(error).__name__}: {error} "
                         "(set APPORTION_DEBUG=1 for a traceback)\n")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
