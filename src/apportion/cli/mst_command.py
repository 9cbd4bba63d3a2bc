"""Command: mst — minimum spanning forest by parallel Borůvka (seed 000, section 5.4)."""

from __future__ import annotations

import argparse
from pathlib import Path

from apportion.checks import check_threads
from apportion.cli.common import add_command, add_graph_input, check_outputs, emit_json, load_graph_args, print_table


def register(subparsers) -> None:
    """Add the `mst` command."""
    parser = add_command(
        subparsers, "mst", run_mst,
        help="minimum spanning forest (parallel Borůvka)",
        description="Compute a minimum spanning forest of GRAPH by parallel Borůvka: one tree per connected "
                    "component, edge weights from the file (1 each when it has none).",
    )
    add_graph_input(parser)
    parser.add_argument("-o", "--output", metavar="EDGES.txt",
                        help="write the forest's edges, one 'u v w' line each (0-based ids; - : stdout)")
    parser.add_argument("--threads", type=int, default=None, metavar="T",
                        help="number of Numba threads (default: all)")


def run_mst(args: argparse.Namespace) -> int:
    """Load the graph, compute the forest, write the edges (atomically) and report."""
    from apportion.apps.mst import mst

    threads = check_threads(args.threads, name="--threads")
    check_outputs([args.output], [args.graph])
    graph = load_graph_args(args)
    forest = mst(graph, threads=threads)
    if args.output:
        write_forest_edges(args.output, forest)
    summary = forest.to_dict()
    if args.json:
        emit_json({"graph": args.graph, "m": graph.m, **summary})
    else:
        print_table(f"MST of {Path(args.graph).name}", [
            ("vertices", summary["n"]),
            ("graph edges", graph.m),
            ("forest edges", summary["edges"]),
            ("components", summary["components"]),
            ("total weight", summary["total_weight"]),
            ("Borůvka rounds", summary["rounds"]),
            ("time (s)", summary["time_s"]),
        ])
    return 0


def write_forest_edges(path: str, forest) -> None:
    """The forest as an edge list "u v w", one line per edge, written to a temporary file and renamed."""
    import numpy as np

    from apportion._atomic import atomic_output

    rows = np.column_stack((forest.u, forest.v, forest.weights))
    with atomic_output(path, "w") as handle:
        np.savetxt(handle, rows, fmt="%d")
