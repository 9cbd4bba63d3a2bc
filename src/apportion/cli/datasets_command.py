"""`apportion datasets`: the real graphs shipped with apportion, which every GRAPH argument takes as dataset:NAME."""

from __future__ import annotations

import argparse

from apportion.cli.common import add_command, emit_json


def register(subparsers) -> None:
    add_command(subparsers, "datasets", _run,
                help="list the real graphs shipped with apportion (use one as GRAPH: dataset:NAME)")


def _run(args: argparse.Namespace) -> int:
    """A table (or, with --json, {"datasets": [record, ...]}) of the shipped graphs, smallest first."""
    from apportion import datasets

    records = [datasets.info(name) for name in datasets.names()]
    if args.json:
        emit_json({"datasets": [{**record.to_dict(), "argument": datasets.PREFIX + record.name}
                                for record in records]})
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="graphs shipped with apportion (use as GRAPH: dataset:NAME; sources and licences: "
                        "docs/graph.md)", title_justify="left")
    for column in ("name", "vertices", "edges", "kind", "weights", "licence"):
        table.add_column(column, justify="right" if column in ("vertices", "edges") else "left",
                         no_wrap=column in ("name", "vertices", "edges", "licence"))
    for record in records:
        table.add_row(record.name, f"{record.n:,}", f"{record.m:,}", record.kind,
                      "-" if record.weights == "none" else record.weights, record.licence.split(" ")[0])
    Console().print(table)
    return 0
