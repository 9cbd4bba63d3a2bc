"""Commands: grid, perfmodel (build, show), stencil (heat, gauss) — seed 002 (docs/grid.md)."""

from __future__ import annotations

import argparse
import re

import numpy as np

from apportion.checks import check_seed, check_shares, integer
from apportion.cli.common import add_command, check_outputs, emit_json, parse_number_list, platform_argument, print_table
from apportion.errors import InputError
from apportion.ui import progress


def register(subparsers) -> None:
    """Add `grid`, `perfmodel build|show` and `stencil heat|gauss`."""
    from apportion.partitioning.grid import METHOD_NAMES

    grid = add_command(subparsers, "grid", _grid, help="partition a 2-D grid among processors of given speeds")
    grid.add_argument("rows", type=int, help="grid rows")
    grid.add_argument("cols", type=int, help="grid columns")
    grid.add_argument("--speeds", required=True, help="relative speeds, e.g. 10,10,5,5 or 2x10,4x5 (VALUExCOUNT)")
    grid.add_argument("--method", default="nphp", choices=METHOD_NAMES, help="partitioner (default nphp)")
    grid.add_argument("--plot", metavar="FILE.png|.svg|.pdf",
                      help="draw the rectangles (format by extension: png, svg, pdf, …)")
    grid.add_argument("--sigma", type=float, default=1e-3, help="message latency in seconds (default 0.001)")
    grid.add_argument("--bandwidth", type=float, default=10e6, help="bytes per second (default 10e6)")
    grid.add_argument("--item-bytes", type=int, default=4, help="bytes per grid value (default 4)")

    perf = subparsers.add_parser("perfmodel", help="build or show FPMC speed tables S(w, c)",
                                 description="build or show FPMC speed tables S(w, c)")
    perf.set_defaults(handler=None)
    nested = perf.add_subparsers(dest="perfmodel_command", metavar="ACTION", parser_class=type(perf))
    build = add_command(nested, "build", _perf_build,
                        help="benchmark the platform's devices together, one thread each, over (w, c)")
    build.add_argument("--platform", default="auto", help="platform file or shipped name (default auto)")
    build.add_argument("--device", action="append", default=None,
                       help="device name or index in the platform (repeatable; default: every device, measured "
                            "at the same time as they run)")
    build.add_argument("-o", "--output", required=True, metavar="TABLE",
                       help="output table (.json or .npz); with several devices the name must contain {device}, "
                            "replaced by each device's name")
    build.add_argument("--kernel", choices=("heat", "gauss"), default="heat",
                       help="the application whose kernel is timed (default heat; gauss: the elimination step)")
    build.add_argument("--sizes", help="workloads in grid points (default: from --grid/--processors, else "
                                       "1024 … 4194304, powers of 4)")
    build.add_argument("--comms", help="communication volumes in items (default: from --grid, else "
                                       "0,256,1024,4096,16384)")
    build.add_argument("--grid", metavar="N×M", help="size the (w, c) grid for this problem: w from N·M/(4P) to "
                                                    "N·M, c = 0, 1, 2, 4 × √(N·M)")
    build.add_argument("--processors", type=int, default=None, help="P for --grid (default: platform's devices)")
    build.add_argument("--preset", default="default", choices=("fast", "default", "strong"),
                       help="measurement preset (samples, sample length, warm-up; default 'default')")
    build.add_argument("--samples", "--repeats", dest="samples", type=int, default=None,
                       help="timed samples per point (preset: fast 3, default 5, strong 9)")
    build.add_argument("--min-sample-s", type=float, default=None,
                       help="each sample repeats the kernel for at least this long (preset: 0.005/0.02/0.05 s)")
    build.add_argument("--statistic", choices=("median", "min"), default=None,
                       help="median of the samples' speeds (default) or the best sample")
    build.add_argument("--clock", choices=("wall", "cpu"), default=None,
                       help="device wall time (default) or thread CPU time × throttle factor")
    show = add_command(nested, "show", _perf_show, help="print a speed table")
    show.add_argument("table", help="table file (.json or .npz)")
    fit = add_command(nested, "fit", _perf_fit,
                      help="measure a real platform's devices on the workloads and write a simulated twin (TOML)")
    fit.add_argument("--platform", default="auto", help="a platform of real devices (file or auto; default auto)")
    fit.add_argument("-o", "--output", required=True, metavar="TWIN.toml", help="the simulated platform to write")
    fit.add_argument("--workloads", default="matmul,textsearch,pbf",
                     help="comma-separated workloads to measure (default matmul,textsearch,pbf)")
    fit.add_argument("--bundles", default="1,2,4,8",
                     help="run sizes, in chunks of each workload's default real size (default 1,2,4,8)")
    fit.add_argument("--repeats", type=int, default=5, help="timed runs per case and device (median; default 5)")
    fit.add_argument("--clock", choices=("wall", "cpu"), default="cpu",
                     help="thread CPU time × throttle factor (default; immune to other processes) or wall time")
    fit.add_argument("--name", default=None, help="the twin's platform name (default: the output file's stem)")
    calibrate = add_command(nested, "calibrate", _perf_calibrate,
                            help="measure this machine's CPU thread speed now and cache it (what CPU devices, "
                                 "static-peak, CPM and placement use)")
    calibrate.add_argument("--show", action="store_true",
                           help="print the cached figure without measuring (measures only when none is cached)")

    stencil = add_command(subparsers, "stencil", _stencil, help="run heat or Gaussian elimination on a platform")
    stencil.add_argument("application", choices=("heat", "gauss"))
    stencil.add_argument("--grid", required=True, help="N×M (or NxM, or N for a square)")
    stencil.add_argument("--steps", type=int, default=None,
                         help="heat steps (default 100); gauss: elimination steps (default all, N − 1)")
    stencil.add_argument("--platform", default="auto", help="platform file or shipped name (default auto)")
    stencil.add_argument("--model", default="cpm", choices=("cpm", "fpm", "fpmc"), help="performance model")
    stencil.add_argument("--partition", default="nphp", choices=METHOD_NAMES, help="grid partitioner")
    stencil.add_argument("--tables", help="comma-separated speed tables, one per device (FPM/FPMC)")
    stencil.add_argument("--seed", type=int, default=0, help="seed of the initial values")
    stencil.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                         help="time the trace (and tables benchmarked now) by device wall time (default) or "
                              "thread CPU time × throttle factor")
    where = stencil.add_mutually_exclusive_group()
    where.add_argument("--cluster", metavar="ADDRESS",
                       help="one Ray actor per device on the cluster at ADDRESS (host:port or auto)")
    where.add_argument("--ray", action="store_true",
                       help="one Ray actor per device on a local Ray instance (or RAY_ADDRESS)")


