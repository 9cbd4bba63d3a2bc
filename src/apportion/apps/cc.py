"""Connected components across several devices on the asynchronous runtime.

`connected_components(graph, devices=2, method=...)` labels every vertex with the least vertex id of its
component (so two vertices share a label exactly when they are connected), by one of two methods:

- "topology" (default; seed 003 §5.1.4, "a topology-driven variant ... which does not use a worklist"): the host
  cuts the edge list into segments and a router hands each to the first free device (`runtime.scatter`); every
  device hooks its segments' edges into its own union-find forest (hook + compress, roots always the least id);
  the forests are then folded into one by the same link operation, on the host's threads at once
  (`merge_forests`), and every vertex takes its root as label.
  The faster device processes more segments. On Ray each actor hooks into its own forest and the survivors'
  forests come back to the driver, which merges them the same way.
- "worklist": label propagation on the distributed worklist (§4.3): every vertex starts as a work item carrying
  its own id and lowers its neighbours' labels; optional soft priority on the label.

Both are exact whatever the interleaving (union-find is order-independent in its partition; labels only
decrease). `cc_reference` (SciPy's `connected_components`, relabelled by least id) is what every result is
checked against.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.sparse.csgraph import connected_components as scipy_components

from apportion._chunked import run_chunked, thread_budget
from apportion.apps._cc_kernels import cc_step, compress_forest, forest_labels, hook_segment, merge_forest_chunk
from apportion.checks import integer
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.platform.cuda import CudaKernel
from apportion.platform.device import KIND_CPU, KernelSet
from apportion.runtime.distributed_worklist import (DEFAULT_BATCH, DistributedWorklist, RunResult, WorklistProgram,
                                                    resolve_devices)
from apportion.runtime.placement import resolve_placement
from apportion.runtime.priority import check_delta
from apportion.runtime.scatter import scatter

METHODS = ("topology", "worklist")
#: edges per segment the topology-driven method hands out
DEFAULT_SEGMENT = 1 << 16

UNLABELLED = np.iinfo(np.int64).max


def _check_graph(graph) -> Graph:
    if not isinstance(graph, Graph):
        raise InputError(f"expected an apportion.Graph, got {type(graph).__name__}")
    return graph


def connected_components(graph: Graph, *, devices=2, method: str = "topology", transport: str = "threads",
                         routing: str = "ring", placement="partition", seed: int = 0, cluster: str | None = None,
                         priority_delta="off", batch: int = DEFAULT_BATCH,
                         segment: int = DEFAULT_SEGMENT) -> RunResult:
    """Component labels (the least vertex id of each vertex's component), computed by `devices` devices.

    Args:
        method: "topology" (default: edge segments by availability, union-find per device, forests merged) or
            "worklist" (label propagation; `routing`, `placement`, `priority_delta` and `batch` apply to it only).
        segment: edges per segment for "topology".
        priority_delta: "off" (default) or Δ > 0 labels for "worklist": low labels sweep first (Δ = 1 processes
            each vertex of a connected graph once, but costs one global threshold raise per component).
        devices, transport, routing, placement, seed, batch: as in `apportion.bfs`.

    Returns a RunResult with int64 `values` ("topology": `work_items` counts edges hooked, `messages` segments,
    `placement` None). Raises InputError for a bad method, segment, devices, placement, routing or Δ.
    """
    graph = _check_graph(graph)
    if method not in METHODS:
        raise InputError(f"unknown CC method {method!r}; choose one of {', '.join(METHODS)}")
    if transport not in ("threads", "ray"):
        raise InputError(f"unknown transport {transport!r} for CC; choose threads or ray")
    delta = check_delta(priority_delta, automatic=False)
    device_list = resolve_devices(devices)
    if method == "topology":
        return _topology(graph, device_list, integer(segment, "segment", low=1), transport, cluster)
    chosen = resolve_placement(placement, graph, device_list, seed)
    program = WorklistProgram("cc", cc_step, weights=np.empty(0, dtype=np.int64), initial_value=UNLABELLED,
                              dtype=np.dtype(np.int64), priority=True,
                              gpu_worker=CudaKernel("apportion.apps._worklist_cuda", "cc_worklist"))
    run = DistributedWorklist(graph, program, device_list, chosen, routing=routing, delta=delta, batch=batch)
    everyone = np.arange(graph.n, dtype=np.int64)
    return run.run(everyone, everyone.copy(), transport=transport, cluster=cluster)


HOOK_KERNELS = KernelSet(cpu=hook_segment, gpu=CudaKernel("apportion.apps._cc_hook_cuda", "hook_segment_cuda"),
                         name="hook_segment")
DEVICE_FOREST = CudaKernel("apportion.apps._cc_hook_cuda", "DeviceForest")


def _topology(graph: Graph, devices: list, segment: int, transport: str = "threads",
              cluster: str | None = None) -> RunResult:
    """Topology-driven CC: edge segments to the first free device, union-find forests merged on the host (on Ray
    the scatter copies the survivors' forests back into `forests` before the merge)."""
    if segment < 1:
        raise InputError(f"segment must be >= 1 edges, got {segment}")
    if transport == "ray" and any(device.implementation != KIND_CPU for device in devices):
        raise InputError("topology-driven CC on Ray takes CPU devices only (a CUDA device's forest stays on a GPU "
                         "of this process); use transport='threads' or method='worklist' for CUDA devices")
    started = time.perf_counter()
    n = graph.n
    sources, targets, _ = graph.edges()  # each undirected edge once; made on the graph's first query and kept
    messages = [(sources[s:s + segment], targets[s:s + segment]) for s in range(0, len(sources), segment)]
    # a CPU device hooks into a host array of the graph's id type (int32 below 2^31 vertices: half the memory
    # traffic of the merge); a CUDA device's forest stays on the GPU (apps/_cc_hook_cuda.py)
    forests = [np.arange(n, dtype=sources.dtype) if device.implementation == KIND_CPU else DEVICE_FOREST(device, n)
               for device in devices]
    run = scatter(messages, devices, HOOK_KERNELS, [(forest,) for forest in forests], transport=transport,
                  cluster=cluster)
    forests = [forest if isinstance(forest, np.ndarray) else forest.download() for forest in forests]
    alive = [forest for index, forest in enumerate(forests) if index not in run.failed]
    merged = alive[0]
    for other in alive[1:]:  # a dead device's forest is partial: its segments were redone by the others
        merge_forests(merged, other)
    labels = np.empty(n, dtype=np.int64)
    forest_labels(merged, labels)
    run.trace.fill_idle(0, 0.0, run.time_s)  # a device's gaps between segments: waiting
    return RunResult(values=labels, time_s=time.perf_counter() - started, work_items=sum(run.items),
                     messages=run.messages, bytes_moved=run.bytes_moved, trace=run.trace, placement=None,
                     devices=[d.name for d in devices], per_device=run.items, segments=run.segments,
                     routing="any", transport=transport, failures=run.failures)


#: vertices per chunk of the forests' merge (`merge_forests`)
MERGE_CHUNK = 1 << 14


def merge_forests(parent: np.ndarray, other: np.ndarray, chunk: int = MERGE_CHUNK) -> None:
    """Fold another device's forest into `parent` (both union-find forests over all n ids whose roots are their
    trees' least ids): `parent` is compressed, so that its root finds start one step from the root, then every
    (v, other's parent of v) is linked into it by the threads at once, `chunk` vertices at a time
    (`_cc_kernels.merge_forest_chunk`, roots hooked by compare-and-swap; on one thread without it, which
    costs a third more per link). The merge was the serial tail of a two-device run: on road 2^20 the merge and
    the labels took 13.1 of 23.4 ms with two equal devices, 7.7-8.8 of 24.7-26.3 ms beside a device throttled
    3× (2026-11-28)."""
    compress_forest(parent)
    chunks = max(1, -(-parent.shape[0] // chunk))
    run_chunked(merge_forest_chunk, chunks, parent, other, thread_budget() > 1 and chunks > 1)


def cc_reference(graph: Graph) -> np.ndarray:
    """SciPy's components relabelled by their least vertex id: the reference of `connected_components`."""
    graph = _check_graph(graph)
    _, component = scipy_components(graph.to_scipy(weighted=False), directed=False)
    least = np.full(int(component.max()) + 1 if graph.n else 0, graph.n, dtype=np.int64)
    np.minimum.at(least, component, np.arange(graph.n, dtype=np.int64))
    return least[component]
