"""`apportion demo`: a tour of what apportion does, with real figures, in well under a minute."""

from __future__ import annotations

import argparse

from apportion.cli.common import add_command


def register(subparsers) -> None:
    parser = add_command(subparsers, "demo", _run, json_output=False,
                         help="show what apportion does on the shared graphs and generated ones")
    parser.add_argument("-o", "--output", default="demo-output", help="folder for pictures (default: demo-output)")
    parser.add_argument("--only", default=None, help="run only the sections whose names contain this text (several: comma-separated, e.g. grid,mst)")


def _run(args: argparse.Namespace) -> int:
    from apportion.demo import run_demo

    return run_demo(args.output, only=args.only)
