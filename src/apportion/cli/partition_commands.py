"""Command: partition — the multilevel k-way vertex partitioner with heterogeneous block targets.

`apportion partition GRAPH -k K [--imbalance E] [--targets 4,2,1,1] [--preset fast|default|strong] [--seed S]
[--threads T] [--device cpu|cuda|auto] [-o [FILE.part]] [reading options] [--json]`. The partition file is METIS's `.part` format
(line i = block of vertex i, 0-based); a bare `-o` writes gpmetis's GRAPH.part.K next to the graph, `-o -`
writes standard output (the report then goes to stderr). The report is a table, or one JSON object with
`--json`. Graph-reading time is excluded from `time_s`.
"""

from __future__ import annotations

import argparse

from apportion.cli.common import (
    add_command,
    add_graph_input,
    check_outputs,
    default_partition_path,
    emit_json,
    load_graph_args,
    parse_number_list,
    print_table,
)
from apportion.checks import check_imbalance, check_k, check_seed, check_shares, check_threads, integer
from apportion.partitioning.vertex.options import PRESETS

# `-o` given without a file name: gpmetis's GRAPH.part.K
_GPMETIS_NAME = object()


def register(subparsers) -> None:
    """Add the `partition` command."""
    p = add_command(subparsers, "partition", run_partition, help="partition a graph's vertices into k blocks",
                    description="Divide the vertices of GRAPH into K blocks whose weights follow the targets "
                                "(equal by default) within the imbalance, with a small edge cut (multilevel: "
                                "coarsen, recursive bisection, refine with rebalancing at every level).")
    add_graph_input(p)
    p.add_argument("-k", "--k", type=int, required=True, metavar="K", help="number of blocks")
    p.add_argument("--imbalance", type=float, default=0.03, metavar="E",
                   help="allowed imbalance epsilon: block b weighs at most (1+E)·ceil(target_b·W) (default 0.03)")
    p.add_argument("--targets", default=None, metavar="T1,T2,…",
                   help="relative block sizes (e.g. device speeds) 4,2,1,1 or VALUExCOUNT runs like 2x3,1x5; "
                        "K entries (default: equal)")
    p.add_argument("--preset", choices=PRESETS.names(), default="default",
                   help="speed/quality trade-off, each slower and better than the one before (default: default)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("--threads", type=int, default=None, metavar="T", help="worker threads (default: all cores)")
    p.add_argument("--device", choices=("cpu", "cuda", "auto"), default="cpu",
                   help="where coarsening and refinement run: cpu (default), cuda (a GPU; the coarsest graph is "
                        "partitioned on the CPU; one vertex weight per vertex), auto (the GPU for large graphs "
                        "when one exists); see docs/gpu.md")
    p.add_argument("-o", "--output", nargs="?", const=_GPMETIS_NAME, default=None, metavar="FILE.part",
                   help="write the partition (one block id per line, METIS .part format); without FILE: "
                        "GRAPH.part.K next to the graph, like gpmetis (put a bare -o after GRAPH); - : stdout")


def run_partition(args: argparse.Namespace) -> int:
    from apportion.graph.io.partfile import write_partition
    from apportion.partitioning.vertex.multilevel import partition

    # every argument is checked before the graph is read, so a mistake costs no reading time
    integer(args.k, "--k", low=1)
    imbalance = check_imbalance(args.imbalance, name="--imbalance")
    seed = check_seed(args.seed, name="--seed")
    threads = check_threads(args.threads, name="--threads")
    targets = None
    if args.targets is not None:
        targets = parse_number_list(args.targets, "--targets")
        check_shares(targets, args.k, name="--targets", k_name="--k")
    if args.output is _GPMETIS_NAME:
        args.output = default_partition_path(args.graph, args.k)
    check_outputs([args.output], [args.graph])
    graph = load_graph_args(args)
    check_k(args.k, graph.n, name="--k")
    result = partition(graph, args.k, targets=targets, imbalance=imbalance, seed=seed,
                       preset=args.preset, threads=threads, device=args.device)
    if args.output:
        write_partition(args.output, result.assignment)
    report = result.to_dict()
    report["graph"] = str(args.graph)
    report["output"] = args.output
    if args.json:
        emit_json(report)
        return 0
    rows = [("graph", str(args.graph)), ("vertices", result.n), ("k", result.k), ("preset", result.preset),
            ("device", result.device),
            ("cut", result.cut), ("imbalance", result.imbalance), ("allowed imbalance", result.epsilon),
            ("block weights", report["block_weights"]), ("targets", result.targets),
            ("levels", result.levels), ("time (s)", report["time_s"])]
    rows += [(f"  {name} (s)", seconds) for name, seconds in result.times.items() if name != "total"]
    if args.output:
        rows.append(("written", args.output))
    print_table("partition", rows)
    return 0
