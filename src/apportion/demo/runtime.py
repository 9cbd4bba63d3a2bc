"""Demo section: BFS and SSSP across two devices on the asynchronous runtime, and PBF beside a slower device
(seed 003, Groute)."""

from __future__ import annotations

TITLE = "Asynchronous multi-device graph runtime: BFS, SSSP, PBF (seed 003, Groute)"
ORDER = 45


def symmetric_weights(graph, most: int = 99):
    """Integer arc weights 1..most that depend only on the edge (both directions of an edge weigh the same)."""
    import numpy as np

    sources = graph.sources().astype(np.int64)
    targets = graph.indices.astype(np.int64)
    low, high = np.minimum(sources, targets), np.maximum(sources, targets)
    return (1 + (low * 7919 + high * 104729) % most).astype(np.float64)


def run(ctx) -> None:
    import numpy as np
    from rich.table import Table

    from apportion import datasets
    from apportion.apps.bfs import bfs, bfs_reference
    from apportion.apps.pbf import pbf_reference
    from apportion.apps.pbf_runtime import pbf
    from apportion.apps.sssp import sssp, sssp_reference
    from apportion.platform import CPUDevice, ThrottledDevice
    from apportion.runtime.placement import place
    from apportion.runtime.timeline import device_times, draw_timeline

    console = ctx.console
    graph = datasets.load("4elt")
    weights = symmetric_weights(graph)
    devices = [CPUDevice(1, name="cpu0"), CPUDevice(1, name="cpu1")]
    placement = place(graph, devices, method="partition", seed=ctx.seed)  # once, for both queries
    runs = {"BFS": bfs(graph, 0, devices=devices, placement=placement),
            "SSSP": sssp(graph, 0, devices=devices, placement=placement, weights=weights)}
    exact = {"BFS": np.array_equal(runs["BFS"].values, bfs_reference(graph, 0)),
             "SSSP": np.array_equal(runs["SSSP"].values, sssp_reference(graph, 0, weights))}
    table = Table(title=f"4elt ({graph.n:,} vertices, {graph.m:,} edges) from vertex 0 on 2 CPU devices, "
                        f"ring routing, soft priority; placement {placement.time_s * 1e3:.0f} ms apart",
                  title_justify="left")
    for column in ("app", "ms", "work/n", "messages", "bytes", "raises", "busy ms", "exact"):
        table.add_column(column, justify="left" if column == "app" else "right")
    for name, result in runs.items():
        busy = [entry["busy_s"] * 1e3 for entry in device_times(result.trace)]
        table.add_row(name, f"{result.time_s * 1e3:.1f}", f"{result.work_items / graph.n:.2f}",
                      f"{result.messages:,}", f"{result.bytes_moved:,}", str(result.priority_raises),
                      "/".join(f"{b:.1f}" for b in busy), "yes" if exact[name] else "NO")
    console.print(table)
    console.print("work/n: items processed per vertex; raises: soft-priority threshold raises; busy: kernel time "
                  "of cpu0/cpu1; exact: equal to the sequential reference")
    console.print(f"placement cut {placement.cut:,} of {graph.m:,} edges: the devices exchange only the items "
                  "of cut edges, as soon as each batch is done (no barrier)")
    path = draw_timeline(runs["SSSP"].trace, ctx.picture("runtime_sssp_4elt.png"),
                         title="SSSP on 4elt across two CPU devices (asynchronous worklists, soft priority)")
    console.print(f"timeline: {path}")

    # PBF: segments go to whichever device is free, so the faster device takes more
    values = np.random.default_rng(ctx.seed).random(1 << 21)
    pair = [CPUDevice(1, name="cpu"), ThrottledDevice(CPUDevice(1), 3.0, name="cpu/3")]
    filtered = pbf(values, 0.25, 0.5, devices=pair, segment=1 << 15)
    ok = np.array_equal(filtered.values, pbf_reference(values, 0.25, 0.5))
    console.print(f"PBF, {values.size:,} doubles kept if 0.25 <= v < 0.5, CPUDevice(1) + ThrottledDevice(3x): "
                  f"segments {filtered.segments[0]} / {filtered.segments[1]}, {filtered.time_s * 1e3:.1f} ms, "
                  f"{filtered.values.size:,} kept, result {'matches' if ok else 'DIFFERS FROM'} NumPy")
