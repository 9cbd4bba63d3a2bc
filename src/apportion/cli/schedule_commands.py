"""Command: schedule — run a divisible workload on a platform under a scheduling policy (seed 000 ch. 3)."""

from __future__ import annotations

import argparse

from apportion.checks import check_seed, integer
from apportion.cli.common import add_command, check_outputs, emit_json, platform_argument
from apportion.errors import InputError
from apportion.ui import progress


def register(subparsers) -> None:
    """Add the `schedule` command."""
    from apportion.schedule.policies import POLICIES
    from apportion.apps.workloads import WORKLOADS

    parser = add_command(
        subparsers, "schedule", run_schedule_command,
        help="schedule a divisible workload over heterogeneous devices (HASS and baselines)",
        description="Run WORKLOAD for R rounds on a platform (a platform file, 'auto' for this machine, or a "
                    "shipped simulated machine: seed000, seed002, seed004) under a scheduling policy, and report "
                    "the makespan and the split of the work per round.")
    parser.add_argument("workload", metavar="WORKLOAD", help=f"one of {', '.join(WORKLOADS)}")
    parser.add_argument("--platform", default="auto", metavar="FILE|auto|cuda|seed000|seed002|seed004",
                        help="platform (default: auto = this machine's devices)")
    parser.add_argument("--policy", default="hass", metavar="P", help=f"one of {', '.join(POLICIES)} (default hass)")
    parser.add_argument("--rounds", type=int, default=10, metavar="R", help="rounds of the same load (default 10)")
    parser.add_argument("--size", type=float, default=None, metavar="S",
                        help="matmul: matrix dimension; textsearch: MB of text; pbf: millions of elements "
                             "(default: the thesis sizes on simulated platforms, small ones on real devices)")
    parser.add_argument("--chunks", type=int, default=None, metavar="C", help="chunks per load (default by size)")
    parser.add_argument("--fraction", type=float, default=0.3, metavar="F",
                        help="qilin: training fraction of the input (default 0.3)")
    parser.add_argument("--compute", action="store_true",
                        help="simulated platforms: also compute the result on the host and check it")
    parser.add_argument("--gantt", metavar="FILE.png|.svg|.pdf",
                        help="draw the trace as a Gantt chart (format by extension: png, svg, pdf, …)")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="run on Ray actors of the cluster at ADDRESS (also RAY_ADDRESS); 'local' starts one")
    parser.add_argument("--workers", type=int, default=2, metavar="N",
                        help="with --cluster and --platform auto: number of Ray worker devices (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random input data")


def _platform(args):
    from apportion.platform.platform import Platform

    if args.cluster:
        from apportion.platform.ray import RayDevice, connect

        connect(None if args.cluster == "local" else args.cluster,
                local_cpus=max(1, args.workers) if args.cluster == "local" else None)
        if args.platform == "auto":
            if args.workers < 1:
                raise InputError("--workers: must be >= 1")
            return Platform([RayDevice(name=f"ray{i}") for i in range(args.workers)], name="ray-cluster")
    return platform_argument(args.platform)


def run_schedule_command(args: argparse.Namespace) -> int:
    """Build the platform and workload, run the schedule, print JSON or tables, draw the Gantt chart."""
    from apportion.schedule.api import run_schedule
    from apportion.schedule.policies import make_policy
    from apportion.apps.workloads import DEFAULT_SIZE, build_workload

    integer(args.rounds, "--rounds", low=1)
    check_seed(args.seed, name="--seed")
    check_outputs([args.gantt], [args.platform])  # nothing lost: never draw over an input file
    if args.gantt:  # an unknown picture format is refused before any work
        from apportion._pictures import check_picture_path

        check_picture_path(args.gantt, "--gantt")
    options = {"fraction": args.fraction} if args.policy.startswith("qilin") else {}
    policy = make_policy(args.policy, **options)  # unknown policy -> InputError before any work
    from apportion.apps.workloads import WORKLOADS

    if args.workload not in WORKLOADS:
        raise InputError(f"unknown workload {args.workload!r} (choose from {', '.join(WORKLOADS)})")
    platform = _platform(args)
    try:
        kind = "simulated" if platform.simulated else "real"
        size = args.size if args.size is not None else DEFAULT_SIZE[kind][args.workload]
        workload = build_workload(args.workload, size, args.chunks,
                                  materialize=not platform.simulated or args.compute, seed=args.seed)
        with progress(f"{args.policy}: {args.workload} on {len(platform.devices)} devices"):
            schedule = run_schedule(workload, platform, policy, args.rounds, compute=args.compute)
        check = None
        if schedule.result is not None:
            check = _check(args.workload, workload, schedule.result)
        if args.gantt:
            schedule.trace.gantt(args.gantt, title=f"{schedule.policy} on {schedule.platform}: {args.workload}")
    finally:
        platform.close()
    out = {**schedule.to_dict(), "size": size}
    if check is not None:
        out["result_matches_reference"] = check
    if args.gantt:
        out["gantt"] = args.gantt
    if args.json:
        emit_json(out)
    else:
        _print(schedule, size, check)
    return 0 if check in (None, True) else 1


def _check(name, workload, result) -> bool:
    import numpy as np

    if name == "matmul":
        from apportion.apps.matmul import matmul_reference

        return bool(np.allclose(result, matmul_reference(workload.data, workload.extra_args[0]), rtol=1e-3,
                                atol=1e-3))
    if name == "textsearch":
        from apportion.apps.textsearch import textsearch_reference
        from apportion.apps.workloads import TEXT_PATTERNS

        return bool(np.array_equal(result, textsearch_reference(workload.text.tobytes(), TEXT_PATTERNS)))
    from apportion.apps.pbf import pbf_reference

    return bool(np.array_equal(result, pbf_reference(workload.values, workload.low, workload.high)))


def _print(schedule, size, check) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title=f"{schedule.policy} on {schedule.platform}: {schedule.workload} (size {size:g}, "
                        f"{schedule.n_chunks} chunks)", title_justify="left")
    table.add_column("round", justify="right")
    table.add_column("makespan (s)", justify="right")
    if schedule.oracle_makespan:
        table.add_column("/ oracle", justify="right")
    for name in schedule.devices:
        table.add_column(f"{name} share", justify="right")
    for r in schedule.rounds:
        row = [str(r.index), f"{r.makespan:.6g}"]
        if schedule.oracle_makespan:
            row.append(f"{r.makespan / schedule.oracle_makespan:.3f}")
        row += [f"{s:.3f}" for s in r.shares]
        table.add_row(*row)
    console.print(table)
    if schedule.oracle_makespan:
        console.print(f"oracle makespan {schedule.oracle_makespan:.6g} s, shares "
                      + ", ".join(f"{s:.3f}" for s in schedule.oracle_shares))
    if schedule.training_s:
        console.print(f"training time {schedule.training_s:.6g} s (not in the makespans)")
    if schedule.converged_at is not None:
        console.print(f"split final from round {schedule.converged_at}")
    for event in schedule.trace.events:
        console.print(f"[yellow]{event}[/]")
    if check is not None:
        console.print("result matches the sequential reference" if check else "[red]result differs from reference")