# ---------------------------------------------------------------------- grid
def _grid(args: argparse.Namespace) -> int:
    from apportion.partitioning.grid import partition_grid
    from apportion.partitioning.grid.plot import plot_rectangles

    check_outputs([args.plot])
    if args.plot:  # an unknown picture format is refused before any work
        from apportion._pictures import check_picture_path

        check_picture_path(args.plot, "--plot")
    speeds = check_shares(parse_number_list(args.speeds, "--speeds"), name="--speeds", normalise=False)
    rect = partition_grid(args.rows, args.cols, speeds, method=args.method, sigma=args.sigma,
                          bandwidth=args.bandwidth, item_bytes=args.item_bytes)
    if args.plot:
        plot_rectangles(rect, args.plot)
    if args.json:
        emit_json(rect.to_dict())
        return 0
    m = rect.metrics
    print_table(f"grid {rect.rows} × {rect.cols}, {rect.p} processors, method {rect.method}", [
        ("cut length", m.cut_length), ("data items / iteration", m.data_items),
        ("max messages", m.max_messages), ("total messages", m.total_messages),
        ("lower bound Σ2√area", m.lower_bound), ("cut lower bound", m.cut_lower_bound),
        ("max |area − target|", m.max_area_deviation), ("comm time / iteration (s)", m.comm_time_s),
    ])
    return 0


