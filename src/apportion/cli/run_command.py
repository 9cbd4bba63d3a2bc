"""Command: run — a graph app on the asynchronous multi-device runtime (seed 003, Groute).

`apportion run {bfs,sssp,pagerank,cc,pbf} GRAPH [--source S] [--devices N | --platform P]
[--transport threads|ray] [--cluster ADDR] [--routing ring|direct] [--priority-delta auto|off|D]
[--placement partition|ranges|random] [--seed S] [--method topology|worklist] [--segment N] [--low L] [--high H]
[-o VALUES.txt] [--json] [--trace FILE.png] [reading options]`.

Every argument is checked before the graph is read; options that the chosen app does not take are refused
(one line, exit 2) rather than ignored. `-o` writes one value per line: per vertex for the graph apps, per kept
element for pbf, which filters the graph's edge weights (docs/cli.md, "Graph runtime").
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from apportion.checks import check_seed, integer
from apportion.cli.common import (add_command, add_graph_input, check_outputs, emit_json, load_graph_args,
                                  platform_argument, print_table)
from apportion.errors import InputError

APPS = ("bfs", "sssp", "pagerank", "cc", "pbf")
#: which app takes which app-specific option (the others refuse it)
_TAKES = {
    "source": ("bfs", "sssp"),
    "priority_delta": ("bfs", "sssp", "cc"),
    "routing": ("bfs", "sssp", "pagerank", "cc"),
    "placement": ("bfs", "sssp", "pagerank", "cc"),
    "method": ("cc",),
    "segment": ("cc", "pbf"),
    "low": ("pbf",),
    "high": ("pbf",),
}
#: apps whose answer is made of the edge weights: a matrix whose values cannot be weights is refused for them
#: instead of being read as its pattern (hop counts, or a filter over ones)
_WEIGHTED = {"sssp": "sssp reads the edge weights as lengths", "pbf": "pbf filters the edge weights"}
_FLAGS = {"source": "--source", "priority_delta": "--priority-delta", "routing": "--routing",
          "placement": "--placement", "method": "--method", "segment": "--segment", "low": "--low", "high": "--high"}


def register(subparsers) -> None:
    """Add the `run` command."""
    p = add_command(subparsers, "run", run_app,
                    help="run BFS, SSSP, PageRank, CC or PBF across several devices (asynchronous runtime)",
                    description="Run APP on GRAPH across several devices without bulk-synchronous barriers: "
                                "each device works through its own worklist and sends what it finds for other "
                                "devices' vertices as soon as a batch is done (Groute). pbf filters the graph's "
                                "edge weights (1 each without weights) by --low <= w < --high, segments going to "
                                "whichever device is free.")
    p.add_argument("app", choices=APPS, metavar="APP", help=f"one of {', '.join(APPS)}")
    add_graph_input(p)
    p.add_argument("--source", type=int, default=None, metavar="S", help="bfs, sssp: the start vertex (0-based)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--devices", type=int, default=None, metavar="N",
                       help="N one-thread CPU devices (default 2)")
    where.add_argument("--platform", default=None, metavar="FILE|auto|cuda",
                       help="the devices of a platform file (CPU, throttled, CUDA devices), 'auto' (this "
                            "machine's) or 'cuda' (its CUDA devices)")
    p.add_argument("--transport", choices=("threads", "ray"), default="threads",
                   help="threads in this process (default) or one Ray actor per device")
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="with --transport ray: the Ray cluster (default: RAY_ADDRESS, else a local one)")
    p.add_argument("--routing", choices=("ring", "direct"), default=None,
                   help="worklist apps: device i -> i + 1 (ring, default) or straight to the owner (direct)")
    p.add_argument("--priority-delta", default=None, metavar="auto|off|D",
                   help="bfs, sssp: soft priority's Δ (default auto); cc --method worklist: off (default) or D")
    p.add_argument("--placement", choices=("partition", "ranges", "random"), default=None,
                   help="worklist apps: which device owns which vertex (default partition)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the placement (default 0)")
    p.add_argument("--method", choices=("topology", "worklist"), default=None,
                   help="cc: edge segments by availability (topology, default) or label propagation (worklist)")
    p.add_argument("--segment", type=int, default=None, metavar="N",
                   help="cc --method topology: edges per segment (default 65536); pbf: weights per segment "
                        "(default 65536)")
    p.add_argument("--low", type=float, default=None, metavar="L", help="pbf: keep weights w >= L (default -inf)")
    p.add_argument("--high", type=float, default=None, metavar="H", help="pbf: keep weights w < H (default inf)")
    p.add_argument("-o", "--output", default=None, metavar="VALUES.txt",
                   help="write the values, one per line (per vertex; pbf: per kept weight); - : stdout")
    p.add_argument("--trace", default=None, metavar="FILE.png",
                   help="draw each device's timeline (busy, waiting, sending, failed); format by extension")


def _check_app_options(args: argparse.Namespace) -> None:
    """Refuse an option the app does not take, and a missing --source."""
    for option, apps in _TAKES.items():
        if getattr(args, option) is not None and args.app not in apps:
            raise InputError(f"{_FLAGS[option]} does not apply to {args.app} (it applies to {', '.join(apps)})")
    if args.app in _TAKES["source"] and args.source is None:
        raise InputError(f"{args.app} needs --source S (the start vertex)")
    if args.app == "pbf" and args.low is None and args.high is None:
        raise InputError("pbf needs --low L and/or --high H (it keeps the edge weights w with L <= w < H)")
    if args.app == "cc" and args.method != "worklist":
        for option in ("routing", "placement", "priority_delta"):
            if getattr(args, option) is not None:
                raise InputError(f"{_FLAGS[option]} applies to cc with --method worklist only")
    if args.app == "cc" and args.priority_delta == "auto":
        raise InputError("--priority-delta auto applies to bfs and sssp; cc takes off or a positive number")
    if args.app == "cc" and args.method == "worklist" and args.segment is not None:
        raise InputError("--segment applies to cc with --method topology (the default) only")
    if args.cluster is not None and args.transport != "ray":
        raise InputError("--cluster needs --transport ray")
    for bound in ("low", "high"):
        value = getattr(args, bound)
        if value is not None and math.isnan(value):
            raise InputError(f"--{bound} must be a number, not NaN")


def _priority_delta(text: str | None):
    """--priority-delta as the apps take it: "auto", "off" or a positive finite number."""
    if text is None or text in ("auto", "off"):
        return text
    try:
        delta = float(text)
    except ValueError:
        raise InputError(f"--priority-delta must be auto, off or a positive number, got {text!r}") from None
    if not (math.isfinite(delta) and delta > 0):
        raise InputError(f"--priority-delta must be auto, off or a positive number, got {text!r}")
    return delta


def _devices(args: argparse.Namespace):
    if args.platform is not None:
        return list(platform_argument(args.platform).devices)
    from apportion.runtime.distributed_worklist import MAX_DEVICES

    return integer(2 if args.devices is None else args.devices, "--devices", low=1, high=MAX_DEVICES)


def run_app(args: argparse.Namespace) -> int:
    """Check the arguments, read the graph, run the app, write the values and the timeline, report."""
    from apportion.platform.device import KIND_CPU
    from apportion.runtime.distributed_worklist import resolve_devices
    from apportion.ui import progress

    _check_app_options(args)
    seed = check_seed(args.seed, name="--seed")
    delta = _priority_delta(args.priority_delta)
    if args.segment is not None:
        integer(args.segment, "--segment", low=1)
    check_outputs([args.output, args.trace], [args.graph, args.platform])
    if args.trace:
        from apportion._pictures import check_picture_path

        check_picture_path(args.trace, "--trace")
    devices = resolve_devices(_devices(args))  # zero devices, simulated devices: refused before reading
    if args.app == "cc" and args.method != "worklist" and args.transport == "ray" and \
            any(device.implementation != KIND_CPU for device in devices):
        raise InputError("cc --method topology with --transport ray takes CPU devices only; use --transport "
                         "threads or --method worklist for CUDA devices")
    graph = _load_graph(args)
    if graph.n == 0:  # every app: nothing to run, and no source to name
        raise InputError(f"{args.graph}: the graph has no vertices")
    if args.source is not None:
        integer(args.source, "--source", low=0, high=graph.n - 1,
                high_reason=f"the graph has {graph.n} vertices, 0..{graph.n - 1}")
    with progress(f"{args.app} on {len(devices)} devices ({args.transport})"):
        result, extra = _run(args, graph, devices, seed, delta)
    if args.output:
        write_values(args.output, result.values)
    if args.trace:
        from apportion.runtime.timeline import draw_timeline

        draw_timeline(result.trace, args.trace, title=f"{args.app} on {Path(args.graph).name}: "
                                                      f"{len(devices)} devices, {result.transport}")
    report = _report(args, graph, result, extra)
    if args.json:
        emit_json(report)
    else:
        _print(report)
    return 0


def _load_graph(args: argparse.Namespace):
    """The graph of `args`; for sssp and pbf a matrix whose values the reader would drop is an InputError."""
    import warnings

    from apportion.graph.io._common import DroppedValuesWarning

    if args.app not in _WEIGHTED:
        return load_graph_args(args)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DroppedValuesWarning)
        try:
            return load_graph_args(args)
        except DroppedValuesWarning:
            hint = ", or run bfs for hop counts" if args.app == "sssp" else ""
            raise InputError(f"{args.graph}: {_WEIGHTED[args.app]}, which must be positive integers; the matrix's "
                             f"values are not all positive integers (scale real values to integers{hint})") from None


def _run(args, graph, devices, seed: int, delta):
    """The app's RunResult and its extra report entries."""
    import numpy as np

    common = {"devices": devices, "transport": args.transport, "cluster": args.cluster}
    worklist = {"routing": args.routing or "ring", "placement": args.placement or "partition", "seed": seed}
    if args.app == "bfs":
        from apportion.apps.bfs import bfs

        result = bfs(graph, args.source, priority_delta=delta or "auto", **common, **worklist)
        return result, {"source": args.source, "reached": int(np.count_nonzero(result.values >= 0))}
    if args.app == "sssp":
        from apportion.apps.sssp import sssp

        result = sssp(graph, args.source, priority_delta=delta or "auto", **common, **worklist)
        return result, {"source": args.source, "reached": int(np.count_nonzero(np.isfinite(result.values)))}
    if args.app == "pagerank":
        from apportion.apps.pagerank import pagerank

        return pagerank(graph, **common, **worklist), {}
    if args.app == "cc":
        from apportion.apps.cc import DEFAULT_SEGMENT, connected_components

        method = args.method or "topology"
        options = {"segment": args.segment or DEFAULT_SEGMENT} if method == "topology" else \
            {**worklist, "priority_delta": delta or "off"}
        result = connected_components(graph, method=method, **common, **options)
        return result, {"method": method, "components": int(np.count_nonzero(result.values == np.arange(graph.n)))}
    from apportion.apps.pbf_runtime import DEFAULT_SEGMENT, pbf

    _u, _v, weights = graph.edges()
    weights = np.ones(graph.m, dtype=np.int64) if weights is None else np.ascontiguousarray(weights)
    low = -math.inf if args.low is None else args.low
    high = math.inf if args.high is None else args.high
    result = pbf(weights, low, high, segment=args.segment or DEFAULT_SEGMENT, **common)
    return result, {"low": _reported_bound(args.low), "high": _reported_bound(args.high),
                    "elements": int(weights.size), "kept": int(result.values.size)}


