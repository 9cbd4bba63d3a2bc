"""Demo section: the real graphs shipped with apportion (`apportion.datasets`) and a generated one, summarised."""

from __future__ import annotations

import time

import numpy as np

TITLE = "Graphs: the real graphs shipped with apportion and a generated one"
ORDER = 10

SHOWN = ("karate", "test_mgraph", "polblogs", "4elt", "PGPgiantcompo", "wiki-Vote")


def run(ctx) -> None:
    """Load a few shipped graphs and one generated graph, tabulate their summaries, plot degree distributions."""
    from rich.table import Table

    import apportion
    from apportion import datasets
    from apportion.graph.summary import graph_summary

    loaded = []  # (label, graph, seconds)
    datasets.load("karate")  # load the compiled kernels before timing
    for name in SHOWN:
        start = time.perf_counter()
        graph = datasets.load(name)
        loaded.append((name, graph, time.perf_counter() - start))
    start = time.perf_counter()
    generated = apportion.generate("delaunay", 2**14, seed=ctx.seed)
    loaded.append(("delaunay 2^14 (gen.)", generated, time.perf_counter() - start))

    table = Table(title="graphs (degrees: min/median/max; wts: v×ncon vertex, e edge weights; load time includes all "
                        "checks; dataset:NAME on the command line)",
                  title_justify="left")
    for column in ("graph", "n", "m", "degrees", "comps", "wts", "load s"):
        table.add_column(column, justify="left" if column in ("graph", "wts") else "right",
                         no_wrap=True)
    for label, graph, seconds in loaded:
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
    ctx.console.print("wiki-Vote comes from a directed SNAP file with ids up to 8,297: apportion's edge-list reader "
                      "made it undirected and compacted the ids to the 7,115 vertices its header declares. "
                      "`apportion datasets` lists every shipped graph with its source and licence.")
    _read_text_formats(ctx, {name: graph for name, graph, _ in loaded})

    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4.5))
    for label, graph, _seconds in loaded:
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


def _read_text_formats(ctx, graphs: dict) -> None:
    """Write three shipped graphs as the text files users have (METIS, METIS with two vertex weights, an edge
    list) and time apportion's readers on them; this also puts the readers' kernels in the compile warm-up."""
    import tempfile
    from pathlib import Path

    from apportion.graph.io import read_graph, write_graph

    timings = []
    with tempfile.TemporaryDirectory(prefix="apportion-demo-") as folder:
        for name, file_name in (("4elt", "4elt.graph"), ("test_mgraph", "test.mgraph"),
                                ("wiki-Vote", "wiki-Vote.txt")):
            path = Path(folder) / file_name
            write_graph(graphs[name], path)
            start = time.perf_counter()
            read_graph(path)
            seconds = time.perf_counter() - start
            timings.append(f"{file_name} ({path.stat().st_size / 2**20:.2f} MiB) {seconds * 1000:.0f} ms")
    ctx.console.print("text readers (checks included): " + ", ".join(timings))
