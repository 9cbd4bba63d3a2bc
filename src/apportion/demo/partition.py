"""Demo section: partition the 4elt mesh for four processors of speeds 4, 2, 1, 1 and draw it."""

from __future__ import annotations

import numpy as np

TITLE = "Vertex partitioning with heterogeneous targets"
ORDER = 20


def _layout(graph) -> np.ndarray:
    """2-D coordinates from the two smallest non-trivial Laplacian eigenvectors (a spectral layout)."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as sla

    a = graph.to_scipy(weighted=False).astype(np.float64)
    degree = np.asarray(a.sum(axis=1)).ravel()
    laplacian = sp.diags(degree) - a
    values, vectors = sla.eigsh(laplacian + sp.identity(graph.n) * 1e-8, k=3, sigma=0, which="LM")
    order = np.argsort(values)
    return vectors[:, order[1:3]]


def run(ctx) -> None:
    import matplotlib.pyplot as plt
    from rich.table import Table

    import apportion
    from apportion import datasets

    graph = datasets.load("4elt")
    label = "4elt"
    targets = [4, 2, 1, 1]
    result = apportion.partition(graph, 4, targets=targets, seed=ctx.seed)
    table = Table(title=f"{label}: {graph.n:,} vertices, {graph.m:,} edges, k = 4, targets 4:2:1:1, ε = 0.03")
    for column in ("block", "target share", "weight", "limit", "weight / target"):
        table.add_column(column, justify="right")
    for b in range(4):
        table.add_row(str(b), f"{result.targets[b]:.3f}", f"{result.block_weights[b]:,}",
                      f"{result.max_block_weights[b]:,}",
                      f"{result.block_weights[b] / result.target_weights[b]:.3f}")
    ctx.console.print(table)
    phases = ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in result.times.items())
    ctx.console.print(f"cut {result.cut:,}, imbalance {result.imbalance:.4f}, {result.levels} levels; {phases}")

    xy = _layout(graph)
    fig, ax = plt.subplots(figsize=(7, 6))
    colours = np.array(["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"])
    u, v, _ = graph.edges()
    cut_edges = result.assignment[u] != result.assignment[v]
    from matplotlib.collections import LineCollection

    segments = np.stack([xy[u[cut_edges]], xy[v[cut_edges]]], axis=1)
    ax.scatter(xy[:, 0], xy[:, 1], s=1.5, c=colours[result.assignment], linewidths=0)
    ax.add_collection(LineCollection(segments, colors="black", linewidths=0.6))
    ax.set_title(f"{label}: 4 blocks for speeds 4:2:1:1 (cut {result.cut:,} edges, black)")
    ax.set_aspect("equal")
    ax.axis("off")
    path = ctx.picture("partition_4elt.png")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    ctx.console.print(f"picture: {path}")
