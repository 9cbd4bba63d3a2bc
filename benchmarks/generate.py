"""Benchmark: apportion's graph generators at n = 2^16 and 2^20, each beside an anchor in the same run.

Anchors (the library code apportion builds on, or another library's generator of the same model):

- delaunay: `scipy.spatial.Delaunay` alone on the same points in draw order (the triangulation without building
  a graph; apportion adds a Morton pre-sort and the CSR build);
- rgg: `scipy.spatial.cKDTree(points).query_pairs(r)` alone (the pair search without the graph);
- rmat, er, ba: NetworKit's `RmatGenerator` (keeps repeated edges), `ErdosRenyiGenerator` and
  `BarabasiAlbertGenerator` (C++, 2 threads);
- grid2d, grid3d: the lattice adjacency as a SciPy sum of Kronecker products of path graphs and identities.

Numba kernels are compiled (or loaded from the cache) on a tiny graph before timing. Each time is one run
(these are seconds-long, seeded, and the machine is shared, so read ratios, not absolute times). The table goes
into docs/graph.md between the `generate` markers.

    .venv/bin/python benchmarks/generate.py            # n = 2^16 and 2^20
    .venv/bin/python benchmarks/generate.py --quick    # n = 2^16 only
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from _docs import write_generated_block

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "graph.md"


def timed(run):
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def anchor_for(kind: str, n: int):
    """(anchor name, zero-argument callable)."""
    from scipy.spatial import Delaunay, cKDTree

    points = lambda: np.random.default_rng(0).random((n, 2))  # noqa: E731
    if kind == "delaunay":
        pts = points()
        return "scipy Delaunay (triangulation only)", lambda: Delaunay(pts)
    if kind == "rgg":
        pts = points()
        r = 0.55 * math.sqrt(math.log(n) / n)
        return "scipy cKDTree.query_pairs (pairs only)", lambda: cKDTree(pts).query_pairs(r, output_type="ndarray")
    if kind in ("rmat", "er", "ba"):
        import networkit as nk

        nk.setNumberOfThreads(2)
        if kind == "rmat":
            scale = n.bit_length() - 1
            return "NetworKit RmatGenerator", lambda: nk.generators.RmatGenerator(scale, 16, 0.57, 0.19, 0.19,
                                                                                   0.05).generate()
        if kind == "er":
            return "NetworKit ErdosRenyiGenerator", lambda: nk.generators.ErdosRenyiGenerator(n, 8 / (n - 1)).generate()
        return "NetworKit BarabasiAlbertGenerator", lambda: nk.generators.BarabasiAlbertGenerator(4, n, 5).generate()
    import scipy.sparse as sp

    def path(length: int):
        return sp.diags([np.ones(length - 1), np.ones(length - 1)], [-1, 1], shape=(length, length), format="csr")

    if kind == "grid2d":
        side = math.isqrt(n)
        eye, line = sp.identity(side, format="csr"), path(side)
        return "scipy.sparse kron lattice", lambda: (sp.kron(eye, line) + sp.kron(line, eye)).tocsr()
    side = round(n ** (1 / 3))
    eye, line = sp.identity(side, format="csr"), path(side)
    return "scipy.sparse kron lattice", lambda: (sp.kron(sp.kron(eye, eye), line) + sp.kron(sp.kron(eye, line), eye)
                                                 + sp.kron(sp.kron(line, eye), eye)).tocsr()


def sizes_for(kind: str, power: int) -> dict:
    """Arguments of generate() for about 2^power vertices (grids: the nearest square / cube)."""
    n = 1 << power
    if kind == "grid2d":
        return {"n": math.isqrt(n) ** 2}
    if kind == "grid3d":
        return {"n": round(n ** (1 / 3)) ** 3}
    return {"n": n}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 2^16 only")
    parser.add_argument("--kinds", default="delaunay,rgg,grid2d,grid3d,rmat,er,ba", help="comma-separated kinds")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/graph.md alone")
    args = parser.parse_args()

    from apportion import generate

    kinds = [k for k in args.kinds.split(",") if k]
    powers = [16] if args.quick else [16, 20]
    for kind in kinds:  # compile / load the Numba kernels
        generate(kind, {"grid2d": 16, "grid3d": 27, "rmat": 16}.get(kind, 32))

    rows = []
    for power in powers:
        for kind in kinds:
            size = sizes_for(kind, power)
            seconds, graph = timed(lambda: generate(kind, **size))
            name, anchor = anchor_for(kind, size["n"])
            anchor_seconds = timed(anchor)[0] if anchor is not None else float("nan")
            ratio = seconds / anchor_seconds if anchor is not None else float("nan")
            rows.append((kind, graph.n, graph.m, seconds, name or "—", anchor_seconds, ratio))
            print(f"{kind:9s} n={graph.n:>9,} m={graph.m:>11,}  apportion {seconds:7.2f} s   "
                  f"{name or '—'} {anchor_seconds:7.2f} s   ratio {ratio:5.2f}", flush=True)

    lines = [
        f"Generator times (one run each, seed 0; {platform.machine()}, {os.cpu_count()} cores shared with other "
        f"work, Python {sys.version.split()[0]}). Ratio = apportion time / anchor time; below 1 means apportion "
        "is faster. The scipy anchors do only the geometric step, so their ratio is the cost of the whole graph "
        "build relative to that step.",
        "",
        "| kind | n | m | apportion (s) | anchor | anchor (s) | ratio |",
        "|---|---:|---:|---:|---|---:|---:|",
    ]
    for kind, n, m, seconds, name, anchor_seconds, ratio in rows:
        anchor_text = "—" if math.isnan(anchor_seconds) else f"{anchor_seconds:.2f}"
        ratio_text = "—" if math.isnan(ratio) else f"{ratio:.2f}"
        lines.append(f"| {kind} | {n:,} | {m:,} | {seconds:.2f} | {name} | {anchor_text} | {ratio_text} |")
    table = "\n".join(lines)
    if not args.no_write:
        write_generated_block(DOC, "generate", table)
        print(f"table written to {DOC.relative_to(REPO)}")
    return 0




if __name__ == "__main__":
    sys.exit(main())