# ---------------------------------------------------------------------- perfmodel
def _pick_device(platform, key: str):
    for d in platform.devices:
        if d.name == key:
            return d
    if key.isdigit() and int(key) < len(platform.devices):
        return platform.devices[int(key)]
    raise InputError(f"--device: no device {key!r} in platform {platform.name} "
                     f"({', '.join(d.name for d in platform.devices)})")


def _perf_build(args: argparse.Namespace) -> int:
    from apportion.apps import gauss, heat
    from apportion.perfmodel.bench import bench_options, build_tables, save_table, workload_grid
    if not str(args.output).endswith((".json", ".npz")):
        raise InputError("-o: table file must end in .json or .npz")
    if args.processors is not None:
        integer(args.processors, "--processors", low=1)
    options = bench_options(args.preset, samples=args.samples, min_sample_s=args.min_sample_s,
                            statistic=args.statistic, clock=args.clock)
    case = gauss.benchmark_case if args.kernel == "gauss" else heat.benchmark_case
    check_outputs([], [args.platform])  # the platform file is never an output, even before it is read
    if "{device}" not in args.output:
        check_outputs([args.output], [args.platform])
    platform = platform_argument(args.platform)
    try:
        grid_sizes, grid_comms = heat.BENCH_SIZES, heat.BENCH_COMMS
        if args.grid:
            rows, cols = parse_grid(args.grid, "--grid")
            grid_sizes, grid_comms = workload_grid(rows * cols, args.processors or len(platform.devices))
        sizes = parse_number_list(args.sizes, "--sizes", int) if args.sizes else grid_sizes
        comms = parse_number_list(args.comms, "--comms", int) if args.comms else grid_comms
        if min(sizes) < 1 or min(comms) < 0:
            raise InputError("--sizes must be ≥ 1 and --comms ≥ 0")
        devices = ([_pick_device(platform, key) for key in args.device] if args.device
                   else list(platform.devices))
        # simulated GPUs as the stencil runtime models them (run_heat / run_gauss do the same)
        from apportion.apps.stencil_simulated import stencil_devices

        devices = stencil_devices(devices, gauss.GAUSS_FLOPS_PER_POINT if args.kernel == "gauss"
                                  else heat.HEAT_FLOPS_PER_POINT)
        if len({d.name for d in devices}) != len(devices):
            raise InputError("--device: a device is named twice")
        outputs = _table_outputs(args.output, devices)
        check_outputs(outputs, [args.platform])
        with progress(f"benchmarking {len(devices)} device(s) together at {len(set(sizes))}×{len(set(comms))} "
                      "table points"):
            tables = build_tables(devices, case, sorted(set(sizes)), sorted(set(comms)), options=options,
                                  kernel=args.kernel)
    finally:
        platform.close()
    for table, output in zip(tables, outputs):
        save_table(table, output)
    entries = [{"output": output, "device": table.meta["device"], "kernel": args.kernel, "sizes": table.sizes,
                "comms": table.comms, "speeds": table.table, "options": table.meta.get("options"),
                "max_sample_spread": table.meta.get("max_sample_spread")} for table, output in zip(tables, outputs)]
    if args.json:
        emit_json({**(entries[0] if len(entries) == 1 else {}), "tables": entries})
    else:
        for table, output in zip(tables, outputs):
            print(f"wrote {output}: {table.sizes.size} × {table.comms.size} speeds of {table.meta['device']}")
    return 0


