"""Demo section: the minimum spanning forest of meshes by parallel Borůvka, checked against SciPy."""

from __future__ import annotations

import time

import numpy as np

TITLE = "Minimum spanning forest: parallel Borůvka vs SciPy"
ORDER = 25


def run(ctx) -> None:
    """MST of two real graphs shipped with apportion (random integer weights) and of a Euclidean Delaunay mesh,
    drawn; totals and times side by side with scipy.sparse.csgraph.minimum_spanning_tree."""
    from rich.table import Table
    from scipy.sparse.csgraph import minimum_spanning_tree

    from apportion import Graph, datasets
    from apportion.apps.mst import mst

    rng = np.random.default_rng(ctx.seed)
    graphs = []
    for mesh in (datasets.load("4elt"), datasets.load("PGPgiantcompo")):
        u, v, _ = mesh.edges()
        graphs.append(Graph.from_edges(u, v, rng.integers(1, 1000, u.shape[0]), n=mesh.n, name=mesh.name))
    points, euclidean = _euclidean_delaunay(2000, rng)
    graphs.append(euclidean)

    table = Table(title="minimum spanning forest (the shipped 4elt and PGPgiantcompo with random weights 1..999; "
                        "Euclidean Delaunay with lengths: points_N)", title_justify="left")
    for column in ("graph", "n", "m", "trees", "weight", "= SciPy", "ms", "SciPy ms"):
        table.add_column(column, justify="left" if column == "graph" else "right")
    mst(graphs[-1])  # compile / load the kernels before timing
    for graph in graphs:
        forest = mst(graph)
        matrix = graph.to_scipy().astype(np.float64)
        start = time.perf_counter()
        reference = int(round(minimum_spanning_tree(matrix).sum()))
        scipy_ms = 1e3 * (time.perf_counter() - start)
        same = "[green]yes" if reference == forest.total_weight else f"[red]no: {reference:,}"
        table.add_row(graph.name, f"{graph.n:,}", f"{graph.m:,}", f"{forest.components:,}",
                      f"{forest.total_weight:,}", same, f"{1e3 * forest.time_s:.1f}", f"{scipy_ms:.1f}")
    ctx.console.print(table)
    ctx.console.print("Ties break by (weight, edge id), so the forest is unique and the same on any thread count; "
                      "single small graphs run serially (see docs/mst.md for the 2^20-vertex benchmark).")
    _draw(ctx, points, euclidean, mst(euclidean))


def _euclidean_delaunay(count: int, rng):
    """A Delaunay triangulation of random points, edge weight = length × 10^4 rounded (at least 1)."""
    from scipy.spatial import Delaunay

    from apportion import Graph

    points = rng.random((count, 2))
    triangles = Delaunay(points).simplices
    s = np.concatenate([triangles[:, 0], triangles[:, 1], triangles[:, 2]])
    t = np.concatenate([triangles[:, 1], triangles[:, 2], triangles[:, 0]])
    lo, hi = np.minimum(s, t), np.maximum(s, t)
    pairs = np.unique(lo.astype(np.int64) * count + hi)
    lo, hi = pairs // count, pairs % count
    lengths = np.maximum(1, np.rint(1e4 * np.linalg.norm(points[lo] - points[hi], axis=1))).astype(np.int64)
    return points, Graph.from_edges(lo, hi, lengths, n=count, name=f"points_{count}")


def _draw(ctx, points, graph, forest) -> None:
    """The Delaunay triangulation in light grey and its minimum spanning tree in blue, with a legend."""
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure

    from apportion._pictures import save_figure

    u, v, _ = graph.edges()
    fig = Figure(figsize=(6, 6.4))
    ax = fig.add_subplot()
    ax.add_collection(LineCollection(np.stack([points[u], points[v]], axis=1), colors="0.8", linewidths=0.4,
                                     label=f"Delaunay edges ({graph.m:,}), weight = length"))
    ax.add_collection(LineCollection(np.stack([points[forest.u], points[forest.v]], axis=1), colors="tab:blue",
                                     linewidths=1.0, label=f"minimum spanning tree ({forest.u.shape[0]:,} edges)"))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title(f"Euclidean MST of {graph.n:,} random points (total length {forest.total_weight / 1e4:.2f})",
                 fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=1, frameon=False, fontsize=8)
    path = save_figure(fig, ctx.picture("mst.png"), dpi=110)
    ctx.console.print(f"picture: {path}")
