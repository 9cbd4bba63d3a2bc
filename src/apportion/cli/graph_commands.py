"""Commands: generate, info, convert, evaluate — making, inspecting, converting graphs and scoring partitions.

Every command reads graphs through `cli.common.load_graph` (format by extension, compressed data and `-` for
standard input) and writes through `write_graph` (atomic; `-` is standard output, the report then goes to
stderr). Warnings a reader raises (dropped self-loops, ignored values) are printed after the
result as `apportion: warning: …` lines on stderr; bad input is an InputError (exit 2, one line).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
import warnings
from typing import Iterator

from apportion.checks import check_seed, check_shares, integer
from apportion.cli.common import (
    add_command,
    add_graph_input,
    check_outputs,
    emit_json,
    load_graph_args,
    parse_number_list,
    print_table,
)
from apportion.errors import InputError
from apportion.ui import progress

OUTPUT_FORMAT_HELP = "output format when the extension does not tell (default for - : metis)"


def register(subparsers) -> None:
    """Add generate, info, convert and evaluate."""
    from apportion.graph.generate import KINDS

    p = add_command(subparsers, "generate", run_generate, help="write a seeded synthetic graph",
                    description="Generate a synthetic graph (DIMACS10 / Graph500 definitions) and write it; "
                                "the output format follows the extension of FILE.")
    p.add_argument("kind", metavar="KIND", choices=KINDS, help="one of " + ", ".join(KINDS))
    p.add_argument("--n", type=int, default=None, metavar="N",
                   help="number of vertices (optional for grid2d/grid3d/rmat with --rows/--cols, --dims, --scale)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="output graph file (.gz/.bz2/.xz: compressed; - : standard output)")
    p.add_argument("--output-format", default=None, choices=("metis", "mtx", "edgelist", "npz"),
                   help=OUTPUT_FORMAT_HELP)
    kind_options = p.add_argument_group("kind options (each applies to some kinds only)")
    kind_options.add_argument("--order", choices=("random", "spatial"), default=None,
                              help="delaunay, rgg, road: vertex numbering (default random)")
    kind_options.add_argument("--radius", type=float, default=None, help="rgg: connection radius "
                              "(default 0.55·sqrt(ln n / n))")
    kind_options.add_argument("--rows", type=int, default=None, help="grid2d: rows")
    kind_options.add_argument("--cols", type=int, default=None, help="grid2d: columns")
    kind_options.add_argument("--dims", default=None, metavar="X,Y,Z", help="grid3d: lattice dimensions")
    kind_options.add_argument("--scale", type=int, default=None, help="rmat: n = 2^scale")
    kind_options.add_argument("--edge-factor", type=int, default=None, help="rmat: edges per vertex (default 16)")
    kind_options.add_argument("--no-permute", action="store_true", help="rmat: keep the raw Kronecker labels")
    kind_options.add_argument("--p", type=float, default=None, help="er: edge probability")
    kind_options.add_argument("--avg-degree", type=float, default=None, help="er: average degree (default 8)")
    kind_options.add_argument("--m-attach", type=int, default=None,
                              help="ba: edges per new vertex (default 4)")
    kind_options.add_argument("--extra", type=float, default=None,
                              help="road: fraction of the non-tree Delaunay edges kept (default 0.25)")

    p = add_command(subparsers, "info", run_info, help="summarise a graph file",
                    description="Read GRAPH and report vertices, edges, degree statistics, connected components "
                                "and weights.")
    add_graph_input(p)

    p = add_command(subparsers, "convert", run_convert, help="convert a graph file to another format",
                    description="Read IN and write OUT; both formats follow the file extensions. METIS and .npz "
                                "keep all weights; .mtx and edge lists keep edge weights only.")
    add_graph_input(p, dest="input", metavar="IN")
    p.add_argument("output", metavar="OUT",
                   help="output graph file (format by extension; .gz/.bz2/.xz: compressed; - : standard output)")
    p.add_argument("--output-format", default=None, choices=("metis", "mtx", "edgelist", "npz"),
                   help=OUTPUT_FORMAT_HELP)

    p = add_command(subparsers, "evaluate", run_evaluate, help="score a vertex partition file",
                    description="Metrics of the partition in PARTFILE (METIS .part format: line i holds the "
                                "0-based block of vertex i) on GRAPH: edge cut, block weights against targets, "
                                "imbalance, communication volume, boundary vertices, block connectivity.")
    add_graph_input(p)
    p.add_argument("partfile", metavar="PARTFILE", help="partition file, one block id per line (- : standard "
                                                        "input)")
    p.add_argument("--targets", default=None, metavar="T1,T2,…",
                   help="relative block sizes, e.g. 4,2,1,1 or 2x3,1x2 (default: equal); fixes k")
    p.add_argument("--k", type=int, default=None, help="number of blocks (default: len(targets) or max id + 1)")


@contextlib.contextmanager
def _reported_warnings() -> Iterator[None]:
    """Collect library warnings and print them as one-line notes after the command succeeds."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for item in caught:
        sys.stderr.write(f"apportion: warning: {str(item.message).splitlines()[0] if str(item.message) else ''}\n")