def _reported_bound(value: float | None):
    """A pbf bound as the report gives it: None when not given (unbounded), "inf" / "-inf" when infinite (JSON
    has no infinity; null read as unbounded, though --low inf keeps nothing)."""
    if value is None or math.isfinite(value):
        return value
    return "inf" if value > 0 else "-inf"


def write_values(path: str, values) -> None:
    """One value per line, written all at once (`-`: standard output): integers as integers, floats with 17
    significant digits (they read back exactly), `inf` for unreachable vertices."""
    import numpy as np

    from apportion._atomic import atomic_output

    fmt = "%d" if np.issubdtype(values.dtype, np.integer) else "%.17g"
    with atomic_output(path, "w") as handle:
        np.savetxt(handle, values, fmt=fmt)


def _report(args, graph, result, extra: dict) -> dict:
    from apportion.runtime.timeline import device_times

    summary = result.summary()
    per_device = device_times(result.trace)
    for index, entry in enumerate(per_device):
        entry["work_items"] = result.per_device[index] if index < len(result.per_device) else 0
        if result.segments:
            entry["segments"] = result.segments[index]
    return {"app": args.app, "graph": str(args.graph), "n": graph.n, "m": graph.m, **extra, **summary,
            "per_device": per_device, "output": args.output, "trace": args.trace}


