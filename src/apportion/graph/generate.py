"""Seeded synthetic graphs with the definitions of the DIMACS10 challenge and the Graph500 benchmark.

`generate(kind, n, seed=0, **options)` returns a `Graph`. The kinds:

- ``delaunay``: the 2-D Delaunay triangulation of n points drawn uniformly from the unit square (DIMACS10
  ``delaunay_nX``): a Numba sweep-hull kernel, checked, with SciPy's Qhull as the fallback; vertex i is
  point i of the draw.
- ``rgg``: random geometric graph, n uniform points in the unit square, an edge when two points lie closer than
  0.55·√(ln n / n) (DIMACS10 ``rgg_n_2_X``); a parallel Numba cell-grid kernel (or SciPy's k-d tree).
- ``grid2d``: rows × cols lattice, 4-neighbour (n a perfect square, or ``rows=``/``cols=``).
- ``grid3d``: x × y × z lattice, 6-neighbour (n a perfect cube, or ``dims=(x, y, z)``).
- ``rmat``: Graph500 R-MAT / Kronecker graph, n = 2^scale vertices, edge factor 16, quadrant probabilities
  a = 0.57, b = 0.19, c = 0.19 (d = 0.05); self-loops dropped, duplicates merged, symmetrised, vertex labels
  randomly permuted (``permute=False`` keeps the raw labels).
- ``er``: Erdős–Rényi G(n, p), with ``p=`` or ``avg_degree=`` (default average degree 8).
- ``ba``: Barabási–Albert preferential attachment with ``m_attach=`` edges per new vertex (default 4), grown
  from a clique on m_attach + 1 vertices, so every degree is at least m_attach.
- ``road``: road-like: the minimum spanning tree of a random Delaunay triangulation (Euclidean lengths) plus a
  random quarter (``extra=``) of the triangulation's other edges; integer Euclidean lengths as edge weights.

Every random choice comes from ``numpy.random.default_rng(seed)`` (the Barabási–Albert kernel seeds Numba's
generator with the same seed): the same seed gives the same graph. docs/graph.md gives the costs.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable

import numpy as np

from apportion._arrays import sorted_distinct
from apportion.checks import check_seed
from apportion.errors import InputError
from apportion.graph.csr import Graph, index_dtype
from apportion.graph.io._limits import INT64_MAX, check_memory, graph_bytes

KINDS = ("delaunay", "rgg", "grid2d", "grid3d", "rmat", "er", "ba", "road")

# Graph500 Kronecker initiator and edge factor.
RMAT_A, RMAT_B, RMAT_C = 0.57, 0.19, 0.19
RMAT_EDGE_FACTOR = 16
# DIMACS10 random geometric graph radius constant: r = RGG_RADIUS_FACTOR * sqrt(ln n / n).
RGG_RADIUS_FACTOR = 0.55
# road: edge lengths in units of 1/ROAD_LENGTH_UNITS of the mean point spacing 1/√n (so about 1,000 for a
# typical edge: integers that keep the Euclidean order to a tenth of a percent)
ROAD_LENGTH_UNITS = 1000
# Erdős–Rényi pair keys u·n + v must fit in int64: n² < 2^63
ER_MAX_N = math.isqrt((1 << 63) - 1)


# ---------------------------------------------------------------------------------------------- helpers
#: rmat relabels its raw pairs in slices of this many (the temporary of a slice instead of a copy of all of them)
RELABEL_SLICE = 1 << 22


def _graph_from_pairs(lo: np.ndarray, hi: np.ndarray, n: int, name: str) -> Graph:
    """The simple undirected graph on the given pairs (self-loops dropped, repeats merged). The pairs are the
    generator's own and are consumed: `lo`'s buffer holds the pair keys while the CSR is built."""
    from apportion.graph._generate_kernels import symmetric_csr

    indptr, indices = symmetric_csr(lo, hi, n, index_dtype(n), overwrite_lo=True)
    return Graph._trusted(indptr, indices, None, None, name)


def _log2_exact(n: int) -> int | None:
    return n.bit_length() - 1 if n > 0 and n & (n - 1) == 0 else None


def _size_label(n: int) -> str:
    """'n20' for n = 2^20, else 'n1000'."""
    power = _log2_exact(n)
    return f"n{power}" if power is not None else f"n{n}"


def _seed_suffix(seed: int) -> str:
    return "" if seed == 0 else f"_s{seed}"


def _check_count(value: Any, what: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise InputError(f"{what} must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        raise InputError(f"{what} must be at least {minimum}, got {value}")
    return value


def _check_size(kind: str, n: int, entries: int = 0, extra_bytes: int = 0) -> None:
    """InputError (not MemoryError/OverflowError later) when a graph of n vertices and `entries` neighbour
    entries (2m), plus `extra_bytes` of working arrays, cannot fit in this machine's memory (a lower bound)."""
    if n > INT64_MAX - 1:
        raise InputError(f"{kind}: n = {n:,} is more than int64 vertex ids can number")
    check_memory(graph_bytes(n, entries) + extra_bytes, f"{kind}: a graph of {n:,} vertices")


