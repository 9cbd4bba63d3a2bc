"""Demo section: reading real graphs in their native formats and summarising them."""

from __future__ import annotations

import time

import numpy as np

TITLE = "Graphs: reading METIS, edge lists and generated graphs"
ORDER = 10

SHARED = ("karate.graph", "test.mgraph", "4elt.graph", "wing.graph", "wiki-Vote.txt", "MIT8.edgelist")


def run(ctx) -> None:
    """Load a few shared graphs and one generated graph, tabulate their summaries, plot degree distributions."""
    from rich.table import Table

    import apportion
    from apportion.graph.io import format_of, read_graph
    from apportion.graph.summary import graph_summary

    loaded = []  # (label, format, graph, seconds)
    if ctx.graphs is not None and (ctx.graphs / "karate.graph").is_file():
        read_graph(ctx.graphs / "karate.graph")  # load the compiled kernels before timing
    if ctx.graphs is not None:
        for name in SHARED:
            path = ctx.graphs / name
            if not path.is_file():
                continue
            start = time.perf_counter()
            graph = read_graph(path)
            loaded.append((name, format_of(path), graph, time.perf_counter() - start))
    start = time.perf_counter()
    generated = apportion.generate("delaunay", 2**14, seed=ctx.seed)
    loaded.append(("delaunay 2^14 (gen.)", "generator", generated, time.perf_counter() - start))

    table = Table(title="graphs (degrees: min/median/max; wts: v×ncon vertex, e edge weights; read time includes all checks)",
                  title_justify="left")
    for column in ("graph", "n", "m", "degrees", "comps", "wts", "read s"):
        table.add_column(column, justify="left" if column in ("graph", "wts") else "right",
                         no_wrap=True)
    for label, _fmt, graph, seconds in loaded:
        s = graph_summary(graph)
        weights = []
        if s["has_vertex_weights"]:
            weights.append(f"v×{s['ncon']}")
        if s["has_edge_weights"]:
            weights.append("e")
        table.add_row(label, f"{s['n']:,}", f"{s['m']:,}",
                      f"{s['min_degree']}/{s['median_degree']:g}/{s['max_degree']}", f"{s['components']:,}",
                      ", ".join(weights) or "-", f"{seconds:.3f}")
    ctx.console.print(table)
    if ctx.graphs is not None:
        ctx.console.print("wiki-Vote.txt is a directed SNAP file with ids up to 8,297: apportion symmetrises it and "
                          "compacts the ids to the 7,115 vertices its header declares.")

    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4.5))
    for label, _fmt, graph, _seconds in loaded:
        degrees = graph.degrees()
        counts = np.bincount(degrees)
        at_least = np.cumsum(counts[::-1])[::-1] / graph.n  # fraction of vertices with degree >= d
        present = np.flatnonzero(counts[1:]) + 1
        axis.loglog(present, at_least[present], marker=".", markersize=3, linestyle="-", linewidth=1, label=label)
    axis.set_xlabel("degree d")
    axis.set_ylabel("fraction of vertices with degree ≥ d")
    axis.set_title("degree distributions: meshes are narrow, social graphs heavy-tailed")
    axis.legend(fontsize=7)
    figure.tight_layout()
    from apportion._pictures import save_figure

    path = save_figure(figure, ctx.picture("graphs_degree_distributions.png"), dpi=120)  # atomic
    plt.close(figure)
    ctx.console.print(f"degree distributions → {path}")
