"""The immutable CSR graph every part of apportion works on.

A `Graph` is undirected and simple: every edge {u, v} with u != v is stored twice (u→v and v→u), there are no
self-loops and no duplicate edges, and edge weights (when present) are positive integers equal in both
directions. Vertex weights are positive-or-zero integers, one column per balance constraint (`ncon`).

Offsets (`indptr`) are int64; neighbour ids (`indices`) are int32 while n < 2^31, int64 beyond.
Construction goes through `Graph.from_edges`, `from_scipy`, `from_networkx` or `from_csr`, which validate and
normalise; the plain dataclass constructor trusts its caller (the library's own kernels use it with `check=False`
semantics by calling `Graph._trusted`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from apportion.errors import InputError
from apportion.graph._edges_kernels import upper_edges

INT32_MAX = np.iinfo(np.int32).max

#: the largest total weight a graph may have, per vertex-weight constraint and over the stored (twice counted)
#: edge entries: 2^62 leaves the partitioners' int64 sums (block weights, cuts, limits (1 + ε)·share·W) room
#: without overflow; a graph beyond it is refused rather than reported with wrapped, negative totals
MAX_TOTAL_WEIGHT = 2**62


def _check_total_weight(weights: np.ndarray | None, what: str) -> None:
    """InputError when a column sum of int64 `weights` exceeds MAX_TOTAL_WEIGHT. A plain NumPy int64 sum would
    wrap silently, so the sum is taken exactly when max · count could reach the limit: each weight split into
    its high and low 31 bits, two int64 sums that cannot overflow (fewer than 2^31 rows), joined in Python."""
    if weights is None or weights.size == 0:
        return
    rows = weights.shape[0]
    if int(weights.max()) <= MAX_TOTAL_WEIGHT // rows:
        return
    columns = weights.reshape(rows, -1)
    for c in range(columns.shape[1]):
        column = columns[:, c]
        total = (int((column >> 31).sum()) << 31) + int((column & ((1 << 31) - 1)).sum())
        if total > MAX_TOTAL_WEIGHT:
            which = f" (constraint {c})" if columns.shape[1] > 1 else ""
            raise InputError(f"{what}{which} add up to {total}, beyond the supported total of 2^62 "
                             f"({MAX_TOTAL_WEIGHT}); scale the weights down")


def index_dtype(n: int) -> np.dtype:
    """The dtype of neighbour ids for a graph with n vertices."""
    return np.dtype(np.int32) if n <= INT32_MAX else np.dtype(np.int64)


def _as_int_weights(values: Any, what: str, *, allow_zero: bool) -> np.ndarray:
    """Integer weights from any numeric array; reject negatives, zeros (unless allowed) and fractions."""
    arr = np.asarray(values)
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    if not np.issubdtype(arr.dtype, np.number):
        raise InputError(f"{what} must be numeric, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise InputError(f"{what} must be finite numbers")
        rounded = np.rint(arr)
        if not np.array_equal(rounded, arr):
            bad = int(np.flatnonzero((rounded != arr).ravel())[0])
            raise InputError(f"{what} must be integers; entry {bad} is {arr.ravel()[bad]!r}")
        arr = rounded
    arr = arr.astype(np.int64, copy=False)
    if arr.size:
        low = arr.min()
        if low < 0 or (low == 0 and not allow_zero):
            bad = int(np.flatnonzero((arr < 0 if low < 0 else arr == 0).ravel())[0])
            kind = "negative" if low < 0 else "zero"
            raise InputError(f"{what} must be {'non-negative' if allow_zero else 'positive'}; "
                             f"entry {bad} is {kind} ({arr.ravel()[bad]})")
    return np.ascontiguousarray(arr)


@dataclass(frozen=True, eq=False)
class Graph:
    """An undirected simple graph in CSR form (see the module docstring for the invariants).

    Attributes:
        indptr: int64 array of length n + 1; the neighbours of v are indices[indptr[v]:indptr[v + 1]].
        indices: int32 (or int64 for huge graphs) array of length 2m.
        vertex_weights: None (every vertex weighs 1), an int64 array of shape (n,), or (n, ncon) for several
            balance constraints.
        edge_weights: None (every edge weighs 1) or an int64 array of length 2m aligned with `indices`.
        name: a label for reports (usually the file stem).
    """

    indptr: np.ndarray
    indices: np.ndarray
    vertex_weights: np.ndarray | None = None
    edge_weights: np.ndarray | None = None
    name: str = ""
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_total_weight(self.vertex_weights, "vertex weights")
        _check_total_weight(self.edge_weights, "edge weights (each edge counted from both ends)")
        for arr in (self.indptr, self.indices, self.vertex_weights, self.edge_weights):
            if arr is not None:
                arr.setflags(write=False)

    # ------------------------------------------------------------------ basic properties
    @property
    def n(self) -> int:
        """Number of vertices."""
        return int(self.indptr.shape[0] - 1)

    @property
    def m(self) -> int:
        """Number of undirected edges (each stored twice)."""
        return int(self.indices.shape[0] // 2)

    @property
    def ncon(self) -> int:
        """Number of vertex-weight constraints (1 when unweighted or single-weighted)."""
        if self.vertex_weights is None or self.vertex_weights.ndim == 1:
            return 1
        return int(self.vertex_weights.shape[1])

    @property
    def has_vertex_weights(self) -> bool:
        return self.vertex_weights is not None

    @property
    def has_edge_weights(self) -> bool:
        return self.edge_weights is not None

    def degrees(self) -> np.ndarray:
        """Number of neighbours of every vertex (int64)."""
        if "degrees" not in self._cache:
            deg = np.diff(self.indptr)
            deg.setflags(write=False)
            self._cache["degrees"] = deg
        return self._cache["degrees"]

    def neighbors(self, v: int) -> np.ndarray:
        return self.indices[self.indptr[v]:self.indptr[v + 1]]

    def vertex_weight_matrix(self) -> np.ndarray:
        """Vertex weights as an (n, ncon) int64 array (ones when the graph has none)."""
        if self.vertex_weights is None:
            return np.ones((self.n, 1), dtype=np.int64)
        if self.vertex_weights.ndim == 1:
            return self.vertex_weights.reshape(-1, 1)
        return self.vertex_weights

    def vertex_weight_vector(self) -> np.ndarray:
        """The first (or only) vertex-weight constraint as an int64 array of length n."""
        if self.vertex_weights is None:
            return np.ones(self.n, dtype=np.int64)
        return self.vertex_weights if self.vertex_weights.ndim == 1 else self.vertex_weights[:, 0]

    def edge_weight_array(self) -> np.ndarray:
        """Edge weights aligned with `indices` (ones when the graph has none)."""
        if self.edge_weights is None:
            return np.ones(self.indices.shape[0], dtype=np.int64)
        return self.edge_weights

    def total_vertex_weight(self) -> np.ndarray:
        """Total weight per constraint, shape (ncon,)."""
        return self.vertex_weight_matrix().sum(axis=0)

    def total_edge_weight(self) -> int:
        """Sum of the weights of the undirected edges (each counted once)."""
        if self.edge_weights is None:
            return self.m
        return int(self.edge_weights.sum() // 2)

    def sources(self) -> np.ndarray:
        """The source vertex of every stored (directed) entry, aligned with `indices`."""
        if "sources" not in self._cache:
            src = np.repeat(np.arange(self.n, dtype=self.indices.dtype), self.degrees())
            src.setflags(write=False)
            self._cache["sources"] = src
        return self._cache["sources"]

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The undirected edges once each in canonical order: (u, v) with u < v, by u then v.

        Returns (u, v, weights-or-None), read-only, made once per graph by a compiled kernel
        (`_edges_kernels.upper_edges`) and kept, like `sources()`: topology-driven CC cuts every query's edge
        segments from it. The order is the CSR order of the upper triangle: by u, then as u's row lists them
        (sorted, for every constructor here).
        """
        if "edges" not in self._cache:
            edges = upper_edges(self.indptr, self.indices, self.edge_weights)
            for array in edges:
                if array is not None:
                    array.setflags(write=False)
            self._cache["edges"] = edges
        return self._cache["edges"]

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        extras = []
        if self.vertex_weights is not None:
            extras.append(f"ncon={self.ncon}")
        if self.edge_weights is not None:
            extras.append("edge-weighted")
        more = (", " + ", ".join(extras)) if extras else ""
        return f"<Graph{label} n={self.n:,} m={self.m:,}{more}>"

    # ------------------------------------------------------------------ conversions
    def to_scipy(self, weighted: bool = True):
        """The symmetric adjacency as a `scipy.sparse.csr_array`."""
        import scipy.sparse as sp

        data = self.edge_weight_array() if weighted else np.ones(self.indices.shape[0], dtype=np.int64)
        return sp.csr_array((data, self.indices, self.indptr), shape=(self.n, self.n))

    def to_networkx(self):
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(range(self.n))
        u, v, w = self.edges()
        if w is None:
            g.add_edges_from(zip(u.tolist(), v.tolist()))
        else:
            g.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()))
        return g

    def with_name(self, name: str) -> "Graph":
        return Graph(self.indptr, self.indices, self.vertex_weights, self.edge_weights, name)

    def with_weights(self, vertex_weights: Any = "keep", edge_weights: Any = "keep") -> "Graph":
        """A copy with replaced vertex and/or edge weights (validated); "keep" keeps the current ones."""
        vw = self.vertex_weights if isinstance(vertex_weights, str) else _check_vertex_weights(vertex_weights, self.n)
        if isinstance(edge_weights, str):
            ew = self.edge_weights
        elif edge_weights is None:
            ew = None
        else:
            ew = _as_int_weights(edge_weights, "edge weights", allow_zero=False)
            if ew.shape != self.indices.shape:
                raise InputError(f"edge weights must have length 2m = {self.indices.shape[0]}, got {ew.shape[0]}")
        return Graph(self.indptr, self.indices, vw, ew, self.name)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def _trusted(cls, indptr, indices, vertex_weights=None, edge_weights=None, name: str = "") -> "Graph":
        """Wrap arrays already known to satisfy every invariant (used by kernels and readers that checked)."""
        indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        n = indptr.shape[0] - 1
        indices = np.ascontiguousarray(indices, dtype=index_dtype(n))
        if vertex_weights is not None:
            vertex_weights = np.ascontiguousarray(vertex_weights, dtype=np.int64)
        if edge_weights is not None:
            edge_weights = np.ascontiguousarray(edge_weights, dtype=np.int64)
        return cls(indptr, indices, vertex_weights, edge_weights, name)

    @classmethod
    def from_edges(
        cls,
        sources: Any,
        targets: Any,
        weights: Any = None,
        *,
        n: int | None = None,
        vertex_weights: Any = None,
        symmetrize: bool = True,
        drop_self_loops: bool = True,
        merge_duplicates: bool = True,
        name: str = "",
    ) -> "Graph":
        """Build a graph from edge arrays.

        Args:
            sources, targets: integer arrays of equal length, 0-based vertex ids.
            weights: optional positive integer edge weights (same length).
            n: number of vertices (default: largest id + 1).
            vertex_weights: optional array of shape (n,) or (n, ncon).
            symmetrize: treat each pair as undirected (add the reverse). When False, the input must already
                list every edge in both directions with equal weights; an asymmetric pair is an `InputError`.
            drop_self_loops: drop (v, v) pairs silently; when False a self-loop is an `InputError`.
            merge_duplicates: sum the weights of repeated pairs; when False a repeated pair is an `InputError`.
                With `symmetrize=True`, (u, v) and (v, u) given both are the same edge and are merged.
        """
        src = np.asarray(sources)
        dst = np.asarray(targets)
        if src.shape != dst.shape or src.ndim != 1:
            raise InputError(f"sources and targets must be 1-D arrays of equal length, got {src.shape} and {dst.shape}")
        for arr, what in ((src, "sources"), (dst, "targets")):
            if arr.size and not np.issubdtype(arr.dtype, np.integer):
                if np.issubdtype(arr.dtype, np.floating) and np.array_equal(arr, np.rint(arr)):
                    continue
                raise InputError(f"{what} must be integer vertex ids, got dtype {arr.dtype}")
        src = src.astype(np.int64, copy=False)
        dst = dst.astype(np.int64, copy=False)
        if src.size and min(src.min(), dst.min()) < 0:
            raise InputError("vertex ids must be non-negative")
        top = int(max(src.max(), dst.max())) + 1 if src.size else 0
        if n is None:
            n = top
            if vertex_weights is not None:
                n = max(n, int(np.asarray(vertex_weights).shape[0]))
        elif top > n:
            raise InputError(f"vertex id {top - 1} is out of range for n = {n}")
        w = None if weights is None else _as_int_weights(weights, "edge weights", allow_zero=False)
        if w is not None and w.shape != src.shape:
            raise InputError(f"weights must have the same length as the edges ({src.shape[0]}), got {w.shape[0]}")

        loops = src == dst
        if loops.any():
            if not drop_self_loops:
                v = int(src[np.flatnonzero(loops)[0]])
                raise InputError(f"self-loop at vertex {v} (ids 0-based)")
            keep = ~loops
            src, dst = src[keep], dst[keep]
            if w is not None:
                w = w[keep]

        if symmetrize:
            lo = np.minimum(src, dst)
            hi = np.maximum(src, dst)
            key, w = _sorted_distinct_keys(lo * n + hi, w, n, merge_duplicates)
            lo, hi = key // n, key % n
            all_src = np.concatenate([lo, hi])
            all_dst = np.concatenate([hi, lo])
            all_w = None if w is None else np.concatenate([w, w])
        else:
            key, w = _sorted_distinct_keys(src * n + dst, w, n, merge_duplicates)
            all_src, all_dst = key // n, key % n
            all_w = w
            _check_symmetric_keys(all_src, all_dst, all_w, n)

        return cls._build_sorted_csr(all_src, all_dst, all_w, n, vertex_weights, name)

    @classmethod
    def _build_sorted_csr(cls, src, dst, w, n, vertex_weights, name) -> "Graph":
        order = np.lexsort((dst, src))
        src, dst = src[order], dst[order]
        w = None if w is None else w[order]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
        vw = None if vertex_weights is None else _check_vertex_weights(vertex_weights, n)
        return cls._trusted(indptr, dst, vw, w, name)

    @classmethod
    def from_csr(
        cls,
        indptr: Any,
        indices: Any,
        *,
        edge_weights: Any = None,
        vertex_weights: Any = None,
        name: str = "",
        sort: bool = True,
    ) -> "Graph":
        """Validate CSR arrays (symmetric, no self-loops, no duplicates, ids in range) and wrap them.

        Raises `InputError` naming the first offending vertex or pair (ids 0-based).
        """
        indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        if indptr.ndim != 1 or indptr.shape[0] < 1 or indptr[0] != 0 or np.any(np.diff(indptr) < 0):
            raise InputError("indptr must start at 0 and never decrease")
        n = indptr.shape[0] - 1
        indices = np.asarray(indices)
        if indices.shape[0] != indptr[-1]:
            raise InputError(f"indptr ends at {indptr[-1]} but there are {indices.shape[0]} neighbour ids")
        indices = indices.astype(np.int64, copy=False)
        if indices.size and (indices.min() < 0 or indices.max() >= n):
            bad = int(np.flatnonzero((indices < 0) | (indices >= n))[0])
            v = int(np.searchsorted(indptr, bad, side="right") - 1)
            raise InputError(f"vertex {v} has neighbour id {indices[bad]} out of range [0, {n})")
        w = None if edge_weights is None else _as_int_weights(edge_weights, "edge weights", allow_zero=False)
        if w is not None and w.shape != indices.shape:
            raise InputError(f"edge weights must align with the neighbour ids ({indices.shape[0]}), got {w.shape[0]}")
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        loops = src == indices
        if loops.any():
            v = int(src[np.flatnonzero(loops)[0]])
            raise InputError(f"self-loop at vertex {v} (ids 0-based)")
        key = src * n + indices
        if sort:
            order = np.argsort(key, kind="stable")
            key = key[order]
            if w is not None:
                w = w[order]
        if key.size > 1:
            dups = key[1:] == key[:-1]
            if dups.any():
                d = int(key[1:][dups][0])
                raise InputError(f"duplicate edge ({d // n}, {d % n}) (ids 0-based)")
        s, d = key // n, key % n
        _check_symmetric_keys(s, d, w, n, presorted=True)
        vw = None if vertex_weights is None else _check_vertex_weights(vertex_weights, n)
        return cls._trusted(indptr, d, vw, w, name)

    @classmethod
    def from_scipy(
        cls,
        matrix: Any,
        *,
        symmetrize: bool = True,
        drop_self_loops: bool = True,
        weighted: bool | None = None,
        vertex_weights: Any = None,
        name: str = "",
    ) -> "Graph":
        """Build from a square SciPy sparse matrix (or array) of the adjacency.

        `weighted=None` keeps the values as edge weights when they are not all 1 (they must then be positive
        integers); `weighted=False` uses the pattern only. With `symmetrize=True` the pattern of A + Aᵀ is used
        and the weight of a pair present in both directions is the larger of the two. Explicit zeros are
        dropped.
        """
        import scipy.sparse as sp

        if not sp.issparse(matrix):
            raise InputError(f"expected a SciPy sparse matrix, got {type(matrix).__name__}")
        coo = sp.coo_array(matrix)
        if coo.shape[0] != coo.shape[1]:
            raise InputError(f"adjacency matrix must be square, got {coo.shape[0]}×{coo.shape[1]}")
        n = coo.shape[0]
        nonzero = coo.data != 0
        row, col, data = coo.row[nonzero].astype(np.int64), coo.col[nonzero].astype(np.int64), coo.data[nonzero]
        if weighted is None:
            weighted = bool(data.size) and not np.all(data == 1)
        weights = _integer_edge_weights(data, "the matrix", "pass weighted=False to use its pattern only, or "
                                        "scale and round the values first, e.g. Graph.from_scipy((A * 100).rint())"
                                        ) if weighted else None
        if symmetrize:
            loops = row == col
            if loops.any() and not drop_self_loops:
                raise InputError(f"self-loop at vertex {int(row[loops][0])} (ids 0-based)")
            row, col = row[~loops], col[~loops]
            weights = None if weights is None else weights[~loops]
            lo, hi, w = _merge_directions_by_max(row, col, weights, n)
            return cls.from_edges(lo, hi, w, n=n, vertex_weights=vertex_weights, name=name,
                                  merge_duplicates=False)
        return cls.from_edges(row, col, weights, n=n, vertex_weights=vertex_weights, symmetrize=False,
                              drop_self_loops=drop_self_loops, merge_duplicates=True, name=name)

    @classmethod
    def from_networkx(cls, graph: Any, *, weight: str | None = "weight", vertex_weight: str | None = None,
                      name: str = "") -> "Graph":
        """Build from a NetworkX graph; nodes are numbered in `graph.nodes` order.

        Edge attribute `weight` becomes the (integer) edge weight when every edge has it; node attribute
        `vertex_weight` likewise. Parallel edges of a multigraph add up. A directed graph is symmetrised the way
        `from_scipy` symmetrises a matrix: u→v and v→u become one undirected edge whose weight is the larger of
        the two (never their sum), so a DiGraph made from an undirected graph keeps its weights. To add
        reciprocal weights instead, convert first: `nx.Graph()` with summed weights. Self-loops are dropped.
        """
        nodes = list(graph.nodes)
        index = {v: i for i, v in enumerate(nodes)}
        n = len(nodes)
        edge_list = list(graph.edges(data=True))
        src = np.fromiter((index[u] for u, _, _ in edge_list), dtype=np.int64, count=len(edge_list))
        dst = np.fromiter((index[v] for _, v, _ in edge_list), dtype=np.int64, count=len(edge_list))
        w = None
        if weight is not None and edge_list and all(weight in d for _, _, d in edge_list):
            w = _integer_edge_weights(np.array([d[weight] for _, _, d in edge_list]), f"edge attribute {weight!r}",
                                      "pass weight=None to give every edge weight 1, or store scaled, rounded "
                                      "integer weights in another attribute and name it")
        vw = None
        if vertex_weight is not None and n and all(vertex_weight in graph.nodes[v] for v in nodes):
            vw = np.array([graph.nodes[v][vertex_weight] for v in nodes])
        if graph.is_directed() and src.size:
            keep = src != dst
            src, dst, w = src[keep], dst[keep], None if w is None else w[keep]
            if graph.is_multigraph():  # parallel arcs in one direction add up first
                key, inverse = np.unique(src * n + dst, return_inverse=True)
                w = np.bincount(inverse, weights=np.ones(src.size) if w is None else w).astype(np.int64)
                src, dst = key // n, key % n
            src, dst, w = _merge_directions_by_max(src, dst, w, n)
            return cls.from_edges(src, dst, w, n=n, vertex_weights=vw, name=name, merge_duplicates=False)
        return cls.from_edges(src, dst, w, n=n, vertex_weights=vw, name=name)

    # ------------------------------------------------------------------ derived graphs
    def subgraph(self, vertices: Any) -> tuple["Graph", np.ndarray]:
        """The subgraph induced by `vertices` (a boolean mask or an id array) and the old ids of its vertices."""
        mask = np.zeros(self.n, dtype=bool)
        mask[np.asarray(vertices)] = True
        old_ids = np.flatnonzero(mask)
        new_id = np.full(self.n, -1, dtype=np.int64)
        new_id[old_ids] = np.arange(old_ids.shape[0])
        src = self.sources()
        keep = mask[src] & mask[self.indices]
        s, d = new_id[src[keep]], new_id[self.indices[keep]]
        indptr = np.zeros(old_ids.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(s, minlength=old_ids.shape[0]), out=indptr[1:])
        vw = None if self.vertex_weights is None else self.vertex_weights[old_ids]
        ew = None if self.edge_weights is None else self.edge_weights[keep]
        return Graph._trusted(indptr, d, vw, ew, self.name), old_ids


