"""`apportion demo`: a tour of what apportion does, with real figures, in well under a minute."""

from __future__ import annotations

import argparse

from apportion.cli.common import add_command


def register(subparsers) -> None:
    parser = add_command(subparsers, "demo", _run, json_output=False,
                         help="show what apportion does on the real graphs shipped with it and generated ones")
    parser.add_argument("-o", "--output", default="demo-output", help="folder for pictures (default: demo-output)")
    parser.add_argument("--only", default=None, help="run only the sections whose names contain this text (several: comma-separated, e.g. grid,mst)")

    compile_parser = add_command(
        subparsers, "compile", _compile,
        help="compile and cache apportion's Numba kernels now (the first run's cost; make demo does it)")
    compile_parser.add_argument("--workers", type=int, default=None,
                                help="parallel compiling processes (default: one per core, at most 4)")
    compile_parser.add_argument("--force", action="store_true", help="compile even when the cache has the kernels")


def _compile(args: argparse.Namespace) -> int:
    import json

    from apportion.demo import compile_kernels
    from apportion.errors import InputError

    if args.workers is not None and args.workers < 1:
        raise InputError(f"--workers must be at least 1, got {args.workers}")
    result = compile_kernels(args.workers, force=args.force)
    if args.json:
        print(json.dumps(result))
    elif not args.quiet:
        print(f"kernels compiled in {result['seconds']:.1f} s with {result['workers']} processes"
              if result["compiled"] else "kernels already compiled (use --force to compile again)")
    return 0


def _run(args: argparse.Namespace) -> int:
    from apportion.demo import run_demo

    return run_demo(args.output, only=args.only)
