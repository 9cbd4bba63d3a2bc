"""Grid partitioning, performance models and the heat runtime (seed 002): writes tables into docs/grid.md.

    .venv/bin/python benchmarks/grid.py [--quick] [--only SECTION ...]

Sections (each writes its block between `<!-- BEGIN name -->` and `<!-- END name -->`):
- grid-example: the 29-processor example (rows / PHP / NPHP data items per n, max messages).
- grid-random: 1,000 random speed vectors for every p in 2..64 (20 with --quick), spread over worker processes:
  NPHP vs PHP wins/ties/losses, the group size behind each loss, cut / lower bound per method, and a check that
  `best` is never worse than any single method.
- grid-asgp: where ASGP (NPHP) lays a homogeneous group out worse than SGP (PHP), over group sizes and shapes.
- grid-heat-throttled: heat 4096² × 100 steps (1024² × 20 with --quick) on fast : slow : slow = 3 : 1 : 1
  throttled CPU devices; speed tables built the old way and the robust way; CPM / FPM / FPMC runs repeated,
  imbalance max/mean − 1 as median [min–max].
- grid-heat-built-tables: heat 4096² × 50 steps (1024² × 20 with --quick) on fast : slow : slow = 3 : 1 : 1
  throttled CPU devices, FPM/FPMC tables from the CLI's `apportion perfmodel build` (every device together, the
  product's defaults; not measured on the spot), CPM / FPM / FPMC 5 runs each, interleaved: wall-clock
  imbalance mean ± standard deviation [min–max].
- grid-heat-seed002: the simulated seed002 platform, 2×C2050 vs 2×C2050 + 2×GTX650, models as shipped and with
  the heat-scale saturation adapter.
Full run: about 12 minutes on the shared 2-core machine (grid-random ~8, grid-heat-throttled ~4).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _docs import write_generated_block

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "grid.md"
EXAMPLE_29 = [2] * 10 + [4] * 5 + [5] * 4 + [3] * 5 + [1] * 5
METHODS = ("rows", "columns", "points", "basic", "sgp", "php", "nphp", "best")




def table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def example_29() -> str:
    from apportion.partitioning.grid import partition_grid

    n = 2000
    rows = []
    for method, paper_items, paper_max in (("rows", "56n", 2), ("php", "18.4n", 7), ("nphp", "16.9n (17.9n, notes)", 6)):
        m = partition_grid(n, n, EXAMPLE_29, method=method).metrics
        rows.append((method, f"{m.data_items / n:.2f}n", paper_items, m.max_messages, paper_max, m.total_messages,
                     f"{m.comm_time_s * 1e3:.2f}"))
    return table(("method", "data items", "paper", "max messages", "paper", "total messages",
                  f"comm ms/iter (n={n})"), rows)


RATIO_METHODS = ("basic", "sgp", "php", "nphp", "best")


def losing_groups(n: int, speeds) -> list[int]:
    """Sizes of the speed groups whose ASGP layout (NPHP) has a longer half-perimeter than SGP's (PHP) in the
    region MGP gives the group (the same region in both: MGP does not depend on the single-group method)."""
    from apportion.partitioning.grid._layout import speed_groups
    from apportion.partitioning.grid.mgp import multi_group_blocks
    from apportion.partitioning.grid.nphp import advanced_single_group_blocks
    from apportion.partitioning.grid.sgp import single_group_blocks

    regions = []

    def record(region, procs, s):
        regions.append((region, len(procs)))
        return single_group_blocks(region, procs, s)

    multi_group_blocks((0, 0, n, n), speed_groups(np.asarray(speeds, dtype=float)), list(map(float, speeds)), record)
    out = []
    for region, k in regions:
        ones = [1.0] * k
        sgp = sum(h + w for *_, h, w in single_group_blocks(region, list(range(k)), ones))
        asgp = sum(h + w for *_, h, w in advanced_single_group_blocks(region, list(range(k)), ones))
        if asgp > sgp:
            out.append(k)
    return out


def random_vectors_for_p(p: int, per_p: int, seed: int = 0, n: int = 1000) -> dict:
    """`per_p` random integer speed vectors (1–8) of length p on an n × n grid: NPHP vs PHP counts, cut over
    the cut lower bound per method, `best` violations, and the losing vectors (for the write-up)."""
    from apportion.partitioning.grid import partition_grid

    rng = np.random.default_rng([seed, p])
    out = {"wins": 0, "ties": 0, "losses": 0, "best_violations": 0, "losses_detail": [],
           "ratios": {m: [] for m in RATIO_METHODS}}
    for _ in range(per_p):
        speeds = rng.integers(1, 9, size=p).astype(float)
        results = {method: partition_grid(n, n, speeds, method=method).metrics
                   for method in ("rows", "columns", "points", "basic", "sgp", "php", "nphp", "best")}
        for method in RATIO_METHODS:
            out["ratios"][method].append(results[method].cut_length / results[method].cut_lower_bound)
        a, b = results["nphp"].data_items, results["php"].data_items
        if a < b:
            out["wins"] += 1
        elif a == b:
            out["ties"] += 1
        else:
            out["losses"] += 1
            out["losses_detail"].append((p, a - b, speeds.astype(int).tolist(), losing_groups(n, speeds)))
        if any(results["best"].comm_time_s > m.comm_time_s + 1e-12 for m in results.values()):
            out["best_violations"] += 1
    return out


def random_vectors(per_p: int, seed: int = 0, workers: int | None = None) -> str:
    """Section grid-random: every p in 2..64, `per_p` vectors each, spread over worker processes."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    n = 1000
    ps = list(range(2, 65))
    workers = workers or max(1, min(len(os.sched_getaffinity(0)), 4))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(random_vectors_for_p, ps, [per_p] * len(ps), [seed] * len(ps), [n] * len(ps)))
    wins, ties, losses = (sum(part[k] for part in parts) for k in ("wins", "ties", "losses"))
    best_violations = sum(part["best_violations"] for part in parts)
    ratios = {m: np.concatenate([part["ratios"][m] for part in parts]) for m in RATIO_METHODS}
    loss_detail = [d for part in parts for d in part["losses_detail"]]
    total = wins + ties + losses
    by_p, by_group = {}, {}
    for p, extra, _, groups in loss_detail:
        by_p.setdefault(p, []).append(extra)
        for k in (groups or [0]):
            by_group[k] = by_group.get(k, 0) + 1
    out = [f"{total} random speed vectors (p = 2…64, {per_p} per p, integer speeds 1–8 uniform, {n}×{n} grid).", "",
           table(("NPHP vs PHP (data items)", "count", "share"),
                 [("NPHP fewer (wins)", wins, f"{wins / total:.1%}"), ("equal (ties)", ties, f"{ties / total:.1%}"),
                  ("NPHP more (losses)", losses, f"{losses / total:.2%}")]), "",
           f"`best` worse than some single method: {best_violations} times.", "",
           table(("method", "cut / cut lower bound: median", "p90", "p99", "max"),
                 [(m, f"{np.median(v):.3f}", f"{np.percentile(v, 90):.3f}", f"{np.percentile(v, 99):.3f}",
                   f"{np.max(v):.3f}") for m, v in ratios.items()])]
    if loss_detail:
        out += ["", "NPHP losses by p (count, median extra data items): "
                + ", ".join(f"p={p}: {len(v)} ({int(np.median(v))})" for p, v in sorted(by_p.items())),
                "", "Size k of the homogeneous group whose ASGP layout is longer than SGP's in the losing vectors "
                    "(0: none — the loss comes from rounding elsewhere): "
                + ", ".join(f"k={k}: {c}" for k, c in sorted(by_group.items())),
                "", "First losing vectors: " + "; ".join(f"p={p} +{d} items: {sp}" for p, d, sp, _ in loss_detail[:3])]
    return "\n".join(out)


