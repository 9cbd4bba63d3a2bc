"""Benchmark: apportion's graph readers against SciPy's and NetworkX's on a delaunay graph.

A delaunay graph (n = 2^20, or 2^16 with `--quick`) is written by apportion to a temporary folder as METIS
`.graph`, Matrix Market `.mtx` and an edge list (`.txt`). Then, side by side in one run:

- METIS: `apportion.read_graph` vs `networkx.read_adjlist` on the same adjacency lines, each prefixed by its
  vertex id (NetworkX has no METIS reader; this is the METIS body as NetworkX reads adjacency lists);
- Matrix Market: `apportion.read_graph` vs `scipy.io.mmread`;
- edge list: `apportion.read_graph` vs `networkx.read_edgelist`.

Numba kernels are compiled (or loaded from the cache) before timing. Every time is the best of `--repeats`
runs (anchors slower than 10 s run once). Results are checked equal (n and m) before anything is reported. The
table goes into docs/io.md between the `io` markers.

    .venv/bin/python benchmarks/io.py            # n = 2^20
    .venv/bin/python benchmarks/io.py --quick    # n = 2^16
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _docs import write_generated_block

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "io.md"


def best_time(run, repeats: int, once_above: float = 10.0):
    best, result = float("inf"), None
    for attempt in range(repeats):
        start = time.perf_counter()
        result = run()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        if elapsed > once_above:
            break
    return best, result


def adjlist_from_metis(metis: Path, target: Path) -> None:
    """The METIS body with each line prefixed by its 1-based vertex id (NetworkX's adjacency-list form)."""
    with open(metis, "rb") as source, open(target, "wb") as out:
        source.readline()  # header
        for number, line in enumerate(source, start=1):
            out.write(str(number).encode() + b" " + line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 2^16 instead of 2^20")
    parser.add_argument("--repeats", type=int, default=3, help="runs per reader; the best is kept")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/io.md alone")
    args = parser.parse_args()

    import networkx as nx
    import scipy.io

    import apportion
    from apportion.graph.io import read_graph, write_graph

    exponent = 16 if args.quick else 20
    n = 2 ** exponent
    start = time.perf_counter()
    graph = apportion.generate("delaunay", n, seed=0)
    print(f"generated delaunay 2^{exponent}: n = {graph.n:,}, m = {graph.m:,} "
          f"({time.perf_counter() - start:.1f} s)", flush=True)

    rows = []
    with tempfile.TemporaryDirectory(prefix="apportion-io-") as folder:
        folder = Path(folder)
        files = {"METIS .graph": folder / "g.graph", "Matrix Market .mtx": folder / "g.mtx",
                 "edge list .txt": folder / "g.txt"}
        for path in files.values():
            write_graph(graph, path)
        adjlist = folder / "g.adjlist"
        adjlist_from_metis(files["METIS .graph"], adjlist)
        # compile / load the kernels outside the timings
        small = folder / "small"
        small.mkdir()
        tiny = apportion.generate("delaunay", 64, seed=1)
        for suffix in (".graph", ".mtx", ".txt"):
            write_graph(tiny, small / f"t{suffix}")
            read_graph(small / f"t{suffix}")

        anchors = {
            "METIS .graph": ("networkx.read_adjlist", lambda: nx.read_adjlist(adjlist, nodetype=int)),
            "Matrix Market .mtx": ("scipy.io.mmread", lambda: scipy.io.mmread(str(files["Matrix Market .mtx"]))),
            "edge list .txt": ("networkx.read_edgelist", lambda: nx.read_edgelist(files["edge list .txt"],
                                                                                 nodetype=int)),
        }
        for label, path in files.items():
            ours_time, ours = best_time(lambda: read_graph(path), args.repeats)
            assert ours.n == graph.n and ours.m == graph.m and np.array_equal(ours.indices, graph.indices)
            anchor_name, anchor = anchors[label]
            print(f"{label}: apportion {ours_time:.3f} s; running {anchor_name} …", flush=True)
            anchor_time, result = best_time(anchor, args.repeats)
            if isinstance(result, nx.Graph):
                anchor_n, anchor_m = result.number_of_nodes(), result.number_of_edges()
            else:
                coo = result.tocoo()
                off = coo.row != coo.col
                low = np.minimum(coo.row[off], coo.col[off]).astype(np.int64)
                high = np.maximum(coo.row[off], coo.col[off]).astype(np.int64)
                anchor_n, anchor_m = result.shape[0], np.unique(low * result.shape[0] + high).shape[0]
            assert (anchor_n, anchor_m) == (graph.n, graph.m), (label, anchor_n, anchor_m)
            del result
            rows.append((label, path.stat().st_size, ours_time, anchor_name, anchor_time))
            print(f"  {anchor_name} {anchor_time:.3f} s", flush=True)

    lines = [
        f"delaunay n = 2^{exponent} ({graph.n:,} vertices, {graph.m:,} edges), written by apportion; best of "
        f"{args.repeats} runs (anchors over 10 s run once); results checked equal (n, m). "
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}.",
        "",
        "| format | file size | apportion read | anchor | anchor read | anchor / apportion |",
        "|---|---:|---:|---|---:|---:|",
    ]
    for label, size, ours, anchor_name, anchor_time in rows:
        lines.append(f"| {label} | {size / 2**20:.1f} MiB | {ours:.3f} s | `{anchor_name}` | {anchor_time:.3f} s "
                     f"| {anchor_time / ours:.1f}× |")
    lines.append("")
    lines.append(f"Generated by `benchmarks/io.py{' --quick' if args.quick else ''}`.")
    table = "\n".join(lines)
    print()
    print(table)
    if not args.no_write:
        write_generated_block(DOC, "io", table)
        print(f"\nwrote the table into {DOC.relative_to(REPO)}")
    return 0




if __name__ == "__main__":
    raise SystemExit(main())
