"""PageRank across several devices by residual push on the asynchronous runtime (seed 003 §4.5, §5.1.3).

`pagerank(graph, devices=2, alpha=0.85, tolerance=1e-3, ...)` returns ranks summing to 1 — the PageRank of the
graph with teleport probability 1 - α and the mass of isolated vertices spread uniformly — within L1 distance
`tolerance` of the exact vector (a guarantee, see below). The unnormalised ranks x* solve x = α Pᵀ x + b with
b = (1 - α) / n per vertex; the run keeps ranks x and residuals r = b + α Pᵀ x - x. A device processes its
vertices whose residual is at least ε in absolute value (moving the residual to the rank and pushing α / deg of
it to each neighbour, remote shares merged in halo entries and sent in batches; the kernel sweeps its vertices in
memory order, `_pagerank_kernels.py`), until no residual is left at ε or above anywhere.

The start (`start_ranks`). The push starts from the *degree start* x⁰_v = (1 - α)/n + α deg(v) |C| / (n vol(C))
on each connected component C (vol = the sum of the degrees; an isolated vertex gets b, its exact rank) — the
random walk's stationary distribution blended with the teleport, whose total on each component is already the
exact one, |C| / n — improved by START_STEPS = 2 Jacobi steps x ← b + α Pᵀ x (each one parallel pass over the
arcs; they keep every component's total). Its residuals are signed and small, and only the error *within*
components is left to push; starting from x = 0 (every residual b > 0) the push must first build the whole
mass, at a loss of 1 - α per generation. The Jacobi steps are for heavy-tailed graphs: the degree start is
furthest from the answer at the hubs (rmat 18's largest: a residual of 10⁶ ε), and when the sweep meets the hubs
together (sorted by degree, below) the mass a hub pushes to its low-degree neighbours comes back to it only in
the next sweep — that hub pushed 25 times, its residual falling 0.75× per sweep. Arc visits per arc of the graph
to reach the same bound, one thread, the graphs of `benchmarks/runtime.py` in the degree order of one device,
from x = 0 (in the generator's ids) / the degree start / after 1 / 2 / 3 Jacobi steps (a step counted as one
visit per arc): rmat 18 30.4 / 16.3 / 15.3 / 5.7 / 7.4; Barabási–Albert 2^18 – / 10.0 / 10.0 / 5.9 / 6.2;
delaunay 2^20 24.9 / 5.9 / 5.7 / 5.8 / 6.2; road 2^20 24.6 / 13.1 / 13.7 / 14.1 / 14.6 (random orders of rmat
without steps gave 4.6–11.3 over three seeds, with two steps 5.2–5.3: the steps make the order matter no
more). The components come from a union-find pass over the arcs (`_pagerank_kernels.degree_start`, 20 ms on
rmat 18); the start is made once per graph and α and kept, so the first query pays it (the tables of
docs/runtime.md were measured with it made every query).

The run works on `runtime.placement.relabelled(graph, placement, order="degree")` (each device a contiguous block
in breadth-first order sorted by decreasing degree; made once per graph and placement) and maps the ranks back.

Convergence test, a posteriori: with D = ‖r‖₁ / (1 - α) ≥ ‖x* - x‖₁ (‖(I - α Pᵀ)⁻¹‖₁ ≤ 1 / (1 - α): Pᵀ never
adds mass) and S = Σ x, the normalised ranks are within 2 D / S of x* / S* in L1 (x / S - x* / S* =
(x - x*) / S + x* (S* - S) / (S S*), and |S* - S| ≤ D). After each run the driver raises every rank under b to b
(x*_v ≥ b, so this only brings a rank closer), computes r = b + α Pᵀ x - x from the ranks themselves (one pass
over the arcs, `error_bound`) — so the test does not trust the run's bookkeeping — and stops when the bound is at
most `tolerance`; otherwise it lowers ε and runs again from x with r as the seeds (a *phase*; `result.phases`).
The first ε is STARTING_FACTOR · tolerance (1 - α) / (2 n), and ‖r‖₁ ends at about 0.3-0.5 n ε on the
benchmark graphs, so one phase is the rule. The a-priori threshold ε₀ = tolerance (1 - α)² / (4 n)
(`residual_threshold`: ‖r‖₁ < n ε, S* ≥ 1 - α and S ≥ S* - D on any graph) guarantees the tolerance without
a test; ε never goes below it, so the loop ends. Normalising the solution of that linear system gives the
PageRank with isolated (dangling) mass redistributed uniformly (Langville & Meyer). `pagerank_reference` is the
power iteration every result is checked against.

A device that dies: the phase restarts on the survivors from its own seeds (the ranks it started from are
kept: they are the host's), `DistributedWorklist`'s "restart" recovery.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
from scipy.sparse import csr_matrix

from apportion._chunked import run_chunked
from apportion.apps._pagerank_kernels import (degree_start, pagerank_residuals_chunk, pagerank_step,
                                               signed_targets_chunk)
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.platform.cuda import CudaKernel
from apportion.runtime.distributed_worklist import DistributedWorklist, RunResult, WorklistProgram, resolve_devices
from apportion.runtime.placement import PairCache, relabelled, resolve_placement
from apportion.runtime.split import split_receive_owner

ALPHA = 0.85
DEFAULT_TOLERANCE = 1e-3
#: the first phase's ε is this / (1 − α) times the a-priori one (see `starting_threshold`)
STARTING_FACTOR = 1.5
#: vertices a device pushes per kernel call: larger batches cut the per-call Python cost (counting, tracing,
#: sending), smaller ones send the other devices their shares sooner — on rmat 18, whose balanced 2-way cut is 45 %
#: of the arcs, batches of 2^12 / 2^14 / 2^16 / 2^18 gave 15.0 / 17.1 / 24.0 / 34.7 n pushes (a device pushing
#: mass that the other has not sent yet pushes again later), while delaunay 2^20 does 24.9-25.1 n at any size
#: and ran 2.0 s with 2^14 against 1.3 s with 2^16 (one process, best of 3, load 2-3.6)...
PAGERANK_BATCH = 1 << 16
#: halo entries a batch lists (and sends at its end) before it switches to scanning for them, and the remote arcs
#: per vertex of the graph between two scans (`_pagerank_kernels` docstring). On a placement with a small cut
#: (delaunay, road) the list never fills; rmat 18 on two devices, best of 3 in one run (quiet machine): list
#: 2^12 / 2^13 / 2^14 with scans every 0.75 n: 0.48 / 0.48 / 0.50 s; every n: 0.43 / 0.46 / 0.48 s; every 1.5 n:
#: 0.44 / 0.44 / 0.48 s; every 0.25 n: 0.61-0.76 s (before the scans, ending the batch at 2^13 / 2^15 / 2^17
#: listed entries and sending them: 0.97 / 0.60 / 0.57 s)
FLUSH_ITEMS = 1 << 13
SCAN_EVERY = 1.0
#: `extra` past the ranks: ε, FLUSH_ITEMS, SCAN_EVERY · n, scan mode, remote arcs since the last scan
EXTRA_SLOTS = 5
#: Jacobi steps x ← b + α Pᵀ x applied to the degree start before the push (module docstring)
START_STEPS = 2


def _check_graph(graph) -> Graph:
    if not isinstance(graph, Graph):
        raise InputError(f"expected an apportion.Graph, got {type(graph).__name__}")
    if graph.n == 0:
        raise InputError("PageRank needs at least one vertex")
    return graph


def _check_parameters(alpha, tolerance) -> tuple[float, float]:
    for name, value in (("alpha", alpha), ("tolerance", tolerance)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise InputError(f"{name} must be a number, got {value!r}")
    alpha, tolerance = float(alpha), float(tolerance)
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must be in (0, 1), got {alpha:g}")
    if not 0.0 < tolerance < 2.0:
        raise InputError(f"tolerance must be in (0, 2), got {tolerance:g}")
    return alpha, tolerance


def residual_threshold(n: int, alpha: float, tolerance: float) -> float:
    """The a-priori ε: every residual under it in absolute value guarantees an L1 error of at most `tolerance`
    on any graph (module docstring); the a-posteriori test stops long before ε falls this low."""
    return tolerance * (1.0 - alpha) ** 2 / (4.0 * n)


def starting_threshold(n: int, alpha: float, tolerance: float) -> float:
    """The first phase's ε: 2 STARTING_FACTOR / (1 - α) times the a-priori one (module docstring)."""
    return STARTING_FACTOR * tolerance * (1.0 - alpha) / (2.0 * n)


