"""Graph placement: which device owns which vertex (seed 003 §4.6.1: "it then runs the partitioner (in our case,
the METIS algorithm) to construct partitions of the graph by assigning an equal number of vertices to each GPU";
§4.5: "each device statically maintains ownership of a contiguous memory segment").

`place(graph, devices=2, method="partition", seed=0, speeds=None) -> Placement` is preprocessing, done once per
graph and device set and passed to every app (`placement=`), so that many queries pay for it once; its time is
reported apart (`Placement.time_s`), never in an app's `time_s`.

Methods:
- "partition" (default): the project's multilevel partitioner (`apportion.partition`) with block targets
  proportional to the devices' speeds: `speeds` when given, else, when a list of devices is given, their
  measured speeds (`Device.peak_flops`: a CPU device's is measured once per machine and cached, see
  `apportion.platform.calibrate`; a `ThrottledDevice` 3x slower is credited a third of its inner device's; a
  simulated device's is its model's), else equal;
- "ranges": equal contiguous ranges of vertex ids (Groute's fallback when partitioning fails);
- "random": every vertex to a uniformly random device (seeded) — the worst case for communication.

What "balanced" means (`balance=`): "work" (default) weighs every vertex by its degree + 1 for the partition —
a worklist app's cost of a vertex is its queue slot plus its arcs, so each device's share of the *arcs* follows
its speed (on rmat, equal vertex counts gave one device the hubs and the other the isolated vertices: a throttled
device got a fifth of the vertices and no work); "vertices" counts vertices, as the paper does. "ranges" and
"random" always count vertices.

`relabelled(graph, placement, order)` renumbers the vertices device by device (each device's block in breadth-first
order, or that order sorted by decreasing degree; cached per graph, placement and order): BFS ("bfs") and
PageRank ("degree") run on that numbering and map their values back.

Every device holds the state of every vertex (the paper's choice for graphs that fit); ownership decides who
processes a vertex, and the others keep halo copies only to filter useless updates.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass

import numpy as np
from numba import njit

from apportion.checks import check_seed
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.reorder import bfs_order
from apportion.partitioning.vertex.multilevel import partition

METHODS = ("partition", "ranges", "random")
BALANCES = ("work", "vertices")


@dataclass(frozen=True)
class Placement:
    """`owner[v]` is the device (0..k-1) of vertex v; `k` devices; how it was made and how long it took."""

    owner: np.ndarray
    k: int
    method: str
    seed: int = 0
    time_s: float = 0.0
    cut: int = 0  # edges {u, v} whose ends have different owners

    def __post_init__(self) -> None:
        if not isinstance(self.owner, np.ndarray):  # a list from the caller
            object.__setattr__(self, "owner", np.asarray(self.owner))
        self.owner.setflags(write=False)

    @property
    def n(self) -> int:
        return int(len(self.owner))

    def sizes(self) -> np.ndarray:
        """Vertices per device."""
        return np.bincount(self.owner, minlength=self.k)

    def check(self, graph: Graph, k: int | None = None) -> "Placement":
        """This placement, after checking it fits `graph` (and `k` devices when given)."""
        if self.n != graph.n:
            raise InputError(f"placement has {self.n} vertices, the graph {graph.n}")
        if k is not None and self.k != k:
            raise InputError(f"placement is for {self.k} devices, the run has {k}")
        owner = self.owner
        if owner.ndim != 1 or not np.issubdtype(owner.dtype, np.integer):
            raise InputError(f"placement owner must be a vector of integer device ids, got {owner.dtype} of shape "
                             f"{owner.shape}")
        if owner.size:
            wrong = np.flatnonzero((owner < 0) | (owner >= self.k))
            if wrong.size:  # an owner no device has: its items were counted but never delivered (a hang)
                v = int(wrong[0])
                raise InputError(f"placement gives vertex {v} to device {int(owner[v])}, but there are only "
                                 f"{self.k} devices (ids 0..{self.k - 1})")
        return self


def _device_count(devices) -> int:
    if isinstance(devices, (int, np.integer)) and not isinstance(devices, bool):
        count = int(devices)
    elif isinstance(devices, (list, tuple)):
        count = len(devices)
    else:
        raise InputError(f"devices must be a count or a list of devices, got {devices!r}")
    if count < 1:
        raise InputError(f"devices must be at least 1, got {count}")
    return count


def _targets(speeds, k: int, devices=None):
    """Block targets (shares summing to 1) from `speeds`, else from the devices' measured speeds; None = equal
    (a count of devices, devices of one speed, or a device whose speed is unknown)."""
    if speeds is None and isinstance(devices, (list, tuple)):
        peaks = [getattr(device, "peak_flops", None) for device in devices]
        if all(peak is not None and peak > 0 for peak in peaks) and len(set(peaks)) > 1:
            speeds = peaks
    if speeds is None:
        return None
    try:
        shares = np.asarray(speeds, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"speeds must be {k} positive numbers, got {speeds!r}") from None
    if shares.shape != (k,) or not np.all(np.isfinite(shares)) or np.any(shares <= 0):
        raise InputError(f"speeds must be {k} positive numbers, got {speeds!r}")
    return shares / shares.sum()


def ranges_owner(n: int, k: int) -> np.ndarray:
    """Equal contiguous ranges: vertex v to device floor(v k / n)."""
    return (np.arange(n, dtype=np.int64) * k // max(n, 1)).astype(np.int32)


def cut_edges(graph: Graph, owner: np.ndarray) -> int:
    """Undirected edges whose two ends have different owners."""
    return int(_cut_arcs(graph.indptr, graph.indices, np.ascontiguousarray(owner))) // 2


@njit(cache=True, nogil=True)
def _cut_arcs(indptr, indices, owner):
    cut = 0
    for v in range(indptr.shape[0] - 1):
        mine = owner[v]
        for e in range(indptr[v], indptr[v + 1]):
            cut += owner[indices[e]] != mine
    return cut


def feasible_imbalance(n: int, k: int, targets=None, weights: np.ndarray | None = None) -> float:
    """The partitioner's imbalance for a placement: 3 %, or what whole vertices need on a small graph (3
    vertices cannot be split 1.5 + 1.5; with `weights`, a block must be able to take one more of the heaviest
    vertex beyond its share). Ownership needs balance, not the partitioner's hard 3 %."""
    shares = np.full(k, 1.0 / k) if targets is None else np.asarray(targets, dtype=np.float64)
    if weights is None:
        ideal = shares * n
        needed = float(np.max(np.ceil(ideal - 1e-9) / np.maximum(ideal, 1e-300))) - 1.0
    else:
        total = float(weights.sum())
        ideal = np.ceil(shares * total - 1e-9)
        heaviest = float(weights.max()) if len(weights) else 0.0
        needed = float(np.max((ideal + heaviest) / np.maximum(ideal, 1e-300))) - 1.0
    return max(0.03, needed + 1e-6)