def _print(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    from apportion.cli.common import _report_stream

    rows = [("app", report["app"]), ("graph", report["graph"]), ("vertices", report["n"]), ("edges", report["m"])]
    for key, label in (("source", "source"), ("method", "method"), ("low", "low"), ("high", "high")):
        if key in report:
            unbounded = key in ("low", "high") and report[key] is None
            rows.append((label, "unbounded" if unbounded else report[key]))
    rows += [("devices", ", ".join(report["devices"])), ("transport", report["transport"])]
    if report["placement"] is not None:
        rows += [("routing", report["routing"]), ("placement", report["placement"]),
                 ("placement time (s)", report["placement_s"])]
    rows += [("time (s)", report["time_s"]), ("work items", report["work_items"]),
             ("messages", report["messages"]), ("bytes moved", report["bytes_moved"])]
    if report["delta"] is not None:
        rows += [("priority Δ", report["delta"]), ("threshold raises", report["priority_raises"]),
                 ("run-ahead raises", report["priority_run_aheads"])]
    for key, label in (("reached", "vertices reached"), ("components", "components"), ("kept", "kept")):
        if key in report:
            rows.append((label, report[key]))
    if report["failures"]:
        rows += [("failed devices", ", ".join(report["failures"])), ("recovery (s)", report["recovery_s"])]
    for key, label in (("output", "values written"), ("trace", "timeline written")):
        if report[key]:
            rows.append((label, report[key]))
    print_table(f"run {report['app']}", rows)
    table = Table(title="per device (seconds)", title_justify="left")
    columns = ["device", "work items"] + (["segments"] if "segments" in report["per_device"][0] else []) + \
        ["busy", "waiting", "sending", "failed"]
    for column in columns:
        table.add_column(column, justify="left" if column == "device" else "right")
    for entry in report["per_device"]:
        cells = [entry["name"], f"{entry['work_items']:,}"]
        if "segments" in entry:
            cells.append(f"{entry['segments']:,}")
        cells += [f"{entry[k]:.4f}" for k in ("busy_s", "waiting_s", "sending_s", "failed_s")]
        table.add_row(*cells)
    Console(file=_report_stream()).print(table)