def _integer_edge_weights(values: np.ndarray, source: str, how_to: str) -> np.ndarray:
    """Positive integer edge weights from `values`; non-integer values get an InputError that says how to
    proceed (`how_to`), since apportion's weights are integers (as METIS's)."""
    values = np.asarray(values)
    if values.size and np.issubdtype(values.dtype, np.floating) and np.all(np.isfinite(values)):
        fractional = np.flatnonzero(values != np.rint(values))
        if fractional.size:
            raise InputError(f"{source} has non-integer values ({fractional.size} of {values.size}, the first "
                             f"{float(values[fractional[0]])!r}); edge weights are integers: {how_to}")
    return _as_int_weights(values, "edge weights", allow_zero=False)


def _merge_directions_by_max(row: np.ndarray, col: np.ndarray, weights: np.ndarray | None,
                             n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Undirected pairs (lo < hi) from directed entries without self-loops: (u, v) and (v, u) become one edge
    whose weight is the larger of the two, so a symmetric input keeps its values and never doubles them."""
    lo, hi = np.minimum(row, col), np.maximum(row, col)
    key = lo * n + hi
    if key.size == 0:
        return lo, hi, weights
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    w = None if weights is None else np.maximum.reduceat(np.asarray(weights)[order], starts)
    key = key[starts]
    return key // n, key % n, w


def as_graph(obj: Any) -> "Graph":
    """The one gate for the graph argument of the library's functions (partition, partition_edges, mst, the
    metrics): an apportion `Graph` is returned as it is; a NetworkX graph is converted by
    `Graph.from_networkx`, a SciPy sparse matrix or array by `Graph.from_scipy` (their rules apply: integer
    weights, directed input symmetrised by the larger weight); anything else is an InputError naming its type.
    """
    if isinstance(obj, Graph):
        return obj
    module = type(obj).__module__ or ""
    if module.startswith("networkx"):
        return Graph.from_networkx(obj)
    if module.startswith("scipy.sparse"):
        return Graph.from_scipy(obj)
    kind = type(obj).__name__ if module in ("builtins", "") else f"{module}.{type(obj).__qualname__}"
    hint = " (a dense adjacency matrix: wrap it in scipy.sparse.csr_array first)" if module == "numpy" else ""
    raise InputError(f"expected an apportion Graph, a NetworkX graph or a SciPy sparse matrix, got {kind}{hint}")


def _check_vertex_weights(vertex_weights: Any, n: int) -> np.ndarray:
    vw = _as_int_weights(vertex_weights, "vertex weights", allow_zero=True)
    if vw.ndim not in (1, 2) or vw.shape[0] != n:
        raise InputError(f"vertex weights must have shape (n,) or (n, ncon) with n = {n}, got {vw.shape}")
    if vw.ndim == 2 and vw.shape[1] == 1:
        vw = np.ascontiguousarray(vw[:, 0])
    return vw


def _sorted_distinct_keys(key: np.ndarray, w: np.ndarray | None, n: int, merge_duplicates: bool):
    """Edge keys `u·n + v` sorted, duplicates merged by summing their weights (or rejected with InputError)."""
    order = np.argsort(key, kind="stable")
    key = key[order]
    w = None if w is None else w[order]
    boundary = np.ones(key.shape[0], dtype=bool)
    boundary[1:] = key[1:] != key[:-1]
    if boundary.all():
        return key, w
    if not merge_duplicates:
        dup = key[np.flatnonzero(~boundary)[0]]
        raise InputError(f"duplicate edge ({dup // n}, {dup % n}) (ids 0-based)")
    starts = np.flatnonzero(boundary)
    return key[starts], (None if w is None else np.add.reduceat(w, starts))


def _check_symmetric_keys(src: np.ndarray, dst: np.ndarray, w: np.ndarray | None, n: int,
                          presorted: bool = False) -> None:
    """Raise InputError naming one pair (u, v) whose reverse is missing or has another weight."""
    forward = src * n + dst
    reverse = dst * n + src
    if not presorted:
        order = np.argsort(forward, kind="stable")
        forward, reverse = forward[order], reverse[order]
        src, dst = src[order], dst[order]
        if w is not None:
            w = w[order]
    pos = np.searchsorted(forward, reverse)
    pos_clipped = np.minimum(pos, max(forward.shape[0] - 1, 0))
    missing = (pos >= forward.shape[0]) | (forward[pos_clipped] != reverse) if forward.size else np.zeros(0, bool)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise InputError(f"asymmetric adjacency: edge ({src[i]}, {dst[i]}) has no reverse ({dst[i]}, {src[i]}) "
                         "(ids 0-based)")
    if w is not None and w.size:
        unequal = w[pos_clipped] != w
        if unequal.any():
            i = int(np.flatnonzero(unequal)[0])
            raise InputError(f"asymmetric edge weights: ({src[i]}, {dst[i]}) weighs {w[i]} but "
                             f"({dst[i]}, {src[i]}) weighs {w[pos_clipped[i]]} (ids 0-based)")
