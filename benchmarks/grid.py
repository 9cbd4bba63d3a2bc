"""Grid partitioning, performance models and the heat runtime (seed 002): writes tables into docs/grid.md.

    .venv/bin/python benchmarks/grid.py [--quick]

1. The 29-processor example (rows / PHP / NPHP data items per n, max messages).
2. Random speed vectors for every p in 2..64: NPHP vs PHP wins/ties/losses, cut / lower bound per method, and a
   check that `best` is never worse than any single method.
3. Heat on three throttled CPU devices with speeds 3:1:1: busy-time imbalance under CPM, FPM and FPMC.
4. Heat on the simulated seed002 platform: heterogeneous (2×C2050 + 2×GTX650, FPMC) vs homogeneous (2×C2050).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "grid.md"
EXAMPLE_29 = [2] * 10 + [4] * 5 + [5] * 4 + [3] * 5 + [1] * 5
METHODS = ("rows", "columns", "points", "basic", "sgp", "php", "nphp", "best")


def write_block(name: str, text: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    if begin not in doc:
        doc += f"\n{begin}\n{end}\n"
    doc = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: f"{begin}\n{text.strip()}\n{end}", doc,
                 flags=re.S)
    from apportion._atomic import atomic_output

    with atomic_output(DOC, "w", encoding="utf-8") as handle:
        handle.write(doc)


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


def random_vectors(per_p: int, seed: int = 0) -> str:
    from apportion.partitioning.grid import partition_grid

    rng = np.random.default_rng(seed)
    n = 1000
    wins = ties = losses = 0
    loss_examples = []
    ratios = {m: [] for m in METHODS if m not in ("rows", "columns", "points")}
    best_violations = 0
    for p in range(2, 65):
        for _ in range(per_p):
            speeds = rng.integers(1, 9, size=p).astype(float)
            results = {}
            for method in ratios:
                results[method] = partition_grid(n, n, speeds, method=method).metrics
            for method in ("rows", "columns", "points"):
                results[method] = partition_grid(n, n, speeds, method=method).metrics
            for method, m in results.items():
                if method in ratios:
                    ratios[method].append(m.cut_length / m.cut_lower_bound)
            a, b = results["nphp"].data_items, results["php"].data_items
            if a < b:
                wins += 1
            elif a == b:
                ties += 1
            else:
                losses += 1
                if len(loss_examples) < 3:
                    loss_examples.append((p, a - b))
            if any(results["best"].comm_time_s > results[mm].comm_time_s + 1e-12 for mm in results):
                best_violations += 1
    total = wins + ties + losses
    out = [f"{total} random speed vectors (p = 2…64, {per_p} per p, integer speeds 1–8, {n}×{n} grid).", "",
           table(("NPHP vs PHP (data items)", "count", "share"),
                 [("NPHP fewer (wins)", wins, f"{wins / total:.1%}"), ("equal (ties)", ties, f"{ties / total:.1%}"),
                  ("NPHP more (losses)", losses, f"{losses / total:.1%}")]), "",
           f"`best` worse than some single method: {best_violations} times.", "",
           table(("method", "cut / cut lower bound: median", "p90", "max"),
                 [(m, f"{np.median(v):.3f}", f"{np.percentile(v, 90):.3f}", f"{np.max(v):.3f}")
                  for m, v in ratios.items()])]
    if loss_examples:
        out += ["", "Examples of losses (p, extra data items): " + ", ".join(f"({p}, {d})" for p, d in loss_examples)]
    return "\n".join(out)


def heat_throttled(size: int, steps: int) -> str:
    from apportion.apps.heat import run_heat, speed_models
    from apportion.platform import CPUDevice, ThrottledDevice

    devices = [CPUDevice(name="fast"), ThrottledDevice(CPUDevice(name="s1"), 3.0, name="slow1"),
               ThrottledDevice(CPUDevice(name="s2"), 3.0, name="slow2")]
    n = size * size
    sizes = tuple(int(v) for v in np.geomspace(n / 12, n, 5))
    comms = (0, size, 4 * size)
    t0 = time.perf_counter()
    tables = speed_models(devices, "fpmc", sizes=sizes, comms=comms, repeats=1)
    bench_s = time.perf_counter() - t0
    rows = []
    for model in ("cpm", "fpm", "fpmc"):
        result = run_heat(size, size, steps, devices, model=model, tables=None if model == "cpm" else tables)
        tr = result.trace
        rows.append((model, result.plan.rectangles.areas().tolist(), f"{result.plan.imbalance:.1%}",
                     f"{tr.imbalance():.1%}", f"{tr.makespan_s():.2f}", f"{tr.wall_s:.2f}"))
    return (f"Heat {size}² × {steps} steps, devices fast : slow1 : slow2 = 3 : 1 : 1 (ThrottledDevice factor 3); "
            f"tables benchmarked in {bench_s:.1f} s.\n\n"
            + table(("model", "areas", "predicted imbalance", "measured imbalance (busy max/mean − 1)",
                     "makespan s (Σ max)", "wall s"), rows))


def heat_seed002(size: int, steps: int) -> str:
    from apportion.apps.heat import run_heat
    from apportion.platform import Platform

    platform = Platform.load("seed002")
    homogeneous = platform.subset(["c2050-node0", "c2050-node1"], name="2xC2050")
    rows = []
    makespans = {}
    for label, plat, model in (("2×C2050 (homogeneous)", homogeneous, "fpmc"),
                               ("4 GPUs, even split", platform, None),
                               ("4 GPUs, CPM", platform, "cpm"), ("4 GPUs, FPM", platform, "fpm"),
                               ("4 GPUs, FPMC", platform, "fpmc")):
        if model is None:
            from apportion.perfmodel import ConstantSpeed

            result = run_heat(size, size, steps, plat, model="cpm", tables=[ConstantSpeed(1.0)] * len(plat),
                              compute_values=False)
        else:
            result = run_heat(size, size, steps, plat, model=model, compute_values=False)
        makespans[label] = result.trace.makespan_s()
        rows.append((label, result.plan.rectangles.areas().tolist(), f"{result.trace.makespan_s():.4f}",
                     f"{result.trace.imbalance():.1%}"))
    homo = makespans["2×C2050 (homogeneous)"]
    het = makespans["4 GPUs, FPMC"]
    gain = (homo - het) / homo
    return (f"Simulated seed002 platform, heat {size}² × {steps} steps (model times).\n\n"
            + table(("configuration", "areas", "makespan s", "imbalance"), rows)
            + f"\n\nImprovement of heterogeneous over homogeneous (eq. 6-1): **{gain:.1%}** (paper: 14 %).")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer random vectors, smaller heat runs")
    args = parser.parse_args(argv)
    per_p = 20 if args.quick else 1000
    heat_size, heat_steps = (1024, 20) if args.quick else (4096, 100)
    sections = {
        "grid-example": example_29,
        "grid-random": lambda: random_vectors(per_p),
        "grid-heat-throttled": lambda: heat_throttled(heat_size, heat_steps),
        "grid-heat-seed002": lambda: heat_seed002(4096, 100),
    }
    for name, job in sections.items():
        t0 = time.perf_counter()
        text = job()
        print(f"## {name} ({time.perf_counter() - t0:.1f} s)\n{text}\n", flush=True)
        write_block(name, text + f"\n\n_Generated by `benchmarks/grid.py{' --quick' if args.quick else ''}`._")
    from apportion.cli.grid_commands import plot_rectangles
    from apportion.partitioning.grid import partition_grid

    for method in ("php", "nphp"):
        plot_rectangles(partition_grid(400, 400, EXAMPLE_29, method=method), ROOT / "docs" / "img" / f"grid_{method}_29.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