def _output_format(args: argparse.Namespace) -> str:
    """The format to write args.output in: --output-format, else its extension; METIS for standard output."""
    from apportion.graph.io import format_of

    if args.output_format is None and args.output == "-":
        return "metis"
    try:
        return format_of(args.output, args.output_format)
    except InputError as error:  # the reader's hint names --format, the input's option: name the output's
        raise InputError(str(error).replace("--format / format=", "--output-format")) from None


def _input_format(path: str, format: str | None) -> str:
    """The format name an input reports: "dataset" for dataset:NAME, else the file's format."""
    from apportion.datasets import is_argument
    from apportion.graph.io import format_of

    return "dataset" if is_argument(path) else format_of(path, format)


# ------------------------------------------------------------------------------------------------ generate
#: generator options the command exposes, and their flags (`generate` takes more from Python, e.g. delaunay's method)
_GENERATE_FLAGS = {"order": "--order", "radius": "--radius", "rows": "--rows", "cols": "--cols", "scale": "--scale",
                   "edge_factor": "--edge-factor", "p": "--p", "avg_degree": "--avg-degree",
                   "m_attach": "--m-attach", "extra": "--extra", "dims": "--dims", "permute": "--no-permute"}


def run_generate(args: argparse.Namespace) -> int:
    """Generate, write atomically, report n, m and the time taken."""
    from apportion.graph.generate import generate, options_of
    from apportion.graph.io import write_graph

    out_format = _output_format(args)  # an unknown extension or a missing folder fails before any work
    check_outputs([args.output])
    check_seed(args.seed, name="--seed")
    options = {}
    for key in ("order", "radius", "rows", "cols", "scale", "edge_factor", "p", "avg_degree", "m_attach", "extra"):
        value = getattr(args, key)
        if value is not None:
            options[key] = value
    if args.dims is not None:
        try:
            options["dims"] = tuple(int(x) for x in args.dims.split(","))
        except ValueError:
            raise InputError(f"--dims: expected X,Y,Z integers, got {args.dims!r}") from None
    if args.no_permute:
        options["permute"] = False
    allowed = set(options_of(args.kind))
    unknown = sorted(k for k in options if k not in allowed)
    if unknown:
        flags = ", ".join(_GENERATE_FLAGS[k] for k in unknown)
        valid = sorted(flag for key, flag in _GENERATE_FLAGS.items() if key in allowed)  # the command's own
        raise InputError(f"{args.kind}: option(s) {flags} do not apply (valid: {', '.join(valid) or 'none'})")
    start = time.perf_counter()
    with progress(f"generating {args.kind}"):
        graph = generate(args.kind, args.n, seed=args.seed, **options)
    generated = time.perf_counter() - start
    with _reported_warnings(), progress(f"writing {args.output}"):
        write_graph(graph, args.output, format=out_format)
    total = time.perf_counter() - start
    report = {"kind": args.kind, "seed": args.seed, "options": options, "output": args.output, "n": graph.n,
              "m": graph.m, "generate_seconds": generated, "seconds": total}
    if args.json:
        emit_json(report)
    else:
        print_table(f"generated {args.kind} → {args.output}", [
            ("vertices", graph.n), ("edges", graph.m), ("seed", args.seed),
            ("generate (s)", generated), ("generate + write (s)", total)])
    return 0