def _check_probability(value: Any, what: str) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number, got {value!r}") from None
    if not (0.0 <= value <= 1.0):
        raise InputError(f"{what} must lie in [0, 1], got {value}")
    return value


def _uniform_points(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).random((n, 2))


def _morton_order(points: np.ndarray, bits: int = 16) -> np.ndarray:
    """Permutation sorting 2-D points in [0, 1)² along the Z-order curve (locality helps Qhull and caches)."""
    scale = float(1 << bits)
    x = np.minimum(points[:, 0] * scale, scale - 1).astype(np.uint64)
    y = np.minimum(points[:, 1] * scale, scale - 1).astype(np.uint64)

    def spread(v: np.ndarray) -> np.ndarray:
        v = (v | (v << np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
        v = (v | (v << np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
        v = (v | (v << np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        v = (v | (v << np.uint64(2))) & np.uint64(0x3333333333333333)
        v = (v | (v << np.uint64(1))) & np.uint64(0x5555555555555555)
        return v

    return np.argsort(spread(x) | (spread(y) << np.uint64(1)), kind="stable")


def _relabel(lo: np.ndarray, hi: np.ndarray, order: str, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep vertex i = point i ("random"), or renumber vertices along the Z-order curve ("spatial")."""
    if order == "random":
        return lo, hi
    if order == "spatial":
        rank = np.empty(points.shape[0], dtype=np.int64)
        rank[_morton_order(points)] = np.arange(points.shape[0])
        return rank[lo], rank[hi]
    raise InputError(f"order must be 'random' or 'spatial', got {order!r}")


# ---------------------------------------------------------------------------------------------- generators
def _triangles(points: np.ndarray, method: str) -> np.ndarray:
    """Delaunay triangles of the points (indices into `points`), by sweep-hull with a Qhull fallback."""
    from scipy.spatial import Delaunay

    from apportion.graph._generate_kernels import delaunay_is_valid, sweep_hull_delaunay

    morton = _morton_order(points)  # locality: several times faster for either method
    ordered = points[morton]
    if method == "sweep":
        xs, ys = np.ascontiguousarray(ordered[:, 0]), np.ascontiguousarray(ordered[:, 1])
        triangles, twin, ok = sweep_hull_delaunay(xs, ys)
        if ok and delaunay_is_valid(xs, ys, triangles, twin):
            return morton[triangles]
    try:
        return morton[Delaunay(ordered).simplices]
    except Exception as exc:  # Qhull refuses degenerate input (all points collinear: probability 0)
        raise InputError(f"delaunay: cannot triangulate these {points.shape[0]} points "
                         f"({type(exc).__name__})") from None


def delaunay(n: int, seed: int = 0, *, order: str = "random", method: str = "sweep") -> Graph:
    """2-D Delaunay triangulation of n uniform points in the unit square (DIMACS10 ``delaunay_nX``).

    Edges are the sides of the triangles; m ≤ 3n − 6 (planar). ``order="spatial"`` renumbers the vertices along
    a Z-order curve (locality like the DIMACS10 files); the default keeps vertex i = point i.
    ``method="sweep"`` (default) triangulates with apportion's Numba sweep-hull kernel (Sinclair 2010, with
    Lawson flips), checks the result (every triangle counter-clockwise, twins consistent, the Euler count, every
    interior edge locally Delaunay) and falls back to SciPy's Qhull if the check fails; ``method="qhull"``
    uses Qhull directly. Cost for n = 2^20: a few seconds (sweep) against tens of seconds (Qhull).
    """
    if order not in ("random", "spatial"):
        raise InputError(f"order must be 'random' or 'spatial', got {order!r}")
    if method not in ("sweep", "qhull"):
        raise InputError(f"delaunay: method must be 'sweep' or 'qhull', got {method!r}")
    _check_size("delaunay", n, entries=4 * n, extra_bytes=16 * n)  # m ≥ 2n − 3; 16 bytes of points per vertex
    points = _uniform_points(n, seed)
    name = f"delaunay_{_size_label(n)}{_seed_suffix(seed)}"
    lo, hi = _relabel(*_delaunay_pairs(points, method), order, points)
    return _graph_from_pairs(lo, hi, n, name)


def _delaunay_pairs(points: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray]:
    """The sides of the Delaunay triangles of the points (each interior side twice, as (a, b) and (b, a))."""
    n = points.shape[0]
    if n <= 3:  # fewer than 4 points in general position triangulate to a clique
        lo, hi = np.triu_indices(n, k=1)
        return lo.astype(np.int64), hi.astype(np.int64)
    triangles = _triangles(points, method)
    lo = np.concatenate([triangles[:, 0], triangles[:, 1], triangles[:, 2]])
    hi = np.concatenate([triangles[:, 1], triangles[:, 2], triangles[:, 0]])
    return lo, hi


def road(n: int, seed: int = 0, *, extra: float = 0.25, order: str = "random") -> Graph:
    """Road-like graph: a Euclidean minimum spanning tree of a random Delaunay triangulation plus a random
    fraction `extra` (default a quarter) of the triangulation's other edges, weighted by integer lengths.

    The points are those of ``delaunay(n, seed)`` (n uniform points in the unit square, vertex i = point i; the
    triangulation is the same sweep-hull one). Every side of a triangle gets the integer length
    max(1, round(d · ROAD_LENGTH_UNITS · √n)) for its Euclidean length d (about 1,000 for a typical side). The
    tree is the minimum spanning tree under these lengths, by the project's Borůvka kernel (ties broken by the
    canonical edge id, so it is unique); then ⌊extra · r⌋ of the r remaining sides are kept, drawn uniformly
    without replacement from ``default_rng(seed)`` after the points. So the graph is connected, planar, has
    m = (n − 1) + ⌊extra · (m_delaunay − n + 1)⌋ ≈ 1.5 n edges (average degree about 3) and a large hop
    diameter, like a road network. ``order="spatial"`` renumbers the vertices along a Z-order curve.
    """
    from apportion.graph._mst_kernels import boruvka_serial

    extra = _check_probability(extra, "road: extra")
    if order not in ("random", "spatial"):
        raise InputError(f"order must be 'random' or 'spatial', got {order!r}")
    _check_size("road", n, entries=6 * n, extra_bytes=64 * n)  # the triangulation and its lengths on the way
    rng = np.random.default_rng(seed)
    points = rng.random((n, 2))  # the same draw as _uniform_points(n, seed), so the same points as delaunay
    name = f"road_{_size_label(n)}{_seed_suffix(seed)}"
    triangulation = _graph_from_pairs(*_delaunay_pairs(points, "sweep"), n, name)
    src, dst = triangulation.sources(), triangulation.indices
    distance = np.hypot(points[src, 0] - points[dst, 0], points[src, 1] - points[dst, 1])
    lengths = np.maximum(1, np.rint(distance * (ROAD_LENGTH_UNITS * math.sqrt(n)))).astype(np.int64)
    tree_u, tree_v, _, _ = boruvka_serial(triangulation.indptr, dst, lengths)
    upper = dst > src  # each side once, in canonical order (by u, then v), as the tree's edges are listed
    side_u, side_v, side_w = src[upper].astype(np.int64), dst[upper].astype(np.int64), lengths[upper]
    in_tree = np.zeros(side_u.shape[0], dtype=bool)
    in_tree[np.searchsorted(side_u * n + side_v, tree_u.astype(np.int64) * n + tree_v)] = True
    others = np.flatnonzero(~in_tree)
    chosen = np.sort(rng.choice(others.shape[0], size=int(extra * others.shape[0]), replace=False))
    keep = np.concatenate([np.flatnonzero(in_tree), others[chosen]])
    lo, hi = _relabel(side_u[keep], side_v[keep], order, points)
    return Graph.from_edges(lo, hi, side_w[keep], n=n, name=name)


def rgg(n: int, seed: int = 0, *, radius: float | None = None, order: str = "random",
        method: str = "grid") -> Graph:
    """Random geometric graph: n uniform points in the unit square, an edge when distance < radius.

    The default radius is DIMACS10's 0.55·√(ln n / n), giving average degree about 0.95·ln n less a boundary
    effect. ``order="spatial"`` renumbers vertices along a Z-order curve (the DIMACS10 files are spatially
    sorted). ``method="grid"`` (default): a parallel Numba kernel buckets the points into cells at least one
    radius wide and writes each CSR row from the 3 × 3 surrounding cells, O(n + m) expected.
    ``method="kdtree"``: SciPy's ``cKDTree.query_pairs`` then a CSR build (the reference the tests compare with).
    """
    from scipy.spatial import cKDTree

    from apportion.graph._generate_kernels import geometric_graph_csr

    _check_size("rgg", n, extra_bytes=16 * n)  # 16 bytes of points per vertex
    if radius is None:
        radius = RGG_RADIUS_FACTOR * math.sqrt(math.log(n) / n)
    else:
        try:
            radius = float(radius)
        except (TypeError, ValueError):
            raise InputError(f"rgg: radius must be a number, got {radius!r}") from None
        if not (radius >= 0.0 and math.isfinite(radius)):
            raise InputError(f"rgg: radius must be a non-negative finite number, got {radius}")
    if order not in ("random", "spatial"):
        raise InputError(f"order must be 'random' or 'spatial', got {order!r}")
    if method not in ("grid", "kdtree"):
        raise InputError(f"rgg: method must be 'grid' or 'kdtree', got {method!r}")
    points = _uniform_points(n, seed)
    power = _log2_exact(n)
    name = (f"rgg_n_2_{power}_s{seed}" if power is not None else f"rgg_n{n}_s{seed}")
    if radius == 0.0 or n == 1:
        return Graph._trusted(np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=index_dtype(n)), name=name)
    if method == "grid":
        if order == "spatial":  # feeding the points in Z-order makes the kernel's vertex ids the Z-order ranks
            points = points[_morton_order(points)]
        indptr, indices = geometric_graph_csr(np.ascontiguousarray(points[:, 0]), np.ascontiguousarray(points[:, 1]),
                                              radius, np.zeros(1, dtype=index_dtype(n)))
        return Graph._trusted(indptr, indices, None, None, name)
    # query_pairs keeps distance <= r; nudging r down one ulp keeps DIMACS10's strict '<'
    pairs = cKDTree(points).query_pairs(np.nextafter(radius, 0.0), output_type="ndarray")
    lo, hi = _relabel(pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64), order, points)
    return _graph_from_pairs(lo, hi, n, name)


def _lattice_pairs(dims: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Edges between lattice neighbours (one step along one axis); vertex id is row-major over dims.

    Listed in canonical order (by the smaller end, then the larger), so the CSR builder finds its keys already
    sorted.
    """
    n = int(np.prod(dims))
    ids = np.arange(n, dtype=np.int64).reshape(dims)
    strides = [int(np.prod(dims[axis + 1:])) for axis in range(len(dims))]
    axes = [axis for axis in reversed(range(len(dims))) if dims[axis] >= 2]  # increasing stride
    if not axes:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    hi = np.empty(dims + (len(axes),), dtype=np.int64)
    valid = np.ones(dims + (len(axes),), dtype=bool)
    for slot, axis in enumerate(axes):
        hi[..., slot] = ids + strides[axis]
        last = [slice(None)] * len(dims) + [slot]
        last[axis] = dims[axis] - 1
        valid[tuple(last)] = False  # no neighbour beyond the last layer along this axis
    lo = np.broadcast_to(ids[..., None], hi.shape)
    return lo[valid], hi[valid]


def grid2d(n: int | None, seed: int = 0, *, rows: int | None = None, cols: int | None = None) -> Graph:
    """rows × cols 4-neighbour lattice; vertex r·cols + c. n must be a perfect square unless rows/cols given.

    With one of rows/cols, the other is n divided by it. The seed is unused (the grid is deterministic).
    """
    if rows is None and cols is None:
        if n is None:
            raise InputError("grid2d: give n (a perfect square) or rows= and cols=")
        side = math.isqrt(n)
        if side * side != n:
            raise InputError(f"grid2d: n = {n} is not a perfect square; give rows= and cols= instead")
        rows = cols = side
    else:
        if rows is not None:
            rows = _check_count(rows, "grid2d: rows")
        if cols is not None:
            cols = _check_count(cols, "grid2d: cols")
        if rows is None or cols is None:
            if n is None:
                raise InputError("grid2d: give both rows= and cols=, or n with one of them")
            known = rows if rows is not None else cols
            if n % known:
                raise InputError(f"grid2d: n = {n} is not a multiple of {known}")
            rows, cols = (rows, n // rows) if rows is not None else (n // cols, cols)
        if n is not None and rows * cols != n:
            raise InputError(f"grid2d: rows × cols = {rows * cols} but n = {n}")
    _check_size("grid2d", rows * cols, entries=2 * (2 * rows * cols - rows - cols))
    lo, hi = _lattice_pairs((rows, cols))
    return _graph_from_pairs(lo, hi, rows * cols, f"grid2d_{rows}x{cols}")


def grid3d(n: int | None, seed: int = 0, *, dims: Any = None) -> Graph:
    """x × y × z 6-neighbour lattice; vertex (i·y + j)·z + l. n must be a perfect cube unless dims= is given."""
    if dims is None:
        if n is None:
            raise InputError("grid3d: give n (a perfect cube) or dims=(x, y, z)")
        side = round(n ** (1.0 / 3.0))
        side = next((s for s in (side - 1, side, side + 1) if s > 0 and s ** 3 == n), None)
        if side is None:
            raise InputError(f"grid3d: n = {n} is not a perfect cube; give dims=(x, y, z) instead")
        dims = (side, side, side)
    else:
        if isinstance(dims, str):
            dims = [d for d in dims.replace("x", ",").split(",") if d.strip()]
        try:
            dims = tuple(_check_count(int(d) if isinstance(d, str) else d, "grid3d: each of dims") for d in dims)
        except (TypeError, ValueError):
            raise InputError(f"grid3d: dims must be three positive integers, got {dims!r}") from None
        if len(dims) != 3:
            raise InputError(f"grid3d: dims must be three positive integers, got {len(dims)}")
        if n is not None and math.prod(dims) != n:
            raise InputError(f"grid3d: x × y × z = {math.prod(dims)} but n = {n}")
    x, y, z = dims
    _check_size("grid3d", x * y * z, entries=2 * (3 * x * y * z - x * y - y * z - x * z))
    lo, hi = _lattice_pairs(dims)
    return _graph_from_pairs(lo, hi, x * y * z, "grid3d_" + "x".join(map(str, dims)))


def rmat_pairs(scale: int, seed: int = 0, *, edge_factor: int = RMAT_EDGE_FACTOR, a: float = RMAT_A,
               b: float = RMAT_B, c: float = RMAT_C, permute: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The raw Graph500 Kronecker edge list: edge_factor · 2^scale pairs, before loops and repeats are removed.

    For each edge and each of the `scale` bit levels one uniform draw picks a quadrant: (0,0) with probability
    a, (0,1) with b, (1,0) with c, (1,1) with d = 1 − a − b − c (Graph500 specification, section "Kronecker
    generator"). With `permute`, vertex labels go through a random permutation, as Graph500 does.
    """
    from apportion.graph._generate_kernels import kronecker_pairs

    rng = np.random.default_rng(seed)
    n = 1 << scale
    total = edge_factor * n
    chunk = 1 << 16
    chunk_seeds = rng.integers(0, 1 << 32, max(1, -(-total // chunk)), dtype=np.uint64).astype(np.int64)
    src, dst = kronecker_pairs(scale, total, float(a), float(b), float(c), chunk_seeds, chunk)
    if permute:
        labels = rng.permutation(n)
        for pairs_end in (src, dst):  # relabelled in place, a slice at a time: no second copy of the pairs
            for lo in range(0, total, RELABEL_SLICE):
                pairs_end[lo:lo + RELABEL_SLICE] = labels[pairs_end[lo:lo + RELABEL_SLICE]]
    return src, dst


def rmat(n: int | None, seed: int = 0, *, scale: int | None = None, edge_factor: int = RMAT_EDGE_FACTOR,
         a: float = RMAT_A, b: float = RMAT_B, c: float = RMAT_C, permute: bool = True) -> Graph:
    """Graph500 R-MAT / Kronecker graph on n = 2^scale vertices (see `rmat_pairs`), made simple and undirected.

    Vertices that draw no edge stay isolated, so n is always 2^scale. Cost: scale · edge_factor · n uniform
    draws plus one CSR build; a few seconds for scale 20.
    """
    if scale is not None:
        scale = _check_count(scale, "rmat: scale", minimum=0)
        if n is not None and n != 1 << scale:
            raise InputError(f"rmat: n = {n} but scale = {scale} means n = {1 << scale}")
    else:
        if n is None:
            raise InputError("rmat: give n (a power of two) or scale=")
        scale = _log2_exact(n)
        if scale is None:
            raise InputError(f"rmat: n = {n} is not a power of two (use scale= or n = 2^scale)")
    if scale > 40:
        raise InputError(f"rmat: scale {scale} is too large")
    edge_factor = _check_count(edge_factor, "rmat: edge_factor")
    _check_size("rmat", 1 << scale, extra_bytes=16 * edge_factor * (1 << scale))  # the raw int64 pairs
    a, b, c = (_check_probability(x, f"rmat: {nm}") for x, nm in ((a, "a"), (b, "b"), (c, "c")))
    if a + b + c > 1.0 + 1e-12:
        raise InputError(f"rmat: a + b + c = {a + b + c} exceeds 1")
    src, dst = rmat_pairs(scale, seed, edge_factor=edge_factor, a=a, b=b, c=c, permute=bool(permute))
    n = 1 << scale
    return _graph_from_pairs(src, dst, n, f"rmat_s{scale}{_seed_suffix(seed)}")


def _distinct_pair_keys(n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` distinct unordered pairs {u, v}, u ≠ v, uniformly at random, as sorted keys u·n + v with u < v.

    Ordered pairs are drawn with replacement in rounds of exactly as many draws as distinct pairs are still
    missing, so the result is the set of the first `count` distinct pairs of one i.i.d. draw sequence: a
    uniformly random `count`-subset, since the sequence is exchangeable. Repeats are rare when count ≪ n², so
    there are few rounds after the first.
    """
    keys = np.zeros(0, dtype=np.int64)
    while keys.shape[0] < count:
        need = count - keys.shape[0]
        u = rng.integers(0, n, need)
        v = rng.integers(0, n, need)
        ok = u != v
        new = sorted_distinct(np.minimum(u, v)[ok] * n + np.maximum(u, v)[ok])
        if keys.shape[0]:
            position = np.minimum(np.searchsorted(keys, new), keys.shape[0] - 1)
            new = new[keys[position] != new]
            keys = np.sort(np.concatenate([keys, new]))
        else:
            keys = new
    return keys


def er(n: int, seed: int = 0, *, p: float | None = None, avg_degree: float | None = None) -> Graph:
    """Erdős–Rényi G(n, p): each of the n(n−1)/2 pairs is an edge independently with probability p.

    Give ``p=`` or ``avg_degree=`` (p = avg_degree / (n − 1)); the default is average degree 8. Small n: one
    Bernoulli draw per pair. Large n: the edge count is drawn from Binomial(n(n−1)/2, p) and that many distinct
    pairs are sampled uniformly — the same distribution, in O(m log m) without touching every pair.
    """
    if p is not None and avg_degree is not None:
        raise InputError("er: give p= or avg_degree=, not both")
    _check_size("er", n)
    if n > ER_MAX_N:
        raise InputError(f"er: n = {n:,} is too large: at most {ER_MAX_N:,} (pair keys u·n + v are int64)")
    if p is None:
        if avg_degree is None:
            avg_degree = 8.0
        try:
            avg_degree = float(avg_degree)
        except (TypeError, ValueError):
            raise InputError(f"er: avg_degree must be a number, got {avg_degree!r}") from None
        if not (avg_degree >= 0 and math.isfinite(avg_degree)):
            raise InputError(f"er: avg_degree must be non-negative, got {avg_degree}")
        if n > 1 and avg_degree > n - 1:
            raise InputError(f"er: avg_degree {avg_degree} exceeds n − 1 = {n - 1}")
        p = avg_degree / (n - 1) if n > 1 else 0.0
    p = _check_probability(p, "er: p")
    pairs = n * (n - 1) // 2
    _check_size("er", n, entries=int(p * pairs))  # about 2m = p·n(n − 1) entries; at least half of it
    rng = np.random.default_rng(seed)
    if pairs <= 1 << 22:
        iu, ju = np.triu_indices(n, k=1)
        chosen = rng.random(pairs) < p
        lo, hi = iu[chosen].astype(np.int64), ju[chosen].astype(np.int64)
    else:
        count = int(rng.binomial(pairs, p))
        if count > pairs // 2:
            raise InputError(f"er: p = {p} is too dense for n = {n} (use p ≤ 0.5 on large graphs)")
        keys = _distinct_pair_keys(n, count, rng)
        lo, hi = keys // n, keys % n
    name = f"er_{_size_label(n)}_d{p * (n - 1):g}{_seed_suffix(seed)}"
    return _graph_from_pairs(lo, hi, n, name)


def ba(n: int, seed: int = 0, *, m_attach: int = 4) -> Graph:
    """Barabási–Albert preferential attachment (Barabási & Albert 1999): a clique on m_attach + 1 vertices,
    then each new vertex joins m_attach distinct earlier vertices chosen with probability ∝ degree.

    m = C(m_attach+1, 2) + (n − m_attach − 1)·m_attach; every degree ≥ m_attach. O(n·m_attach) Numba kernel.
    """
    from apportion.graph._generate_kernels import barabasi_albert_pairs

    m_attach = _check_count(m_attach, "ba: m_attach")
    if n < m_attach + 1:
        raise InputError(f"ba: n = {n} must be at least m_attach + 1 = {m_attach + 1}")
    _check_size("ba", n, entries=2 * n * m_attach, extra_bytes=16 * n * m_attach)  # plus the int64 pairs
    lo, hi = barabasi_albert_pairs(n, m_attach, np.int64(seed % (1 << 32)))
    return _graph_from_pairs(lo, hi, n, f"ba_{_size_label(n)}_m{m_attach}{_seed_suffix(seed)}")


GENERATORS: dict[str, Callable[..., Graph]] = {
    "delaunay": delaunay, "rgg": rgg, "grid2d": grid2d, "grid3d": grid3d, "rmat": rmat, "er": er, "ba": ba,
    "road": road,
}
# kinds whose size may come from options alone
_N_OPTIONAL = {"grid2d", "grid3d", "rmat"}


def options_of(kind: str) -> tuple[str, ...]:
    """The keyword options a kind accepts."""
    params = inspect.signature(GENERATORS[kind]).parameters
    return tuple(name for name, prm in params.items() if prm.kind is inspect.Parameter.KEYWORD_ONLY)


def generate(kind: str, n: int | None = None, seed: int = 0, **options: Any) -> Graph:
    """A seeded synthetic graph of the given kind (see the module docstring and docs/graph.md).

    Args:
        kind: one of delaunay, rgg, grid2d, grid3d, rmat, er, ba, road.
        n: number of vertices (≥ 1). For grid2d / grid3d / rmat it may be None when rows/cols, dims or scale
            fix the size; for rmat it must be a power of two.
        seed: every random choice derives from it; the same seed gives the same graph.
        options: per-kind keyword options (``options_of(kind)`` lists them).

    Raises:
        InputError: unknown kind, unknown option, or an invalid size or option value.
    """
    if kind not in GENERATORS:
        raise InputError(f"unknown graph kind {kind!r}; choose one of {', '.join(KINDS)}")
    allowed = options_of(kind)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        valid = ", ".join(allowed) if allowed else "none"
        raise InputError(f"{kind}: unknown option(s) {', '.join(unknown)}; valid options: {valid}")
    if n is None:
        if kind not in _N_OPTIONAL:
            raise InputError(f"{kind}: the number of vertices n is required")
    else:
        n = _check_count(n, f"{kind}: n")
    return GENERATORS[kind](n, check_seed(seed), **options)


__all__ = ["KINDS", "GENERATORS", "generate", "options_of", "rmat_pairs", "delaunay", "rgg", "grid2d", "grid3d",
           "rmat", "er", "ba", "road"]