def _file_safe(name: str) -> str:
    """A device name as one file-name component: path separators and other characters outside letters, digits,
    '.', '-' and '_' become '_' (a device named '../x' or 'node0/gpu' wrote outside the folder asked for), and a
    name of dots only gets a leading '_'."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)
    return "_" + safe if set(safe) <= {"."} else safe


def _table_outputs(pattern: str, devices) -> list[str]:
    """One output file per device: `pattern` itself for one device, else with {device} replaced by each name
    (`_file_safe`)."""
    if "{device}" not in pattern:
        if len(devices) > 1:
            raise InputError(f"-o: {len(devices)} devices need {{device}} in the file name (e.g. "
                             f"tables/{{device}}.json), got {pattern!r}")
        return [pattern]
    outputs = [pattern.replace("{device}", _file_safe(device.name)) for device in devices]
    if len(set(outputs)) != len(outputs):
        raise InputError("-o: two devices would write the same file")
    return outputs


def _perf_show(args: argparse.Namespace) -> int:
    from apportion.perfmodel.bench import load_table

    table = load_table(args.table)
    if args.json:
        emit_json({"name": table.name, "meta": table.meta, "sizes": table.sizes, "comms": table.comms,
                   "speeds": table.table})
        return 0
    from rich.console import Console
    from rich.table import Table

    out = Table(title=f"{table.name}: speed (grid points/s) by workload (rows) and comm items (columns)")
    out.add_column("w")
    for c in table.comms:
        out.add_column(f"c={c:g}", justify="right")
    for w, row in zip(table.sizes, table.table):
        out.add_row(f"{w:g}", *(f"{v:.3e}" for v in row))
    Console().print(out)
    return 0


def _fit_cases(names, bundles, seed: int = 0) -> list:
    """(workload, kernels, args, work) for each workload at its default real size, on bundles of chunks."""
    from apportion.apps.workloads import DEFAULT_SIZE, WORKLOADS, build_workload

    cases = []
    for name in names:
        if name not in WORKLOADS:
            raise InputError(f"--workloads: unknown workload {name!r} (choose from {', '.join(WORKLOADS)})")
        workload = build_workload(name, DEFAULT_SIZE["real"][name], seed=seed)
        for count in sorted(set(bundles)):
            ids = list(range(min(int(count), workload.n_chunks)))
            cases.append((name, workload.kernels, workload.payload(ids), workload.work(ids)))
    return cases


def _perf_fit(args: argparse.Namespace) -> int:
    from pathlib import Path

    from apportion.perfmodel.fit import fit_platform, measure_cases

    if not str(args.output).endswith(".toml"):
        raise InputError("-o: the twin is a platform file and must end in .toml")
    integer(args.repeats, "--repeats", low=1)
    names = [w.strip() for w in args.workloads.split(",") if w.strip()]
    if not names:
        raise InputError("--workloads: name at least one workload")
    bundles = parse_number_list(args.bundles, "--bundles", int)
    if min(bundles) < 1:
        raise InputError("--bundles: chunk counts must be ≥ 1")
    check_outputs([args.output], [args.platform])
    platform = platform_argument(args.platform)
    try:
        if any(getattr(d, "is_simulated", False) for d in platform.devices):
            raise InputError(f"perfmodel fit: platform {platform.name} is simulated; fit needs real devices")
        cases = _fit_cases(names, bundles)
        with progress(f"measuring {len(platform.devices)} device(s) on {len(cases)} cases × {args.repeats}"):
            samples = measure_cases(platform.devices, cases, repeats=args.repeats, clock=args.clock)
        twin, lines = fit_platform(platform.devices, samples, name=args.name or Path(args.output).stem,
                                   description=f"simulated twin of {platform.name} ({', '.join(names)}; "
                                               f"apportion perfmodel fit, clock {args.clock})")
    finally:
        platform.close()
    twin.save(args.output)
    first = platform.devices[0].name
    rows = [{"device": device, "workload": workload, "gflops": line.rate_flops / 1e9,
             "latency_us": line.latency_s * 1e6, "max_relative_residual": line.residual,
             "speed_vs_first": line.rate_flops / lines[first][workload].rate_flops}
            for device, fitted in lines.items() for workload, line in fitted.items()]
    if args.json:
        emit_json({"output": args.output, "platform": twin.name, "devices": [d.name for d in twin.devices],
                   "fits": rows})
        return 0
    from rich.console import Console
    from rich.table import Table

    out = Table(title=f"simulated twin written to {args.output}: seconds = latency + FLOPs / rate")
    for column in ("device", "workload", "GFLOP/s", "latency µs", f"speed vs {first}", "max residual"):
        out.add_column(column, justify="left" if column in ("device", "workload") else "right")
    for row in rows:
        out.add_row(row["device"], row["workload"], f"{row['gflops']:.3g}", f"{row['latency_us']:.1f}",
                    f"{row['speed_vs_first']:.3f}", f"{row['max_relative_residual']:.1%}")
    Console().print(out)
    return 0


def _perf_calibrate(args: argparse.Namespace) -> int:
    from apportion.platform import calibrate

    with progress("measuring one CPU thread's speed" if not args.show else "reading the cached speed"):
        result = calibrate.calibration(refresh=not args.show)
    samples = np.asarray(result.samples or (result.thread_flops,))
    spread = float((samples.max() - samples.min()) / np.median(samples))
    if args.json:
        emit_json({**result.to_dict(), "thread_gflops": result.thread_flops / 1e9, "sample_spread": spread,
                   "cache": str(calibrate.cache_path())})
        return 0
    print_table("CPU thread speed (calibration kernel: dense multiply-accumulate)", [
        ("machine", result.key), ("GFLOP/s per thread", result.thread_flops / 1e9),
        ("samples (max − min)/median", spread), ("cache", str(calibrate.cache_path())),
    ])
    return 0


# ---------------------------------------------------------------------- stencil
def parse_grid(text: str, option: str = "--grid") -> tuple[int, int]:
    """'N×M', 'NxM' or 'N' → (N, M)."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        values = [int(v) for v in parts]
    except ValueError:
        raise InputError(f"{option}: expected N×M, got {text!r}") from None
    if len(values) == 1:
        values = values * 2
    if len(values) != 2 or min(values) < 1:
        raise InputError(f"{option}: expected positive N×M, got {text!r}")
    return values[0], values[1]


