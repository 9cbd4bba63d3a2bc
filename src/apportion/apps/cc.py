"""Connected components across several devices on the asynchronous runtime (seed 003 §5.1.4 computes them
topology-driven; this first version propagates labels on the distributed worklist, §4.3).

`connected_components(graph, devices=2, ...)` labels every vertex with the least vertex id of its component
(so two vertices share a label exactly when they are connected). Every vertex starts as a work item carrying its
own id; a label only decreases, so the result is exact whatever the interleaving. `cc_reference` (SciPy's
`connected_components`, relabelled by least id) is what every result is checked against.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import connected_components as scipy_components

from apportion.apps._cc_kernels import cc_step
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.runtime.distributed_worklist import (DEFAULT_BATCH, DistributedWorklist, RunResult, WorklistProgram,
                                                    resolve_devices)
from apportion.runtime.placement import resolve_placement
from apportion.runtime.priority import check_delta

UNLABELLED = np.iinfo(np.int64).max


def _check_graph(graph) -> Graph:
    if not isinstance(graph, Graph):
        raise InputError(f"expected an apportion.Graph, got {type(graph).__name__}")
    return graph


def connected_components(graph: Graph, *, devices=2, transport: str = "threads", routing: str = "ring",
                         placement="partition", seed: int = 0, priority_delta="off",
                         batch: int = DEFAULT_BATCH) -> RunResult:
    """Component labels (the least vertex id of each vertex's component), computed by `devices` devices.

    Arguments as in `apportion.bfs` (no source); `priority_delta` "off" (default) or Δ > 0 labels: with soft
    priority low labels sweep first (Δ = 1 processes each vertex of a connected graph once, but costs one global
    threshold raise per component, so it is no default). Returns a RunResult with int64 `values`.
    Raises InputError for bad devices, placement, routing or Δ.
    """
    graph = _check_graph(graph)
    delta = check_delta(priority_delta)
    device_list = resolve_devices(devices)
    chosen = resolve_placement(placement, graph, device_list, seed)
    program = WorklistProgram("cc", cc_step, weights=np.empty(0, dtype=np.int64), initial_value=UNLABELLED,
                              dtype=np.dtype(np.int64), priority=True)
    run = DistributedWorklist(graph, program, device_list, chosen, routing=routing, delta=delta, batch=batch)
    everyone = np.arange(graph.n, dtype=np.int64)
    return run.run(everyone, everyone.copy(), transport=transport)


def cc_reference(graph: Graph) -> np.ndarray:
    """SciPy's components relabelled by their least vertex id: the reference of `connected_components`."""
    graph = _check_graph(graph)
    _, component = scipy_components(graph.to_scipy(weighted=False), directed=False)
    least = np.full(int(component.max()) + 1 if graph.n else 0, graph.n, dtype=np.int64)
    np.minimum.at(least, component, np.arange(graph.n, dtype=np.int64))
    return least[component]
