"""Edge partitioning side by side: every apportion method against Mt-KaHyPar (seed 001), plus SpMV and Fig. 7.

Runs every method on the same graphs and k in one process and reports vertex copies, the ratios to
Mt-KaHyPar's (connectivity − 1 = copies exactly), times, and the edge balance reached; then part-by-part
SpMV loads and time per method; then the paper's Fig. 7 (WVP-greedy copies / SPAC copies against average
degree for Erdős–Rényi and Barabási–Albert graphs). Tables go into docs/edge-partition.md between markers,
the plot into docs/img/edge_fig7.png.

    .venv/bin/python benchmarks/edge_partition.py --quick      # minutes
    .venv/bin/python benchmarks/edge_partition.py              # the full set of the issue (long)
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "edge-partition.md"
FIG7 = REPO / "docs" / "img" / "edge_fig7.png"
METHODS = ("random", "dbh", "greedy", "hdrf", "wvp-random", "wvp-greedy", "ne", "spac", "hypergraph")


def load_graphs(quick: bool):
    import apportion
    from apportion.datasets import shared_graphs_dir

    folder = shared_graphs_dir()
    names = ["wiki-Vote.txt", "astro-ph.graph", "delaunay_n15.graph"] if quick else \
        ["wiki-Vote.txt", "MIT8.edgelist", "astro-ph.graph", "delaunay_n15.graph", "wing.graph"]
    graphs = []
    for name in names:
        g = apportion.read_graph(folder / name)
        graphs.append((Path(name).stem, g))
    for scale in ((14,) if quick else (16, 18)):
        graphs.append((f"rmat{scale}", apportion.generate("rmat", 2 ** scale, seed=1)))
    return graphs


def ks_for(m: int, quick: bool) -> list[int]:
    paper_k = math.ceil(m / 10240)
    ks = [16] if quick else [4, 16, 64, 256]
    return sorted({k for k in ks + [paper_k] if 1 <= k <= m})


def run_methods(graph, k: int, methods, threads: int):
    from apportion.partitioning.edge.api import edge_partition

    rows = {}
    for method in methods:
        options = {"threads": threads} if method == "hypergraph" else {}
        t0 = time.perf_counter()
        result = edge_partition(graph, k, method=method, seed=0, **options)
        wall = time.perf_counter() - t0
        rows[method] = result
        print(f"    {method:11s} copies {result.vertex_copies:10,d}  time {wall:8.2f} s  "
              f"imbalance {result.edge_imbalance:.4f}", flush=True)
    return rows


def quality_tables(results):
    head = "| graph | m | k | " + " | ".join(METHODS) + " | SPAC / MtKaHyPar | best / MtKaHyPar (best) |"
    sep = "|---" * (4 + len(METHODS) + 1) + "|"
    tq = [head, sep]
    tt = ["| graph | k | " + " | ".join(METHODS) + " | MtKaHyPar time / SPAC time | max edge imbalance (all) |",
          "|---" * (3 + len(METHODS) + 1) + "|"]
    for name, m, k, rows in results:
        ref = rows["hypergraph"].vertex_copies if "hypergraph" in rows else None
        own = {mm: r.vertex_copies for mm, r in rows.items() if mm != "hypergraph"}
        best = min(own, key=own.get)
        cells = [f"{rows[mm].vertex_copies:,}" if mm in rows else "–" for mm in METHODS]
        spac_ratio = f"{rows['spac'].vertex_copies / ref:.3f}" if ref else "–"
        best_ratio = f"{own[best] / ref:.3f} ({best})" if ref else best
        tq.append(f"| {name} | {m:,} | {k} | " + " | ".join(cells) + f" | {spac_ratio} | {best_ratio} |")
        times = [f"{rows[mm].time_s:.2f}" if mm in rows else "–" for mm in METHODS]
        speed = f"{rows['hypergraph'].time_s / rows['spac'].time_s:.2f}×" if ref else "–"
        worst = max(r.edge_imbalance for r in rows.values())
        tt.append(f"| {name} | {k} | " + " | ".join(times) + f" | {speed} | {worst:.5f} |")
    return "\n".join(tq), "\n".join(tt)


def spmv_table(graphs, methods, quick: bool, threads: int):
    from apportion.apps.spmv import spmv

    lines = ["| matrix | nnz | k | method | max loads | total loads | unpartitioned max / total | "
             "time part. (ms) | time unpart. order (ms) | time SciPy (ms) | max abs error |",
             "|---" * 11 + "|"]
    for name, g in graphs:
        a = g.to_scipy(weighted=False).astype(np.float64)
        k = math.ceil(a.nnz / 10240)
        for method in methods:
            if method == "hypergraph" and a.nnz > 600_000:
                continue
            options = {"threads": threads} if method == "hypergraph" else {}
            r = spmv(a, k, method=method, seed=0, repeats=3 if quick else 10, **options)
            lines.append(f"| {name} | {a.nnz:,} | {k} | {method} | {r.max_loads:,} | {r.total_loads:,} | "
                         f"{r.unpartitioned_max_loads:,} / {r.unpartitioned_total_loads:,} | "
                         f"{r.time_partitioned_s * 1e3:.3f} | {r.time_unpartitioned_s * 1e3:.3f} | "
                         f"{r.time_scipy_s * 1e3:.3f} | {r.max_abs_error:.1e} |")
            print(f"    spmv {name} {method}: max loads {r.max_loads}, total {r.total_loads}", flush=True)
    return "\n".join(lines)


def figure7(quick: bool):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import apportion
    from apportion._atomic import atomic_path
    from apportion.partitioning.edge.api import edge_partition

    n = 10_000 if quick else 50_000
    degrees = [4, 8, 16] if quick else [4, 8, 16, 32, 64]
    k = 16
    lines = [f"n = {n:,}, k = {k}; ratio = WVP-greedy copies / SPAC copies (> 1: SPAC better)", "",
             "| model | average degree | m | WVP-greedy copies | SPAC copies | ratio | max degree |",
             "|---|---|---|---|---|---|---|"]
    curves = {}
    for model in ("er", "ba"):
        xs, ys = [], []
        for d in degrees:
            g = apportion.generate("er", n, seed=1, avg_degree=d) if model == "er" else \
                apportion.generate("ba", n, seed=1, m_attach=max(1, d // 2))
            avg = 2 * g.m / g.n
            wvp = edge_partition(g, k, method="wvp-greedy", seed=0).vertex_copies
            spac = edge_partition(g, k, method="spac", seed=0).vertex_copies
            xs.append(avg)
            ys.append(wvp / spac)
            lines.append(f"| {model.upper()} | {avg:.1f} | {g.m:,} | {wvp:,} | {spac:,} | {wvp / spac:.3f} | "
                         f"{int(g.degrees().max()):,} |")
            print(f"    fig7 {model} d={avg:.1f}: wvp-greedy {wvp} spac {spac}", flush=True)
        curves[model] = (xs, ys)
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for model, label in (("er", "uniform (Erdős–Rényi)"), ("ba", "power law (Barabási–Albert)")):
        ax.plot(*curves[model], marker="o", label=label)
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xlabel("average degree")
    ax.set_ylabel("WVP-greedy copies / SPAC copies")
    ax.set_title(f"SPAC vs WVP-greedy, n = {n:,}, k = {k}")
    ax.legend()
    fig.tight_layout()
    with atomic_path(FIG7, ".png") as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)
    return "\n".join(lines)


def write_section(name: str, body: str) -> None:
    text = DOC.read_text()
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    if begin not in text:
        text += f"\n{begin}\n{end}\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: f"{begin}\n{body}\n{end}", text)
    from apportion._atomic import atomic_output

    with atomic_output(DOC, "w") as handle:
        handle.write(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller graphs and k, fewer repetitions")
    parser.add_argument("--threads", type=int, default=2, help="Mt-KaHyPar threads (default 2)")
    parser.add_argument("--skip", default="", help="comma list of parts to skip: quality,spmv,fig7")
    parser.add_argument("--no-write", action="store_true", help="print only; do not touch the docs")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    skip = set(filter(None, args.skip.split(",")))
    import platform
    stamp = (f"Generated by `benchmarks/edge_partition.py{' --quick' if args.quick else ''}` on "
             f"{time.strftime('%Y-%m-%d')}, {platform.machine()}, shared 2-core machine (times are noisy; "
             f"Mt-KaHyPar on {args.threads} threads, the rest sequential except the vertex partitioner).")
    graphs = load_graphs(args.quick)
    if "quality" not in skip:
        results = []
        for name, g in graphs:
            for k in ks_for(g.m, args.quick):
                print(f"{name} (n={g.n:,}, m={g.m:,}) k={k}", flush=True)
                results.append((name, g.m, k, run_methods(g, k, METHODS, args.threads)))
        quality, times = quality_tables(results)
        print(quality)
        print(times)
        if not args.no_write:
            write_section("edge-quality", stamp + "\n\nVertex copies Σ(p_v − 1) per method (imbalance 0):\n\n"
                          + quality)
            write_section("edge-time", stamp + "\n\nSeconds per method (partition only):\n\n" + times)
    if "spmv" not in skip:
        table = spmv_table(graphs[:3] if args.quick else graphs[:5], METHODS, args.quick, args.threads)
        print(table)
        if not args.no_write:
            write_section("edge-spmv", stamp + "\n\n" + table)
    if "fig7" not in skip:
        table = figure7(args.quick)
        print(table)
        if not args.no_write:
            write_section("edge-fig7", stamp + "\n\n" + table + "\n\n![Fig. 7](img/edge_fig7.png)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