def start_ranks(graph: Graph, alpha: float, share: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the unnormalised ranks the push starts from, their residuals): the degree start (1 − α)/n + α deg(v) |C| /
    (n vol(C)) on each component C — the random walk's stationary distribution blended with the teleport, with
    each component's exact total |C| / n — after START_STEPS Jacobi steps (module docstring). `share` is α / deg
    per vertex (0 where isolated). Made once per graph and α while the graph lives (like the signed targets:
    a graph's queries share it) and returned read-only."""
    def make() -> tuple[np.ndarray, np.ndarray]:
        ranks = np.empty(graph.n, dtype=np.float64)
        degree_start(graph.indptr, graph.indices, float(alpha), ranks)
        base = (1.0 - alpha) / graph.n
        _, residuals = error_bound(graph.indptr, graph.indices, share, ranks, base, alpha)
        for _ in range(START_STEPS):
            ranks += residuals  # x ← b + α Pᵀ x
            _, residuals = error_bound(graph.indptr, graph.indices, share, ranks, base, alpha)
        ranks.flags.writeable = residuals.flags.writeable = False
        return ranks, residuals
    return _STARTS.get(graph, graph, float(alpha), make)


def error_bound(indptr, indices, share, ranks, base: float, alpha: float) -> tuple[float, np.ndarray]:
    """(an upper bound on the L1 distance between the normalised `ranks` (all positive) and the exact PageRank,
    the residual vector r = b + α Pᵀ x − x). With D = ‖r‖₁ / (1 − α) ≥ ‖x* − x‖₁ and S = Σ x,
    ‖x / S − x* / S*‖₁ ≤ 2 D / S (module docstring)."""
    n = ranks.shape[0]
    residuals = np.empty(n, dtype=np.float64)
    chunks = max(1, min(64, n // 4096))
    norms = np.zeros(chunks, dtype=np.float64)
    run_chunked(pagerank_residuals_chunk, chunks, indptr, indices, share, ranks, base, residuals, norms)
    # rounding: each residual is a sum of up to deg + 2 terms of at most max(x) — far below ε in practice, but
    # counted, so that the bound stays a bound
    slack = n * 4.0 * np.finfo(np.float64).eps * (float(ranks.max()) if n else 0.0) * 8.0
    distance = (float(norms.sum()) + slack) / (1.0 - alpha)
    total = float(ranks.sum())
    if total <= 0.0:
        return np.inf, residuals
    return 2.0 * distance / total, residuals


def pagerank(graph: Graph, *, devices=2, transport: str = "threads", routing: str = "ring",
             placement="partition", seed: int = 0, cluster: str | None = None, alpha: float = ALPHA,
             tolerance: float = DEFAULT_TOLERANCE,
             batch: int = PAGERANK_BATCH) -> RunResult:
    """PageRank (ranks summing to 1, L1 distance ≤ `tolerance` to the exact vector), computed by `devices`.

    Arguments as in `apportion.bfs` (no source), plus `alpha` (damping, 0.85) and `tolerance`; `batch`
    (vertices pushed per kernel call) defaults to PAGERANK_BATCH.
    Returns a RunResult with float64 `values`; `phases` says how many runs the a-posteriori test needed.
    Raises InputError for bad alpha, tolerance, devices, placement.
    """
    graph = _check_graph(graph)
    alpha, tolerance = _check_parameters(alpha, tolerance)
    n = graph.n
    floor = residual_threshold(n, alpha, tolerance)
    epsilon = max(starting_threshold(n, alpha, tolerance), floor)
    base = (1.0 - alpha) / n
    device_list = resolve_devices(devices)
    chosen = resolve_placement(placement, graph, device_list, seed)
    original_placement = chosen
    graph, chosen, new_of_old = relabelled(graph, chosen, order="degree")
    degrees = np.diff(graph.indptr)
    share = np.where(degrees > 0, alpha / np.maximum(degrees, 1), 0.0)
    started = time.perf_counter()
    ranks, residuals = start_ranks(graph, alpha, share)
    start_s = time.perf_counter() - started
    results = []
    while True:
        seeds = np.flatnonzero(residuals != 0.0).astype(np.int64)
        seed_values = residuals[seeds]
        program = WorklistProgram("pagerank", pagerank_step, weights=share, initial_value=0.0,
                                  dtype=np.dtype(np.float64), on_receive=split_receive_owner,
                                  make_extra=_extra_maker(ranks, epsilon), output=_ranks_of,
                                  recovery="restart", arc_targets=signed_targets, out_capacity=_out_capacity,
                                  gpu_worker=CudaKernel("apportion.apps._worklist_cuda", "pagerank_worklist"))
        run = DistributedWorklist(graph, program, device_list, chosen, routing=routing, batch=batch)
        results.append(run.run(seeds, seed_values, transport=transport, cluster=cluster))
        started = time.perf_counter()
        # every x*_v ≥ b: a rank under b (a negative residual pushed) is raised to it, which brings it closer
        ranks = np.maximum(results[-1].values, base)
        bound, residuals = error_bound(graph.indptr, graph.indices, share, ranks, base, alpha)
        results[-1].time_s += time.perf_counter() - started
        if bound <= tolerance or epsilon <= floor:
            break  # at ε ≤ the a-priori threshold the bound holds whatever the test says (rounding)
        # the residuals shrink about in proportion to ε: aim under the tolerance with a margin
        epsilon = max(floor, epsilon * min(0.5, 0.8 * tolerance / bound))
    results[0].time_s += start_s
    result = _merge(results)
    result.values = (ranks / ranks.sum())[new_of_old]
    result.placement = original_placement
    return result


#: (graph, owner array) -> signed targets: a placement's queries share them
_SIGNED = PairCache()
#: (graph, graph, α) -> the start's ranks and residuals (`start_ranks`)
_STARTS = PairCache()


def signed_targets(graph: Graph, owner: np.ndarray) -> np.ndarray:
    """The arc targets PageRank's kernel reads: u for an arc v → u within one device, -u - 1 across devices,
    each row's own-device arcs first. Kept while the graph and a read-only owner array (a placement's) live, so
    that the queries of one placement make them once (30 ms per query on rmat 18); a writable owner array might
    change, so its targets are made afresh."""
    def make() -> np.ndarray:
        out = np.empty(graph.indices.shape[0], dtype=np.int64 if graph.n >= 2**31 - 1 else np.int32)
        chunks = max(1, min(64, graph.n // 4096))
        run_chunked(signed_targets_chunk, chunks, graph.indptr, graph.indices, owner, out)
        return out
    return make() if owner.flags.writeable else _SIGNED.get(graph, owner, None, make)


def _out_capacity(n: int, batch: int, max_degree: int) -> int:
    """Out buffers for every vertex at once: a scan sends each other device's vertex at most once."""
    return n + max_degree + 1


def _extra_maker(ranks, epsilon: float):
    """make_extra for one phase: the ranks so far (zeros in the first), then ε, FLUSH_ITEMS, SCAN_EVERY · n and
    the kernel's two slots of scan state (EXTRA_SLOTS in all)."""
    def make_extra(size: int) -> np.ndarray:
        extra = np.zeros(size + EXTRA_SLOTS, dtype=np.float64)
        if ranks is not None:
            extra[:size] = ranks
        extra[size] = epsilon
        extra[size + 1] = FLUSH_ITEMS
        extra[size + 2] = max(1.0, SCAN_EVERY * size)
        return extra
    return make_extra


def _ranks_of(state) -> np.ndarray:
    return state.extra[:-EXTRA_SLOTS]


def _merge(results: list[RunResult]) -> RunResult:
    """One RunResult for the phases of a query: counts and times added, the traces laid end to end."""
    first = results[0]
    if len(results) == 1:
        first.phases = 1
        return first
    offset = 0.0
    for earlier, later in zip(results, results[1:]):
        offset += earlier.time_s
        first.trace.intervals += [replace(i, start=i.start + offset, end=i.end + offset)
                                  for i in later.trace.intervals]
        first.time_s += later.time_s
        first.work_items += later.work_items
        first.messages += later.messages
        first.bytes_moved += later.bytes_moved
        first.edges_relaxed += later.edges_relaxed
        first.failures += later.failures
        first.recovery_s += later.recovery_s
        for index, items in enumerate(later.per_device):  # every phase runs on the same device list
            first.per_device[index] += items
    first.phases = len(results)
    return first


def pagerank_reference(graph: Graph, alpha: float = ALPHA, tolerance: float = 1e-13) -> np.ndarray:
    """PageRank by power iteration (isolated vertices' mass spread uniformly) until the L1 change is under
    `tolerance`: the reference of `pagerank`."""
    graph = _check_graph(graph)
    alpha, _ = _check_parameters(alpha, 1e-3)
    n = graph.n
    degrees = np.diff(graph.indptr).astype(np.float64)
    matrix = csr_matrix((np.ones(len(graph.indices)), graph.indices, graph.indptr), shape=(n, n))
    dangling = degrees == 0
    inverse = np.where(dangling, 0.0, 1.0 / np.maximum(degrees, 1.0))
    ranks = np.full(n, 1.0 / n)
    for _ in range(10000):
        spread = matrix.T @ (ranks * inverse)
        updated = alpha * spread + (alpha * ranks[dangling].sum() + 1.0 - alpha) / n
        change = np.abs(updated - ranks).sum()
        ranks = updated
        if change < tolerance:
            break
    return ranks / ranks.sum()