def work_weights(graph: Graph) -> np.ndarray:
    """A worklist app's cost of each vertex: its degree + 1 (int64, the partitioner's vertex weights)."""
    return np.diff(graph.indptr).astype(np.int64) + 1


def place(graph: Graph, devices=2, method: str = "partition", seed: int = 0, speeds=None,
          balance: str = "work") -> Placement:
    """Assign every vertex of `graph` to one of `devices` (a count or a list of devices).

    Args:
        graph: an `apportion.Graph`.
        devices: how many devices (or the devices themselves: their count is used).
        method: "partition" (default), "ranges" or "random" (module docstring).
        seed: seeds the partitioner and the random placement.
        speeds: relative device speeds (k positive numbers) for the partition's block targets; None = the
            devices' measured speeds (`peak_flops`) when `devices` is a list of devices, else equal.
        balance: "work" (default: a partition's blocks weigh degree + 1 per vertex) or "vertices" (module
            docstring).

    Returns a `Placement`. Raises InputError for an unknown method, a bad device count or bad speeds.
    With more devices than vertices, or when no balanced partition exists, "partition" falls back to "ranges"
    (the returned placement's `method` says so).
    """
    if not isinstance(graph, Graph):
        raise InputError(f"place: expected an apportion.Graph, got {type(graph).__name__}")
    if method not in METHODS:
        raise InputError(f"unknown placement {method!r}; choose one of {', '.join(METHODS)}")
    if balance not in BALANCES:
        raise InputError(f"unknown balance {balance!r}; choose one of {', '.join(BALANCES)}")
    seed = check_seed(seed)  # a bad seed was taken for "no balanced partition" and gave ranges
    k = _device_count(devices)
    targets = _targets(speeds, k, devices)
    started = time.perf_counter()
    n = graph.n
    if method == "random":
        owner = np.random.default_rng(seed).integers(0, k, size=n).astype(np.int32)
    elif method == "ranges" or k == 1 or n < k:
        owner = ranges_owner(n, k)
    else:
        weights = work_weights(graph) if balance == "work" else None
        weighted = graph if weights is None else graph.with_weights(vertex_weights=weights)
        try:
            owner = np.ascontiguousarray(partition(weighted, k, targets=targets, seed=seed,
                                                   imbalance=feasible_imbalance(n, k, targets, weights)).assignment,
                                         dtype=np.int32)
        except InputError:
            # no balanced partition exists (heavy vertices): Groute's fallback, equal ranges
            owner, method = ranges_owner(n, k), "ranges"
    elapsed = time.perf_counter() - started
    return Placement(owner=owner, k=k, method=method, seed=int(seed), time_s=elapsed, cut=cut_edges(graph, owner))