def asgp_vs_sgp(side: int = 4000) -> str:
    """Section grid-asgp: where ASGP (NPHP's single-group step) cuts more than SGP (PHP's), for one homogeneous
    group of k processors in an x × y region (x ≤ y), scanning k = 2..64 and x/y = 0.05..1 in steps of 0.01."""
    from apportion.partitioning.grid._layout import factor_pair
    from apportion.partitioning.grid.nphp import advanced_single_group_blocks, square_threshold
    from apportion.partitioning.grid.sgp import single_group_blocks
    import math

    def half_perimeters(pieces):
        return sum(h + w for _, _, _, h, w in pieces)

    rows = []
    for k in range(2, 65):
        speeds = [1.0] * k
        procs = list(range(k))
        losing, worst = [], 0.0
        for ratio in np.round(np.arange(0.05, 1.0001, 0.01), 2):
            region = (0, 0, int(round(ratio * side)), side)
            sgp = half_perimeters(single_group_blocks(region, procs, speeds))
            asgp = half_perimeters(advanced_single_group_blocks(region, procs, speeds))
            if asgp > sgp:
                losing.append(float(ratio))
                worst = max(worst, asgp / sgp - 1)
        if losing:
            root = math.isqrt(k)
            mu = None if root * root == k else square_threshold(k)
            rows.append((k, "prime" if all(k % d for d in range(2, root + 1)) else "×".join(map(str, factor_pair(k))),
                         "–" if mu is None else f"{float(mu):.3f}", f"{losing[0]:.2f}–{losing[-1]:.2f}", len(losing),
                         f"{worst:.1%}"))
    return ("One homogeneous group of k equal processors in an x × y region (y = 4000): the values of x/y (0.05 … "
            "1, step 0.01) where NPHP's ASGP gives a longer total half-perimeter than PHP's SGP. Only k with at "
            "least one such ratio are listed.\n\n"
            + table(("k", "k prime / factor pair", "μ(k)", "x/y where ASGP loses", "ratios (of 96)", "worst excess"),
                    rows))


