"""Command: threshold — the work split of a heterogeneous algorithm found by sampling (seed 004).

`apportion threshold {cc,spmm,hh} INPUT --platform P [--method sample|exhaustive|static|average|hass] [--compare]
[--json] [--plot FILE.png] [--seed S] [--sampler induced|walk|hashed|ranked] [--timing raw|scaled]
[--search scan|climb|balance] [--extrapolation share|fit] [--scale X] [--others T,T,…] [--repeats N]`.

Estimates the threshold, runs the split algorithm with it, and reports both times; `--compare` also runs the
exhaustive search and prints Table I's three metrics (docs/threshold.md, docs/cli.md "Thresholds").
"""

from __future__ import annotations

import argparse
from pathlib import Path

from apportion.checks import check_seed, integer
from apportion.cli.common import (add_command, add_graph_input, check_outputs, emit_json, load_graph_args,
                                  parse_number_list, platform_argument, print_table)
from apportion.errors import InputError

APPS = ("cc", "spmm", "hh")
METHODS = ("sample", "exhaustive", "static", "average", "hass")


def register(subparsers) -> None:
    """Add the `threshold` command."""
    p = add_command(subparsers, "threshold", threshold_app,
                    help="find the CPU/GPU split of connected components or sparse A×A by sampling (seed 004)",
                    description="Estimate the threshold that splits APP's input between the two devices of a "
                                "platform (cc: percent of the vertices on the CPU; spmm: percent of the work of "
                                "A×A on the CPU; hh: rows with more nonzeros are the CPU's), run the split "
                                "algorithm with it, and report the times.")
    p.add_argument("app", choices=APPS, metavar="APP", help="cc, spmm or hh")
    add_graph_input(p, dest="input", metavar="INPUT",
                    help="a graph file (METIS, edge list, .npz, dataset:NAME) or a Matrix Market .mtx file")
    p.add_argument("--platform", required=True, metavar="NAME|FILE",
                   help="local-pair (two CPU threads), seed004 (simulated Xeon + K40c) or a platform file")
    p.add_argument("--method", choices=METHODS, default="sample",
                   help="sample (default), exhaustive, static (speed ratio), average (--others) or hass (spmm: "
                        "the split the HASS scheduler settles on over rounds of the whole product)")
    p.add_argument("--compare", action="store_true",
                   help="also run the exhaustive search and report the threshold and time differences and the "
                        "overhead")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="draw run time against threshold, estimate and best marked (runs the exhaustive search)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the sample (default 0)")
    p.add_argument("--sampler", choices=("induced", "walk", "hashed", "ranked"), default=None,
                   help="cc: induced subgraph of random vertices (induced, the paper's) or random-walk "
                        "neighbourhoods (walk, default); hh: random rows with hashed columns (hashed, the "
                        "paper's) or columns sent to sampled rows of the same length (ranked, default)")
    p.add_argument("--timing", choices=("raw", "scaled"), default=None,
                   help="compare the sample's runs by their own time (raw, the paper's) or by the time they "
                        "predict for the whole input (scaled); default: the one measured better per app")
    p.add_argument("--search", choices=("scan", "climb", "balance"), default=None,
                   help="cc, spmm: run the sample at a grid of thresholds (scan, the paper's); hh: descend over "
                        "the sample's row lengths (climb, the paper's); all: seek where the two sides finish "
                        "together (balance, a few runs); default: the one measured better per app")
    p.add_argument("--extrapolation", choices=("share", "fit"), default=None,
                   help="hh: the same CPU share of the products as on the sample (share, default) or the fitted "
                        "t = a·t'^b (fit)")
    p.add_argument("--scale", type=float, default=1.0, metavar="X",
                   help="sample size as a multiple of the paper's (√n vertices, n/4 rows, √n rows; default 1)")
    p.add_argument("--others", default=None, metavar="T,T,…",
                   help="--method average: the best thresholds of other inputs")
    p.add_argument("--repeats", type=int, default=1, metavar="N",
                   help="runs per threshold, the fastest counting (for noisy real devices; default 1)")