def resolve_placement(placement, graph: Graph, devices: list, seed: int) -> Placement:
    """A Placement for this run on `devices`: the one given (checked), or one made by its method name."""
    if isinstance(placement, Placement):
        return placement.check(graph, len(devices))
    if isinstance(placement, str):
        return place(graph, list(devices), method=placement, seed=seed)
    raise InputError(f"placement must be one of {', '.join(METHODS)} or a Placement, got {placement!r}")


class PairCache:
    """Values made from two objects, kept while both live: keyed by their identities (and a tag), each entry
    holding weak references that prove the ids were not reused. For preprocessing that many queries share (a
    relabelling per graph and placement; PageRank's signed targets per graph and owner array)."""

    def __init__(self) -> None:
        self._entries: dict = {}

    def get(self, first, second, tag, make):
        """The value for (first, second, tag), made by `make()` when there is none."""
        key = (id(first), id(second), tag)
        entry = self._entries.get(key)
        if entry is not None and entry[0]() is first and entry[1]() is second:
            return entry[2]
        value = make()
        for stale in [k for k, e in self._entries.items() if e[0]() is None or e[1]() is None]:
            del self._entries[stale]
        self._entries[key] = (weakref.ref(first), weakref.ref(second), value)
        return value


#: (graph, placement, order) -> (relabelled graph, relabelled placement, new_of_old)
_RELABELLED = PairCache()
#: the orders of a device's block in `relabelled`
RELABEL_ORDERS = ("bfs", "degree")


