"""Command: partition — the multilevel k-way vertex partitioner with heterogeneous block targets.

`apportion partition GRAPH -k K [--imbalance E] [--targets 4,2,1,1] [--preset fast|default|strong] [--seed S]
[--threads T] [-o FILE.part] [--json]`. The partition file is METIS's `.part` format (line i = block of vertex
i, 0-based); the report is a table, or one JSON object with `--json`. Graph-reading time is excluded from
`time_s`.
"""

from __future__ import annotations

import argparse

from apportion.cli.common import add_command, emit_json, load_graph, parse_number_list, print_table
from apportion.errors import InputError


def register(subparsers) -> None:
    """Add the `partition` command."""
    p = add_command(subparsers, "partition", run_partition, help="partition a graph's vertices into k blocks",
                    description="Divide the vertices of GRAPH into K blocks whose weights follow the targets "
                                "(equal by default) within the imbalance, with a small edge cut (multilevel: "
                                "coarsen, recursive bisection, refine with rebalancing at every level).")
    p.add_argument("graph", metavar="GRAPH", help="graph file (.graph/.metis, .mtx, edge list, .npz)")
    p.add_argument("-k", "--k", type=int, required=True, metavar="K", help="number of blocks")
    p.add_argument("--imbalance", type=float, default=0.03, metavar="E",
                   help="allowed imbalance epsilon: block b weighs at most (1+E)·ceil(target_b·W) (default 0.03)")
    p.add_argument("--targets", default=None, metavar="T1,T2,…",
                   help="relative block sizes (e.g. device speeds) 4,2,1,1 or VALUExCOUNT runs like 2x3,1x5; "
                        "K entries (default: equal)")
    p.add_argument("--preset", choices=("fast", "default", "strong"), default="default",
                   help="speed/quality trade-off (default: default)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("--threads", type=int, default=None, metavar="T", help="worker threads (default: all cores)")
    p.add_argument("-o", "--output", default=None, metavar="FILE.part",
                   help="write the partition (one block id per line, METIS .part format)")


def run_partition(args: argparse.Namespace) -> int:
    from apportion.graph.io.partfile import write_partition
    from apportion.partitioning.vertex.multilevel import partition

    targets = None
    if args.targets is not None:
        targets = parse_number_list(args.targets, "--targets")
    if args.threads is not None and args.threads < 1:
        raise InputError(f"--threads must be at least 1, got {args.threads}")
    graph = load_graph(args.graph)
    result = partition(graph, args.k, targets=targets, imbalance=args.imbalance, seed=args.seed,
                       preset=args.preset, threads=args.threads)
    if args.output:
        write_partition(args.output, result.assignment)
    report = result.to_dict()
    report["graph"] = str(args.graph)
    report["output"] = args.output
    if args.json:
        emit_json(report)
        return 0
    rows = [("graph", str(args.graph)), ("vertices", result.n), ("k", result.k), ("preset", result.preset),
            ("cut", result.cut), ("imbalance", result.imbalance), ("allowed imbalance", result.epsilon),
            ("block weights", report["block_weights"]), ("targets", result.targets),
            ("levels", result.levels), ("time (s)", report["time_s"])]
    rows += [(f"  {name} (s)", seconds) for name, seconds in result.times.items() if name != "total"]
    if args.output:
        rows.append(("written", args.output))
    print_table("partition", rows)
    return 0