def _check(args: argparse.Namespace) -> None:
    check_seed(args.seed, name="--seed")
    integer(args.repeats, "--repeats", low=1)
    if not (args.scale > 0 and args.scale < float("inf")):
        raise InputError(f"--scale must be a positive number, got {args.scale}")
    from apportion.apps.threshold import SAMPLER_CHOICES  # loaded already by the caller

    own = SAMPLER_CHOICES[args.app].names() if args.app in SAMPLER_CHOICES else ()
    if args.sampler is not None and args.sampler not in own:
        choices = " or ".join(own) if own else "it has one sampler, the paper's"
        raise InputError(f"--sampler {args.sampler} does not apply to {args.app} ({choices})")
    if args.extrapolation is not None and args.app != "hh":
        raise InputError("--extrapolation applies to hh only")
    if args.search is not None and (args.search == "climb") != (args.app == "hh") and args.search != "balance":
        raise InputError(f"--search {args.search} does not apply to {args.app} "
                         f"({'climb or balance' if args.app == 'hh' else 'scan or balance'})")
    for flag, value in (("--sampler", args.sampler), ("--timing", args.timing),
                        ("--extrapolation", args.extrapolation), ("--search", args.search)):
        if value is not None and args.method != "sample":
            raise InputError(f"{flag} applies to --method sample only")
    if (args.others is None) != (args.method != "average"):
        raise InputError("--others goes with --method average, and --method average needs --others")
    if args.plot:
        from apportion._pictures import check_picture_path

        check_picture_path(args.plot, "--plot")
    check_outputs([args.plot], [args.input])


def _load(args: argparse.Namespace):
    from apportion.apps.threshold import is_matrix_input, prepare_input

    if is_matrix_input(args.app, args.input, args.format):  # the matrix itself, values and diagonal kept
        return prepare_input(args.app, args.input, args.format)
    return prepare_input(args.app, load_graph_args(args, args.input))


def threshold_app(args: argparse.Namespace) -> int:
    """Check, read, estimate, run (and compare, plot), report."""
    from apportion.apps.split_common import device_pair
    from apportion.apps.threshold import APPLICATIONS, compare_threshold, find_threshold
    from apportion.ui import progress

    _check(args)
    others = parse_number_list(args.others, "--others") if args.others is not None else None
    pair = device_pair(platform_argument(args.platform))
    data = _load(args)
    application = APPLICATIONS[args.app]
    options = {"scale": args.scale, "repeats": args.repeats, "others": others}
    if args.sampler is not None:
        options["sampler"] = args.sampler
    if args.timing is not None:
        options["timing"] = args.timing
    if args.extrapolation is not None:
        options["extrapolation"] = args.extrapolation
    if args.search is not None:
        options["search"] = args.search
    report = {"app": args.app, "input": args.input, "platform": pair.platform_name, "simulated": pair.simulated,
              "unit": application.unit}
    with progress(f"threshold {args.app} on {pair.platform_name}"):
        if args.compare or args.plot:
            comparison = compare_threshold(args.app, data, pair, args.method, args.seed, **options)
            curve = comparison.pop("curve")
            estimate_threshold = comparison["threshold"]
            report.update(comparison)
        else:
            estimate = find_threshold(args.app, data, pair, args.method, args.seed, **options)
            estimate_threshold = estimate.threshold
            report.update({"method": estimate.method, "threshold": estimate.threshold,
                           "estimate_s": estimate.seconds, "runs": estimate.runs, "sample": estimate.sample})
        run = application.run(data, estimate_threshold, None, pair=pair)
    report["run_s"] = report.get("run_s", run.time_s)
    report["device_times_s"] = run.device_times_s
    report["split"] = run.details
    if args.plot:
        from apportion.apps.threshold_plot import draw_threshold_curve

        draw_threshold_curve(curve, estimate_threshold, report["run_s"], report["best_threshold"], args.plot,
                             title=f"{args.app} on {Path(args.input).name}, {pair.platform_name}",
                             unit=application.unit, log_x=not application.percent)
        report["plot"] = args.plot
    if args.json:
        emit_json(report)
    else:
        _print(report)
    return 0


def _print(report: dict) -> None:
    rows = [("app", report["app"]), ("platform", report["platform"]), ("method", report["method"]),
            ("threshold", report["threshold"]), ("unit", report["unit"]),
            ("estimate time (s)", report["estimate_s"]), ("run time (s)", report["run_s"])]
    if "best_threshold" in report:
        rows += [("best threshold (exhaustive)", report["best_threshold"]),
                 ("best run time (s)", report["best_run_s"]),
                 ("threshold difference (%)", report["threshold_difference_pct"]),
                 ("time difference (%)", report["time_difference_pct"]),
                 ("overhead (%)", report["overhead_pct"]),
                 ("exhaustive search time (s)", report["exhaustive_s"])]
    rows += [(f"time on {name} (s)" if name != "merge" else "merge time (s)", seconds)
             for name, seconds in report["device_times_s"].items()]
    print_table(f"threshold: {report['input']}", rows)
