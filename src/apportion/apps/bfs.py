"""Breadth-first search across several devices on the asynchronous runtime (seed 003 §4.5, Fig. 11).

`bfs(graph, source, devices=2, ...)` returns every vertex's level (hops from `source`; -1 when unreachable)
with the run's figures (`apportion.runtime.distributed_worklist.RunResult`). Each device owns the vertices the
placement gives it (`apportion.runtime.placement`), processes them from its local worklist with a compiled
kernel (`_bfs_kernels.bfs_step`) and sends lowered levels of other devices' vertices to their owners through
the router (`routing="ring"`, the paper's default, or `"direct"`). Levels only decrease, so the result is exact
whatever the interleaving. Soft priority (§4.4, the level as priority) is on by default: without it a device
that runs ahead spreads levels that turn out too high and the work behind them is redone (docs/runtime.md has
the measured work with and without it).
The run works on `runtime.placement.relabelled(graph, placement)` — the vertices renumbered so that each device
owns a contiguous block in breadth-first order, made once per graph and placement — and maps the levels back;
levels are int32 inside the run and in messages, int64 in the result.
`bfs_reference` is the sequential BFS every result is checked against.
"""

from __future__ import annotations

import numpy as np

from apportion.apps._bfs_kernels import bfs_levels_serial, bfs_step, widen_levels
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.platform.cuda import CudaKernel
from apportion.runtime.distributed_worklist import (DEFAULT_BATCH, DistributedWorklist, RunResult, WorklistProgram,
                                                    check_source, resolve_devices)
from apportion.runtime.placement import relabelled, resolve_placement
from apportion.runtime.priority import check_delta

#: levels travel and live as int32 (a level is below n < 2^31): half the bytes of int64 in the level array
#: each device reads once per arc, and in every message; the result is widened to int64
LEVEL_DTYPE = np.dtype(np.int32)
UNREACHED = int(np.iinfo(LEVEL_DTYPE).max)


def _check_graph(graph) -> Graph:
    if not isinstance(graph, Graph):
        raise InputError(f"expected an apportion.Graph, got {type(graph).__name__}")
    return graph


#: BFS's automatic soft-priority Δ in levels. Every threshold raise waits until all devices are idle; a BFS level
#: is never lowered by much, so few levels per bucket waste little work while many raises cost the run its time
#: (benchmarks/runtime.py's Δ profile: on road 2^20 and delaunay 2^20 with 2 devices, 32 levels cut the raises
#: 8x against 4 levels for 1-2 % more work items; docs/runtime.md).
AUTO_DELTA_LEVELS = 32.0

def bfs(graph: Graph, source: int, *, devices=2, transport: str = "threads", routing: str = "ring",
        placement="partition", seed: int = 0, cluster: str | None = None, priority_delta="auto",
        batch: int = DEFAULT_BATCH) -> RunResult:
    """Levels of a breadth-first search from `source`, computed by `devices` devices asynchronously.

    Args:
        graph: an `apportion.Graph` (edge weights are ignored).
        source: the start vertex, 0 <= source < n.
        devices: a count of one-thread CPU devices, a list of `apportion.platform` devices, or a platform name
            or file.
        transport: "threads" (one worker and one receiver thread per device) or "ray" (one actor per device).
        cluster: for "ray": a cluster address; None = RAY_ADDRESS, else a local cluster.
        routing: "ring" (device i -> i + 1, the paper's default) or "direct" (straight to the owner).
        placement: "partition" (default), "ranges", "random" or a `Placement` from `apportion.place`.
        seed: seeds the placement.
        priority_delta: "auto" (default: `AUTO_DELTA_LEVELS` = 32 levels), "off"/None, or Δ > 0 levels.
        batch: items a device processes per kernel call.

    Returns a RunResult whose `values` are int64 levels (-1 unreachable).
    Raises InputError for a source out of range, bad devices, placement, routing or Δ.
    """
    graph = _check_graph(graph)
    source = check_source(graph, source)
    delta = AUTO_DELTA_LEVELS if (isinstance(priority_delta, str) and priority_delta == "auto") \
        else check_delta(priority_delta)
    device_list = resolve_devices(devices)
    chosen = resolve_placement(placement, graph, device_list, seed)
    renumbered, moved, new_of_old = relabelled(graph, chosen)  # each device a contiguous, local block
    if graph.n >= UNREACHED:
        raise InputError(f"BFS levels are int32: at most {UNREACHED - 1:,} vertices, got {graph.n:,}")
    program = WorklistProgram("bfs", bfs_step, weights=np.empty(0, dtype=np.int64), initial_value=UNREACHED,
                              dtype=LEVEL_DTYPE, priority=True,
                              gpu_worker=CudaKernel("apportion.apps._worklist_cuda", "bfs_worklist"))
    run = DistributedWorklist(renumbered, program, device_list, moved, routing=routing, delta=delta, batch=batch)
    result = run.run(np.array([new_of_old[source]]), np.array([0]), transport=transport, cluster=cluster)
    levels = np.empty(graph.n, dtype=np.int64)
    widen_levels(result.values, new_of_old, levels)
    result.values = levels
    result.placement = chosen
    return result


def bfs_reference(graph: Graph, source: int) -> np.ndarray:
    """Sequential BFS levels from `source` (-1 unreachable): the reference of `bfs`."""
    graph = _check_graph(graph)
    source = check_source(graph, source)
    levels = np.empty(graph.n, dtype=np.int64)
    bfs_levels_serial(graph.indptr, graph.indices, source, levels)
    return levels
