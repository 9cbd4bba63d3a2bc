"""Benchmark: apportion's parallel Borůvka MST against SciPy's (and NetworKit's Kruskal when installed).

All tools run side by side in one process on the same weighted graphs, JIT warmed, graph building and
conversion excluded from every timing; each time is the best of `--repeats` runs (interleaved). The totals are
checked equal before anything is reported. The table goes into docs/mst.md between the `mst` markers.

    .venv/bin/python benchmarks/mst.py            # delaunay 2^20, rmat scale 18, 2 threads
    .venv/bin/python benchmarks/mst.py --quick    # small graphs, a few seconds, prints only
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from _docs import write_generated_block

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "mst.md"

FULL = [("delaunay", 2**20), ("rmat", 2**18)]
QUICK = [("delaunay", 2**15), ("rmat", 2**14)]
WEIGHT_SEED = 12345
MAX_WEIGHT = 2**16


def weighted(kind: str, n: int):
    """The generated graph with uniform random integer weights 1..MAX_WEIGHT (fixed seed)."""
    import apportion
    from apportion import Graph

    graph = apportion.generate(kind, n, seed=0)
    u, v, _ = graph.edges()
    weights = np.random.default_rng(WEIGHT_SEED).integers(1, MAX_WEIGHT + 1, u.shape[0])
    label = f"{kind} 2^{int(np.log2(n))}" if kind != "rmat" else f"rmat scale {int(np.log2(n))}"
    return Graph.from_edges(u, v, weights, n=graph.n, name=label)


def best_time(run, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small graphs (a smoke run)")
    parser.add_argument("--threads", type=int, default=2, help="threads for every tool (default 2)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per tool and graph; the best is kept")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/mst.md alone (--quick never writes)")
    args = parser.parse_args()

    import numba
    from scipy.sparse.csgraph import minimum_spanning_tree

    from apportion.apps.mst import mst

    try:
        import networkit as nk

        nk.setNumberOfThreads(args.threads)
        nk.engineering.setLogLevel("ERROR") if hasattr(nk, "engineering") else None
    except ImportError:
        nk = None
    numba.set_num_threads(args.threads)

    rows = []
    for kind, n in (QUICK if args.quick else FULL):
        graph = weighted(kind, n)
        scipy_matrix = graph.to_scipy().astype(np.float64).tocsr()
        mst(graph)  # warm the JIT (cache=True makes later processes start warm)
        times, totals = {}, {}
        times["apportion"], forest = best_time(lambda: mst(graph, threads=args.threads), args.repeats)
        totals["apportion"] = forest.total_weight
        times["scipy"], tree = best_time(lambda: minimum_spanning_tree(scipy_matrix), args.repeats)
        totals["scipy"] = int(round(tree.sum()))
        if nk is not None:
            u, v, w = graph.edges()
            nk_graph = nk.Graph(graph.n, weighted=True)
            nk_graph.addEdges((w.astype(np.float64), (u.astype(np.uint64), v.astype(np.uint64))))

            def kruskal():
                algorithm = nk.graph.KruskalMSF(nk_graph)
                algorithm.run()
                return algorithm

            times["networkit"], algorithm = best_time(kruskal, args.repeats)
            totals["networkit"] = int(round(algorithm.getTotalWeight()))
        if len(set(totals.values())) != 1:
            print(f"error: total weights differ on {graph.name}: {totals}", file=sys.stderr)
            return 1
        rows.append((graph, forest, times))
        ratios = "  ".join(f"{tool}/apportion {times[tool] / times['apportion']:.2f}x"
                           for tool in times if tool != "apportion")
        print(f"{graph.name}: n={graph.n:,} m={graph.m:,} total={forest.total_weight:,} "
              + "  ".join(f"{tool} {1e3 * t:.1f} ms" for tool, t in times.items()) + "  " + ratios, flush=True)

    table = render(rows, args)
    print()
    print(table)
    if not args.no_write and not args.quick:  # the page shows the full-size run only
        write_generated_block(DOC, "mst", table)
        print(f"table written to {DOC.relative_to(REPO)}")
    return 0


def render(rows, args) -> str:
    tools = ["scipy"] + (["networkit"] if "networkit" in rows[0][2] else [])
    header = ("| graph | n | m | forest weight | rounds | apportion (ms) | "
              + " | ".join(f"{name_of(t)} (ms)" for t in tools) + " | "
              + " | ".join(f"{name_of(t)} / apportion" for t in tools) + " |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for graph, forest, times in rows:
        lines.append(f"| {graph.name} | {graph.n:,} | {graph.m:,} | {forest.total_weight:,} | {forest.rounds} | "
                     f"{1e3 * times['apportion']:.1f} | "
                     + " | ".join(f"{1e3 * times[t]:.1f}" for t in tools) + " | "
                     + " | ".join(f"**{times[t] / times['apportion']:.2f}×**" for t in tools) + " |")
    import numba
    import scipy

    versions = f"SciPy {scipy.__version__}, Numba {numba.__version__}"
    try:
        import networkit

        versions += f", NetworKit {networkit.__version__}"
    except ImportError:
        pass
    lines.append("")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines.append(f"Generated by `benchmarks/mst.py{' --quick' if args.quick else ''}` on {platform.machine()} "
                 f"with {os.cpu_count()} logical CPUs (1-minute load average {load:.1f} at the end: other "
                 f"processes shared the cores), {args.threads} threads for every tool, best of "
                 f"{args.repeats} runs each; {versions}. Edge weights uniform in 1..{MAX_WEIGHT:,} "
                 f"(seed {WEIGHT_SEED}). Ratios above 1 mean apportion is faster.")
    return "\n".join(lines)


def name_of(tool: str) -> str:
    return {"scipy": "SciPy", "networkit": "NetworKit Kruskal"}[tool]




if __name__ == "__main__":
    sys.exit(main())
