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
    _compare_presets(ctx, graph, targets)
    _same_whatever_the_threads(ctx)

    xy = _layout(graph)
    path = _draw(ctx, graph, result, xy, label)
    ctx.console.print(f"picture: {path}")


def _compare_presets(ctx, graph, targets) -> None:
    """The same request with each preset, fastest first: what the slower ones buy (on average over many graphs,
    docs/partition.md; on one graph a faster preset may cut less)."""
    from rich.table import Table

    import apportion
    from apportion.partitioning.vertex.options import PRESETS

    table = Table(title="the presets on the same request (each slower, better on average)")
    for column in ("preset", "cut", "imbalance", "time (ms)"):
        table.add_column(column, justify="right")
    for preset in PRESETS:
        result = apportion.partition(graph, len(targets), targets=targets, seed=ctx.seed, preset=preset)
        table.add_row(preset, f"{result.cut:,}", f"{result.imbalance:.4f}", f"{result.times['total'] * 1000:.0f}")
    ctx.console.print(table)


def _same_whatever_the_threads(ctx) -> None:
    """Large levels run k-way FM as searches side by side on the threads, one per 50,000 seeds
    (`fm_search_seeds`, docs/partition.md); the partition depends on that count, never on the threads. A grid
    with one search per 100 seeds shows it (and compiles those kernels on a first run)."""
    import apportion
    from apportion.partitioning.vertex.options import preset_options

    grid = apportion.generate("grid2d", rows=120, cols=120)
    options = preset_options("default", fm_search_seeds=100)
    one = apportion.partition(grid, 16, preset=options, threads=1, seed=ctx.seed)
    two = apportion.partition(grid, 16, preset=options, threads=2, seed=ctx.seed)
    same = "yes" if np.array_equal(one.assignment, two.assignment) else "NO"
    ctx.console.print(f"k-way FM as searches side by side (120 × 120 grid, k = 16, one search per 100 seeds): cut "
                      f"{one.cut:,} on 1 thread, {two.cut:,} on 2; the same partition: {same}")


def _draw(ctx, graph, result, xy, label):
    """The vertices at their spectral-layout positions coloured by block, the cut edges in black, and a legend
    of the blocks with their target and actual shares of the vertex weight."""
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    from apportion._pictures import save_figure

    fig = Figure(figsize=(8.6, 6))
    ax = fig.add_subplot()
    k = len(result.targets)
    colours = np.array(["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                        "#bcbd22", "#17becf"])[np.arange(k) % 10]
    u, v, _ = graph.edges()
    cut_edges = result.assignment[u] != result.assignment[v]
    segments = np.stack([xy[u[cut_edges]], xy[v[cut_edges]]], axis=1)
    ax.scatter(xy[:, 0], xy[:, 1], s=1.5, c=colours[result.assignment], linewidths=0)
    ax.add_collection(LineCollection(segments, colors="black", linewidths=0.6))
    ratio = ":".join(f"{t:g}" for t in np.asarray(result.targets) / min(result.targets))
    ax.set_title(f"{label}: {k} blocks for speeds {ratio}", fontsize=11)
    ax.set_aspect("equal")
    ax.axis("off")
    total = float(np.sum(result.block_weights))
    handles = [Line2D([], [], linestyle="", marker="o", markersize=7, color=colours[b],
                      label=f"block {b}: target {100 * result.targets[b]:.1f} %, got "
                            f"{100 * float(np.sum(result.block_weights[b])) / total:.1f} %")
               for b in range(k)]
    handles.append(Line2D([], [], color="black", linewidth=1,
                          label=f"cut edges ({result.cut:,} of {graph.m:,})"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=8,
              title="share of the vertex weight", title_fontsize=8)
    ax.text(0.0, -0.02, "positions: spectral layout (two Laplacian eigenvectors)", transform=ax.transAxes,
            fontsize=7, color="#555555", va="top")
    return save_figure(fig, ctx.picture("partition_4elt.png"), dpi=120)