def _spread(values) -> str:
    v = np.asarray(values)
    return f"{np.median(v):.1%} [{v.min():.1%}–{v.max():.1%}]"


def heat_throttled(size: int, steps: int, reps: int) -> str:
    """Heat on fast : slow : slow = 3 : 1 : 1 (ThrottledDevice factor 3 around single-thread CPU devices).

    Tables: the old way (one run per point, device wall clock, devices one after another) and the robust way
    (interleaved, concurrent, ≥ 20 ms samples, median of 5, thread-CPU clock). Runs: each model `reps` times,
    models interleaved, imbalance = max_i busy_i / mean_i busy_i − 1 (busy = Σ compute + exchange)."""
    from apportion.apps.heat import benchmark_case, run_heat
    from apportion.partitioning.grid import partition_grid
    from apportion.perfmodel.bench import BenchOptions, bench_options, build_tables, workload_grid
    from apportion.platform import CPUDevice, ThrottledDevice

    devices = [CPUDevice(name="fast"), ThrottledDevice(CPUDevice(name="s1"), 3.0, name="slow1"),
               ThrottledDevice(CPUDevice(name="s2"), 3.0, name="slow2")]
    n = size * size
    sizes, comms = workload_grid(n, len(devices), points=5, halo_lines=(0, 2, 4))
    cpm_areas = partition_grid(size, size, [3, 1, 1], method="nphp").areas()
    table_kinds = {
        "old: 1 run/point, wall clock, sequential": (BenchOptions(warmup_runs=1, samples=1, min_sample_s=0.0,
                                                                   concurrent=False), "wall"),
        "robust, wall clock": (bench_options("default", clock="wall"), "wall"),
        "robust, CPU clock": (bench_options("default", clock="cpu"), "cpu"),
    }
    tables, table_rows = {}, []
    for label, (options, clock) in table_kinds.items():
        t0 = time.perf_counter()
        built = build_tables(devices, benchmark_case, sizes, comms, options=options)
        seconds = time.perf_counter() - t0
        tables[label] = (built, clock)
        # the speed ratio each table predicts at the 3:1:1 areas (truth: 3 by construction), no communication
        ratio = [built[0].speed(cpm_areas[0], 0) / built[i].speed(cpm_areas[i], 0) for i in (1, 2)]
        noise = [t.meta.get("median_sample_spread", float("nan")) for t in built]
        cv = [float(np.std(t.table[:, :]) / np.mean(t.table)) for t in built]
        table_rows.append((label, f"{seconds:.1f}", f"{ratio[0]:.2f} / {ratio[1]:.2f}",
                           " / ".join(f"{v:.0%}" for v in cv),
                           " / ".join("–" if np.isnan(v) or options.samples < 2 else f"{v:.0%}" for v in noise)))
    runs = {}
    for label in ("robust, CPU clock", "robust, wall clock"):
        built, clock = tables[label]
        for rep in range(reps if clock == "cpu" else max(1, reps // 2)):
            for model in ("cpm", "fpm", "fpmc"):
                result = run_heat(size, size, steps, devices, model=model, tables=None if model == "cpm" else built,
                                  clock=clock)
                entry = runs.setdefault((label, model), {"imbalance": [], "predicted": result.plan.imbalance,
                                                         "areas": result.plan.rectangles.areas().tolist(),
                                                         "makespan": []})
                entry["imbalance"].append(result.trace.imbalance())
                entry["makespan"].append(result.trace.makespan_s())
    run_rows = [(label, model, e["areas"], f"{e['predicted']:.1%}", len(e["imbalance"]), _spread(e["imbalance"]),
                 f"{np.median(e['makespan']):.2f}") for (label, model), e in runs.items()]
    return (f"Heat {size}² × {steps} steps, devices fast : slow1 : slow2 = 3 : 1 : 1 (`ThrottledDevice(CPUDevice(1), "
            f"3)` for the slow ones). Tables over w ∈ {list(sizes)}, c ∈ {list(comms)}.\n\n"
            + table(("speed tables", "build s", "fast/slow speed at the 3:1:1 areas (truth 3)",
                     "variation over the table (std/mean) fast / slow1 / slow2",
                     "median sample spread (max−min)/median"), table_rows)
            + "\n\n"
            + table(("tables + run clock", "model", "areas", "predicted imbalance", "runs",
                     "measured imbalance max/mean − 1: median [min–max]", "makespan s (median)"), run_rows))


def heat_built_tables(size: int, steps: int, reps: int = 5) -> str:
    """Section grid-heat-built-tables: FPMC vs FPM vs CPM with tables written by `apportion perfmodel build`."""
    import json
    import os
    import subprocess
    import tempfile

    from apportion.apps.heat import run_heat
    from apportion.perfmodel.bench import load_table
    from apportion.platform import Platform

    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        platform_file = folder / "throttled.toml"
        platform_file.write_text('name = "fast+2slow"\n'
                                 '[[device]]\nname = "fast"\ntype = "cpu"\n'
                                 '[[device]]\nname = "slow1"\ntype = "throttled"\nfactor = 3\n'
                                 '[[device]]\nname = "slow2"\ntype = "throttled"\nfactor = 3\n')
        command = [sys.executable, "-m", "apportion.cli.main", "perfmodel", "build", "--platform", str(platform_file),
                   "-o", str(folder / "{device}.json"), "--grid", f"{size}x{size}", "--json"]
        t0 = time.perf_counter()
        built = subprocess.run(command, capture_output=True, text=True, check=True)
        build_s = time.perf_counter() - t0
        report = json.loads(built.stdout)
        tables = [load_table(entry["output"]) for entry in report["tables"]]
        devices = Platform.load(platform_file).devices
        loads.append(os.getloadavg()[0])
        runs = {}
        for _ in range(reps):
            for model in ("cpm", "fpm", "fpmc"):
                result = run_heat(size, size, steps, devices, model=model,
                                  tables=None if model == "cpm" else tables, clock="wall")
                entry = runs.setdefault(model, {"imbalance": [], "makespan": [], "predicted": result.plan.imbalance,
                                                "areas": result.plan.rectangles.areas().tolist()})
                entry["imbalance"].append(result.trace.imbalance())
                entry["makespan"].append(result.trace.makespan_s())
            loads.append(os.getloadavg()[0])
    spread = max(t.meta.get("max_sample_spread", 0.0) for t in tables)
    rows = [(model, e["areas"], f"{e['predicted']:.1%}", len(e["imbalance"]),
             f"{np.mean(e['imbalance']):.1%} ± {np.std(e['imbalance']):.1%}",
             f"{min(e['imbalance']):.1%}–{max(e['imbalance']):.1%}", f"{np.median(e['makespan']):.2f}")
            for model, e in runs.items()]
    return (f"Heat {size}² × {steps} steps on fast : slow1 : slow2 (`ThrottledDevice(CPUDevice(1), 3)` for the slow "
            f"ones). FPM/FPMC tables written by `apportion perfmodel build --platform FILE -o '{{device}}.json' "
            f"--grid {size}x{size}` — all three devices measured together, default preset, wall clock — in "
            f"{build_s:.0f} s (largest sample spread of a table point {spread:.0%}); then each model run {reps} times, "
            "interleaved, timed by the wall clock. Imbalance = max_i busy_i / mean_i busy_i − 1.\n\n"
            + table(("model", "areas", "predicted imbalance", "runs", "measured imbalance: mean ± std",
                     "min–max", "makespan s (median)"), rows)
            + f"\n\nLoad average (1 min) of the shared 2-core machine during the runs: {min(loads):.1f}–"
              f"{max(loads):.1f} (other helpers' jobs were running).")


def heat_seed002(sizes=(4096, 6400), steps: int = 100) -> str:
    """Simulated seed002 platform: heterogeneous (2×C2050 + 2×GTX650) vs homogeneous (2×C2050), each with CPM,
    FPM and FPMC, with the platform's models as shipped and with the heat-scale saturation adapter."""
    from apportion.apps.heat import run_heat
    from apportion.apps.stencil_simulated import DEFAULT_RESIDENT_POINTS
    from apportion.platform import Platform

    platform = Platform.load("seed002")
    # the product's own adapter (run_heat's resident_points), switched off for the "as shipped" rows
    variants = {"as shipped": None, f"heat-scale saturation ({DEFAULT_RESIDENT_POINTS} points)": DEFAULT_RESIDENT_POINTS}
    devices = list(platform.devices)
    rows, gains = [], []
    for variant, resident_points in variants.items():
        homogeneous = [d for d in devices if d.name.startswith("c2050")]
        for size in sizes:
            best, compute_only = {}, {}
            for label, devs in (("2×C2050", homogeneous), ("2×C2050 + 2×GTX650", devices)):
                for model in ("cpm", "fpm", "fpmc"):
                    result = run_heat(size, size, steps, devs, model=model, compute_values=False,
                                      resident_points=resident_points)
                    tr = result.trace
                    compute = tr.compute_s.sum(axis=0)
                    communication = tr.communication_s.sum(axis=0)
                    rows.append((variant, f"{size}²", label, model, result.plan.rectangles.areas().tolist(),
                                 f"{tr.makespan_s():.4f}", " / ".join(f"{c:.3f}" for c in compute),
                                 " / ".join(f"{c:.3f}" for c in communication)))
                    best.setdefault(label, []).append((tr.makespan_s(), model))
                    if model == "cpm":
                        compute_only[label] = float(tr.compute_s.max(axis=1).sum())
            homo, het = min(best["2×C2050"]), min(best["2×C2050 + 2×GTX650"])
            ch, ce = compute_only["2×C2050"], compute_only["2×C2050 + 2×GTX650"]
            gains.append((variant, f"{size}²", f"{homo[0]:.4f} ({homo[1]})", f"{het[0]:.4f} ({het[1]})",
                          f"{(homo[0] - het[0]) / homo[0]:.1%}", f"{ch:.4f} / {ce:.4f}", f"{(ch - ce) / ch:.1%}"))
    return (f"Simulated seed002 platform (2 nodes; node 1 behind a 100 Mbit/s router), heat × {steps} steps, model "
            "times (compute from each device's throughput curve, halo exchange through its link, 8-byte "
            "values). Makespan = Σ over steps of the slowest device.\n\n"
            + table(("device models", "grid", "devices", "model", "areas", "makespan s",
                     "compute s per device", "halo s per device"), rows)
            + "\n\nGain of heterogeneous over homogeneous, (T_2×C2050 − T_4 GPUs) / T_2×C2050, each with its best "
              "model (paper, heat: 14 %; compute-only ideal with a 2.5 : 1 speed ratio: 1 − 5/7 = 28.6 %):\n\n"
            + table(("device models", "grid", "2×C2050 makespan s", "4 GPUs makespan s", "gain",
                     "compute-only makespan s, CPM: 2 / 4 GPUs", "compute-only gain"), gains))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer random vectors, smaller heat runs")
    parser.add_argument("--only", action="append", metavar="SECTION",
                        help="run only this section (repeatable): grid-example, grid-random, grid-asgp, grid-heat-throttled, "
                             "grid-heat-built-tables, grid-heat-seed002")
    args = parser.parse_args(argv)
    per_p = 20 if args.quick else 1000
    heat_size, heat_steps, heat_reps = (1024, 20, 3) if args.quick else (4096, 100, 5)
    sections = {
        "grid-example": example_29,
        "grid-random": lambda: random_vectors(per_p),
        "grid-asgp": asgp_vs_sgp,
        "grid-heat-throttled": lambda: heat_throttled(heat_size, heat_steps, heat_reps),
        "grid-heat-built-tables": lambda: heat_built_tables(*((1024, 20) if args.quick else (4096, 50))),
        "grid-heat-seed002": heat_seed002,
    }
    for name, job in sections.items():
        if args.only and name not in args.only:
            continue
        t0 = time.perf_counter()
        text = job()
        print(f"## {name} ({time.perf_counter() - t0:.1f} s)\n{text}\n", flush=True)
        write_generated_block(DOC, name, text + f"\n\n_Generated by `benchmarks/grid.py{' --quick' if args.quick else ''}`._")
    from apportion.partitioning.grid.plot import plot_rectangles
    from apportion.partitioning.grid import partition_grid

    for method in ("php", "nphp"):
        plot_rectangles(partition_grid(400, 400, EXAMPLE_29, method=method), ROOT / "docs" / "img" / f"grid_{method}_29.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