# ------------------------------------------------------------------------------------------------ info
def run_info(args: argparse.Namespace) -> int:
    """Read the graph and print its summary (table or JSON)."""
    from apportion.graph.summary import graph_summary

    with _reported_warnings():
        start = time.perf_counter()
        graph = load_graph_args(args)
        seconds = time.perf_counter() - start
    summary = graph_summary(graph)
    summary = {"file": args.graph, "format": _input_format(args.graph, args.format), **summary,
               "read_seconds": seconds}
    if args.json:
        emit_json(summary)
        return 0
    print_table(f"{args.graph} ({summary['format']})", [
        ("vertices (n)", summary["n"]),
        ("edges (m)", summary["m"]),
        ("degree min / median / mean / max",
         f"{summary['min_degree']:,} / {summary['median_degree']:g} / {summary['mean_degree']:.2f} / "
         f"{summary['max_degree']:,}"),
        ("isolated vertices", summary["isolated_vertices"]),
        ("connected components", summary["components"]),
        ("largest component", summary["largest_component"]),
        ("vertex weights", f"{summary['ncon']} constraint(s), total {summary['total_vertex_weight']}"
         if summary["has_vertex_weights"] else "none"),
        ("edge weights", f"total {summary['total_edge_weight']:,}" if summary["has_edge_weights"] else "none"),
        ("read time (s)", seconds),
    ])
    return 0


# ------------------------------------------------------------------------------------------------ convert
def run_convert(args: argparse.Namespace) -> int:
    """Read IN, write OUT (atomically; nothing is written when reading fails)."""
    from apportion.graph.io import write_graph

    out_format = _output_format(args)
    in_format = _input_format(args.input, args.format)
    check_outputs([args.output], [args.input])
    with _reported_warnings():
        start = time.perf_counter()
        graph = load_graph_args(args, args.input)
        read_seconds = time.perf_counter() - start
        with progress(f"writing {args.output}"):
            write_graph(graph, args.output, format=out_format)
        seconds = time.perf_counter() - start
    report = {"input": args.input, "input_format": in_format, "output": args.output, "output_format": out_format,
              "n": graph.n, "m": graph.m, "read_seconds": read_seconds, "seconds": seconds}
    if args.json:
        emit_json(report)
    else:
        print_table(f"{args.input} ({in_format}) → {args.output} ({out_format})", [
            ("vertices", graph.n), ("edges", graph.m), ("read (s)", read_seconds), ("read + write (s)", seconds)])
    return 0


# ------------------------------------------------------------------------------------------------ evaluate
def run_evaluate(args: argparse.Namespace) -> int:
    """Score a METIS-style partition file against the graph (and optional targets)."""
    from apportion.graph.io.partfile import read_partition
    from apportion.graph.metrics import vertex_partition_metrics

    k = None if args.k is None else integer(args.k, "--k (the number of blocks)", low=1)
    if args.graph == "-" and args.partfile == "-":
        raise InputError("GRAPH and PARTFILE cannot both be standard input (-)")
    targets = None
    if args.targets is not None:
        targets = parse_number_list(args.targets, "--targets")
        check_shares(targets, k, name="--targets", allow_zero=True, k_name="--k")
    with _reported_warnings():
        graph = load_graph_args(args)
    assignment = read_partition(args.partfile, n=graph.n)
    if k is None and targets is not None:
        k = len(targets)
    if k is not None and assignment.size and int(assignment.max()) >= k:
        import numpy as np

        line = int(np.flatnonzero(assignment >= k)[0]) + 1
        raise InputError(f"block id {int(assignment[line - 1])} is outside 0..{k - 1} (k = {k})",
                         path=args.partfile, line=line)
    metrics = vertex_partition_metrics(graph, assignment, k=k, targets=targets)
    result = {"graph": args.graph, "partition": args.partfile, "n": graph.n, "m": graph.m, **metrics.to_dict()}
    if args.json:
        emit_json(result)
        return 0
    print_table(f"partition {args.partfile} of {args.graph}", [
        ("blocks (k)", metrics.k),
        ("edge cut", metrics.cut),
        ("imbalance", metrics.imbalance),
        ("block weights", metrics.block_weights.tolist()),
        ("target weights", [round(float(x), 1) for x in metrics.target_weights.ravel()]),
        ("communication volume", metrics.communication_volume),
        ("boundary vertices", metrics.boundary_vertices),
        ("block connectivity", metrics.block_connectivity.tolist()),
        ("empty blocks", metrics.empty_blocks),
    ])
    return 0