def relabelled(graph: Graph, placement: Placement, order: str = "bfs") -> tuple[Graph, Placement, np.ndarray]:
    """The graph (its pattern: no weights) and placement with the vertices renumbered device by device, and
    new_of_old (old vertex v is new vertex new_of_old[v]): Groute's layout, each device owning a contiguous block.
    Each row keeps its arcs in their old order, so unlike other Graphs its neighbour lists are not sorted (the
    kernels that run on it do not need them sorted; `Graph.edges()` does not either).

    `order` = "bfs": each block in breadth-first order, so that a kernel reads and writes near ids instead of
    scattered ones (two devices, 2^20: PageRank on delaunay 1.8-5.0 s -> 0.42-0.97 s, BFS on road 0.18 -> 0.06 s,
    same process, load 2.4-3.2). "degree": the same order sorted (stably) by decreasing degree — the residuals and
    ranks of the vertices that most arcs reach share cache lines; PageRank, two devices, best of 5 (quiet
    machine): rmat 18 0.456 -> 0.407 s, delaunay 2^20 0.342 -> 0.290 s, road 2^20 0.269 -> 0.214 s (BFS on it:
    within 10 % either way, so BFS keeps "bfs"). Made once per (graph, placement, order) while both live — like
    the placement itself, preprocessing that every later query reuses (0.1-0.4 s at 2^20, paid by the first
    query). BFS, SSSP (with `relabelled_arc_values` for its weights) and PageRank run on it and map their values
    back."""
    if order not in RELABEL_ORDERS:
        raise InputError(f"unknown relabelling order {order!r}; choose one of {', '.join(RELABEL_ORDERS)}")
    return _RELABELLED.get(graph, placement, order, lambda: _relabel(graph, placement, order))


def _relabel(graph: Graph, placement: Placement, order: str) -> tuple[Graph, Placement, np.ndarray]:
    """`relabelled`'s work, uncached."""
    n = graph.n
    by_bfs = bfs_order(graph)
    if order == "degree":
        by_bfs = by_bfs[np.argsort(-np.diff(graph.indptr)[by_bfs], kind="stable")]
    permutation = by_bfs[np.argsort(placement.owner[by_bfs], kind="stable")]
    new_of_old = np.empty(n, dtype=np.int64)
    new_of_old[permutation] = np.arange(n, dtype=np.int64)
    indptr = np.empty(n + 1, dtype=np.int64)
    indices = np.empty_like(graph.indices)
    permute_csr(graph.indptr, graph.indices, permutation, new_of_old, indptr, indices)
    renumbered = Graph._trusted(indptr, indices, name=graph.name)
    moved = Placement(owner=np.ascontiguousarray(placement.owner[permutation]), k=placement.k, method=placement.method,
                      seed=placement.seed, time_s=placement.time_s, cut=placement.cut)
    return renumbered, moved, new_of_old


def relabelled_arc_values(graph: Graph, renumbered: Graph, new_of_old: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per-arc `values` of `graph` (aligned with graph.indices: SSSP's weights) moved to the arcs of `renumbered`
    = `relabelled(graph, ...)[0]`, whose row new_of_old[v] lists row v's arcs in their old order."""
    order = np.empty(graph.n, dtype=np.int64)
    order[new_of_old] = np.arange(graph.n, dtype=np.int64)
    out = np.empty_like(values)
    permute_arc_values(graph.indptr, order, renumbered.indptr, values, out)
    return out


@njit(cache=True, nogil=True)
def permute_arc_values(indptr, order, new_indptr, values, out):
    """out's row i = values' row order[i], arc for arc (the arcs `permute_csr` moved)."""
    for i in range(order.shape[0]):
        at = new_indptr[i]
        for e in range(indptr[order[i]], indptr[order[i] + 1]):
            out[at] = values[e]
            at += 1


@njit(cache=True, nogil=True)
def permute_csr(indptr, indices, order, new_of_old, new_indptr, new_indices):
    """The CSR arrays of the graph relabelled so that new vertex i is old vertex order[i]."""
    n = indptr.shape[0] - 1
    new_indptr[0] = 0
    for i in range(n):
        v = order[i]
        new_indptr[i + 1] = new_indptr[i] + indptr[v + 1] - indptr[v]
    for i in range(n):
        v = order[i]
        at = new_indptr[i]
        for e in range(indptr[v], indptr[v + 1]):
            new_indices[at] = new_of_old[indices[e]]
            at += 1
