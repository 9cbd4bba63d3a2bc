"""Commands: edge-partition, spmv (issue: edge partitioning, seed 001)."""

from __future__ import annotations

import argparse

from apportion.checks import check_imbalance, check_k, check_seed
from apportion.cli.common import add_command, add_graph_input, check_outputs, emit_json, load_graph_args, print_table
from apportion.errors import InputError
from apportion.partitioning.vertex.options import PRESETS
from apportion.ui import progress


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _method_choices() -> tuple[str, ...]:
    from apportion.partitioning.edge.options import METHODS

    return METHODS


def register(subparsers) -> None:
    """Add `edge-partition` and `spmv`."""
    methods = _method_choices()
    p = add_command(subparsers, "edge-partition", _edge_partition,
                    help="partition the edges of a graph into k balanced parts with few vertex copies")
    add_graph_input(p, help="graph file (.graph, .mtx, edge list, .npz; compressed or - too; dataset:NAME); with "
                            "--from-matrix an .mtx matrix")
    p.add_argument("-k", "--parts", dest="k", type=_positive_int, required=True, help="number of parts")
    p.add_argument("--method", default="spac", choices=methods, help="algorithm (default spac)")
    p.add_argument("--imbalance", type=float, default=0.0,
                   help="allowed edge imbalance ε ≥ 0 (default 0: every part gets ⌊m/k⌋ or ⌈m/k⌉ edges)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--from-matrix", action="store_true",
                   help="read GRAPH as a Matrix Market matrix and partition its bipartite row/column graph "
                        "(same as --format mtx --bipartite, with value warnings silenced)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the part of every edge, one per line, in canonical edge order (- : stdout)")
    _add_method_options(p)
    p = add_command(subparsers, "spmv", _spmv,
                    help="run y = A·x part by part over an edge partition and compare loads and time")
    p.add_argument("matrix", help="Matrix Market file (.mtx/.mm, gzip/bzip2/xz data read whatever the name), "
                                  "or a graph input (a graph file, dataset:NAME): its adjacency matrix")
    p.add_argument("--parts", "-k", dest="k", type=_positive_int, required=True, help="number of parts")
    p.add_argument("--method", default="spac", choices=methods, help="edge-partitioning algorithm")
    p.add_argument("--imbalance", type=float, default=0.0, help="allowed edge imbalance (default 0)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--repeats", type=_positive_int, default=5, help="timing repetitions, best kept (default 5)")
    _add_method_options(p)


def _add_method_options(p) -> None:
    p.add_argument("--refine", choices=("auto", "on", "off"), default="auto",
                   help="group-move refinement after the method (auto: on for spac and ne, off otherwise)")
    p.add_argument("--vertex-preset", choices=PRESETS.names(), default=None,
                   help="preset of the vertex partitioner inside spac / wvp-* (default: default)")
    p.add_argument("--run-cap", type=_positive_int, default=None, metavar="C",
                   help="spac: partition Ψ pre-clustered into runs of at most C consecutive clones "
                        "(default 32; 1 = the full Ψ of the paper)")


def _method_options(args) -> dict:
    options = {}
    if args.refine != "auto":
        options["refine"] = args.refine == "on"
    if args.vertex_preset is not None:
        if args.method not in ("spac", "wvp-random", "wvp-greedy"):
            raise InputError(f"--vertex-preset applies to spac, wvp-random and wvp-greedy, not {args.method}")
        options["vertex_preset"] = args.vertex_preset
    if args.run_cap is not None:
        if args.method != "spac":
            raise InputError(f"--run-cap applies to spac, not {args.method}")
        options["run_cap"] = args.run_cap
    return options


def _edge_partition(args) -> int:
    from apportion.partitioning.edge.api import partition_edges

    check_outputs([args.output], [args.graph])
    imbalance = check_imbalance(args.imbalance, name="--imbalance")
    seed = check_seed(args.seed, name="--seed")
    options = _method_options(args)
    if args.from_matrix:
        import warnings

        if args.format not in (None, "mtx"):
            raise InputError(f"--from-matrix reads a Matrix Market file, not --format {args.format}")
        args.format, args.bipartite = "mtx", True
        with warnings.catch_warnings():   # values do not matter here, only which entries are nonzero
            warnings.simplefilter("ignore")
            graph = load_graph_args(args)
    else:
        graph = load_graph_args(args)
    check_k(args.k, max(graph.m, 1), what="edges", name="-k", count=graph.m)
    with progress(f"{args.method}: {graph.m:,} edges into {args.k} parts"):
        result = partition_edges(graph, args.k, method=args.method, imbalance=imbalance, seed=seed, **options)
    if args.output:
        from apportion._atomic import atomic_output

        with atomic_output(args.output, "w") as handle:
            handle.write("\n".join(map(str, result.assignment.tolist())))
            if result.m:
                handle.write("\n")
    summary = result.to_dict()
    if args.json:
        summary.update({"graph": args.graph, "n": graph.n, "m": graph.m})
        emit_json(summary)
    else:
        print_table(f"edge partition of {args.graph} ({args.method}, k = {args.k})", [
            ("vertices", graph.n), ("edges", graph.m), ("vertex copies", result.vertex_copies),
            ("replication factor", result.replication_factor), ("edge imbalance", result.edge_imbalance),
            ("edges per part", result.edges_per_part), ("time (s)", result.time_s),
        ])
    return 0


def _spmv(args) -> int:
    from apportion.apps.spmv import spmv

    imbalance = check_imbalance(args.imbalance, name="--imbalance")
    seed = check_seed(args.seed, name="--seed")
    with progress(f"spmv over {args.k} parts ({args.method})"):
        report = spmv(args.matrix, args.k, method=args.method, imbalance=imbalance, seed=seed,
                      repeats=args.repeats, **_method_options(args))
    summary = report.to_dict()
    if args.json:
        summary["matrix"] = args.matrix
        emit_json(summary)
    else:
        print_table(f"SpMV of {args.matrix} over {args.k} parts ({args.method})", [
            ("rows × cols", f"{report.rows:,} × {report.cols:,}"), ("nonzeros", report.nonzeros),
            ("loads: max per part", report.max_loads), ("loads: total", report.total_loads),
            ("unpartitioned loads: max / total",
             f"{report.unpartitioned_max_loads:,} / {report.unpartitioned_total_loads:,}"),
            ("time partitioned (s)", report.time_partitioned_s),
            ("time unpartitioned order (s)", report.time_unpartitioned_s),
            ("time SciPy CSR (s)", report.time_scipy_s),
            ("max |y − y_scipy|", report.max_abs_error),
        ])
    return 0