def _stencil(args: argparse.Namespace) -> int:
    rows, cols = parse_grid(args.grid)
    check_seed(args.seed, name="--seed")
    tables = None
    if args.tables:
        from apportion.perfmodel.bench import load_table

        tables = [load_table(t) for t in args.tables.split(",") if t]
    if args.steps is not None and args.steps < 0:
        raise InputError("--steps must be ≥ 0")
    cluster = args.cluster or ("local" if args.ray else None)
    platform = platform_argument(args.platform)
    try:
        if args.application == "heat":
            from apportion.apps.heat import run_heat
            from apportion.perfmodel.bench import bench_options

            with progress(f"heat {rows}×{cols} on {len(platform.devices)} devices"):
                result = run_heat(rows, cols, 100 if args.steps is None else args.steps, platform,
                                  model=args.model, method=args.partition, tables=tables, seed=args.seed,
                                  clock=args.clock, bench_options=bench_options("default", clock=args.clock),
                                  cluster=cluster)
        else:
            from apportion.apps.gauss import run_gauss

            if rows != cols:
                raise InputError("gauss needs a square grid (N×N)")
            with progress(f"gauss {rows}×{rows} on {len(platform.devices)} devices"):
                result = run_gauss(rows, platform, model=args.model, method=args.partition, tables=tables,
                                   seed=args.seed, steps=args.steps, cluster=cluster)
    finally:
        platform.close()
    report = result.to_dict()
    if args.json:
        report = {k: v for k, v in report.items() if k != "per_iteration"} | {"per_iteration": report["per_iteration"]}
        emit_json(report)
        return 0
    print_table(f"{args.application} {rows}×{cols} on {platform.name} ({args.model}, {args.partition})", [
        ("devices", report["devices"]), ("areas", report["areas"]),
        ("makespan (s)", report["makespan_s"]), ("wall (s)", report["wall_s"]),
        ("imbalance (busy max/mean − 1)", report["imbalance"]),
        ("predicted imbalance", report["predicted_imbalance"]),
        ("compute s per device", report["compute_s_per_device"]),
        ("communication s per device", report["communication_s_per_device"]),
    ])
    return 0


_ = np
