"""Numba kernels behind `apportion.graph.generate`: the Barabási–Albert process, the Graph500 Kronecker edges,
sweep-hull Delaunay and the geometric-graph CSR (the symmetric CSR builder is the readers' `pairs_to_csr`).

Python in `generate.py` validates and draws the random numbers; these kernels do the per-edge work.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange


def symmetric_csr(lo: np.ndarray, hi: np.ndarray, n: int, index_dtype, *,
                  overwrite_lo: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """CSR (indptr int64, sorted neighbour ids of `index_dtype`) of the undirected simple graph on the pairs
    (lo[e], hi[e]). Self-loops are dropped and repeated pairs (in either direction) become one edge. With
    `overwrite_lo`, `lo` may be overwritten (it holds the pair keys: one array of the pairs' size less).

    The readers' builder (`graph.io._parse_kernels.simple_graph_csr`: NumPy's sort of the canonical pair keys,
    then one counting-sort pass that leaves the rows sorted), so generators and readers share one kernel.
    """
    from apportion.graph.io._parse_kernels import simple_graph_csr

    return simple_graph_csr(lo, hi, n, index_dtype, overwrite_src=overwrite_lo)


@njit(cache=True, nogil=True)
def barabasi_albert_pairs(n, m_attach, seed):
    """Edges (lo, hi) of a Barabási–Albert graph grown from a clique on m_attach + 1 vertices.

    Each new vertex v joins m_attach distinct earlier vertices, each drawn with probability proportional to its
    current degree (uniform draws from the list of edge endpoints so far; a repeated draw is redrawn).
    Deterministic for a given seed (Numba's own generator, seeded here).
    """
    np.random.seed(seed)
    first = m_attach + 1
    clique_edges = first * (first - 1) // 2
    total = clique_edges + (n - first) * m_attach
    lo = np.empty(total, dtype=np.int64)
    hi = np.empty(total, dtype=np.int64)
    endpoints = np.empty(2 * total, dtype=np.int64)
    e = 0
    for i in range(first):
        for j in range(i + 1, first):
            lo[e] = i
            hi[e] = j
            endpoints[2 * e] = i
            endpoints[2 * e + 1] = j
            e += 1
    chosen = np.empty(m_attach, dtype=np.int64)
    for v in range(first, n):
        count = 0
        filled = 2 * e
        while count < m_attach:
            t = endpoints[np.random.randint(0, filled)]
            repeated = False
            for q in range(count):
                if chosen[q] == t:
                    repeated = True
                    break
            if not repeated:
                chosen[count] = t
                count += 1
        for q in range(m_attach):
            lo[e] = chosen[q]
            hi[e] = v
            endpoints[2 * e] = chosen[q]
            endpoints[2 * e + 1] = v
            e += 1
    return lo, hi


@njit(cache=True, nogil=True)
def _splitmix64(state):
    """One step of SplitMix64 (Steele, Lea & Flood 2014): (new state, 64 random bits)."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True, parallel=True)
def kronecker_pairs(scale, total, a, b, c, chunk_seeds, chunk):
    """Graph500 Kronecker edge list: `total` pairs of `scale`-bit vertex ids, before any clean-up.

    Edge e lies in chunk e // chunk; each chunk runs its own SplitMix64 stream from its own seed, so the result
    does not depend on how chunks are spread over threads. At each bit level one uniform draw (32 bits of a
    64-bit output) picks the quadrant: (0,0) below a, (0,1) below a + b, (1,0) below a + b + c, else (1,1).
    """
    src = np.zeros(total, dtype=np.int64)
    dst = np.zeros(total, dtype=np.int64)
    scale32 = 2.0 ** 32
    ta = np.uint64(min(a * scale32, scale32))
    tab = np.uint64(min((a + b) * scale32, scale32))
    tabc = np.uint64(min((a + b + c) * scale32, scale32))
    low = np.uint64(0xFFFFFFFF)
    for ci in prange(chunk_seeds.shape[0]):
        state = np.uint64(chunk_seeds[ci])
        start = ci * chunk
        stop = min(total, start + chunk)
        for e in range(start, stop):
            s = 0
            d = 0
            bits = np.uint64(0)
            for bit in range(scale):
                if bit % 2 == 0:
                    state, bits = _splitmix64(state)
                    r = bits >> np.uint64(32)
                else:
                    r = bits & low
                # branch-free: the quadrant is random, so branches would mispredict half the time
                row = np.int64(r >= tab)
                col = np.int64(r >= tabc) | (np.int64(r >= ta) & (1 - row))
                s |= row << bit
                d |= col << bit
            src[e] = s
            dst[e] = d
    return src, dst


# ---------------------------------------------------------------------------------------------- Delaunay
# Sweep-hull Delaunay triangulation (Sinclair, "S-hull", 2010): points are added in order of distance from a
# seed triangle's circumcentre, so each new point lies outside the current convex hull; it is joined to the hull
# edges it sees, and Lawson edge flips restore the empty-circle property. The hull is a doubly linked list with
# an angular hash (the idea of Mapbox's Delaunator) for finding a visible edge in O(1) expected time. Triangle t owns half-edges 3t, 3t+1, 3t+2
# (counter-clockwise); half-edge h runs from tri_vertex[h] to the start of the next half-edge of its triangle,
# and twin[h] is the opposite half-edge or -1 on the hull. Floating-point predicates are not exact, so the
# caller verifies the result (`delaunay_is_valid`) and falls back to Qhull when it is not.


@njit(cache=True, nogil=True)
def _cross(ax, ay, bx, by, cx, cy):
    """> 0 when a, b, c turn counter-clockwise."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(cache=True, nogil=True)
def _in_circle(ax, ay, bx, by, cx, cy, px, py):
    """> 0 when p lies inside the circumcircle of the counter-clockwise triangle a, b, c."""
    dx, dy = ax - px, ay - py
    ex, ey = bx - px, by - py
    fx, fy = cx - px, cy - py
    ap = dx * dx + dy * dy
    bp = ex * ex + ey * ey
    cp = fx * fx + fy * fy
    return dx * (ey * cp - bp * fy) - dy * (ex * cp - bp * fx) + ap * (ex * fy - ey * fx)


@njit(cache=True, nogil=True)
def _circumradius2(ax, ay, bx, by, cx, cy):
    dx, dy = bx - ax, by - ay
    ex, ey = cx - ax, cy - ay
    bl = dx * dx + dy * dy
    cl = ex * ex + ey * ey
    d = 0.5 / (dx * ey - dy * ex)
    x = (ey * bl - dy * cl) * d
    y = (dx * cl - ex * bl) * d
    return x * x + y * y


@njit(cache=True, nogil=True)
def _angle_bucket(dx, dy, size):
    p = dx / (abs(dx) + abs(dy))
    a = (3.0 - p) / 4.0 if dy > 0 else (1.0 + p) / 4.0  # monotone in the angle, in [0, 1)
    return int(np.floor(a * size)) % size


# A helper called from several kernels declares its argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit("(int64[::1], int64, int64)", cache=True, nogil=True)
def _link(twin, a, b):
    twin[a] = b
    if b != -1:
        twin[b] = a


@njit(cache=True, nogil=True)
def _legalize(start, tri_vertex, twin, hull_edge, xs, ys, stack):
    """Flip edges until every edge opposite the newest point is locally Delaunay. False if the stack overflows."""
    top = 0
    stack[top] = start
    top += 1
    while top > 0:
        top -= 1
        a = stack[top]
        b = twin[a]
        if b == -1:
            continue
        a0 = a - a % 3
        b0 = b - b % 3
        al = a0 + (a + 1) % 3
        ar = a0 + (a + 2) % 3
        br = b0 + (b + 1) % 3
        bl = b0 + (b + 2) % 3
        p0 = tri_vertex[ar]  # the new point, opposite a
        pr = tri_vertex[a]
        pl = tri_vertex[al]
        p1 = tri_vertex[bl]  # opposite b
        if _in_circle(xs[pr], ys[pr], xs[pl], ys[pl], xs[p0], ys[p0], xs[p1], ys[p1]) > 0.0:
            tri_vertex[a] = p1
            tri_vertex[b] = p0
            outer_bl = twin[bl]
            outer_ar = twin[ar]
            _link(twin, a, outer_bl)
            _link(twin, b, outer_ar)
            _link(twin, ar, bl)
            if outer_bl == -1:
                hull_edge[p1] = a
            if outer_ar == -1:
                hull_edge[p0] = b
            if top + 2 > stack.shape[0]:
                return False
            stack[top] = a
            stack[top + 1] = br
            top += 2
    return True


@njit("(int64[::1], int64[::1], int64, int64, int64, int64, int64, int64, int64)", cache=True, nogil=True)
def _add_triangle(tri_vertex, twin, count, i0, i1, i2, h0, h1, h2):
    t = 3 * count
    tri_vertex[t] = i0
    tri_vertex[t + 1] = i1
    tri_vertex[t + 2] = i2
    _link(twin, t, h0)
    _link(twin, t + 1, h1)
    _link(twin, t + 2, h2)
    return t


def _sweep_seed(xs: np.ndarray, ys: np.ndarray):
    """The seed triangle (i0, i1, i2 counter-clockwise: the point nearest the bounding-box centre, its nearest
    distinct neighbour, and the point making the smallest circumcircle with them) and its circumcentre, by
    vectorised NumPy; None when the points are all collinear or coincident."""
    cx, cy = 0.5 * (xs.min() + xs.max()), 0.5 * (ys.min() + ys.max())
    i0 = int(np.argmin((xs - cx) ** 2 + (ys - cy) ** 2))
    d = (xs - xs[i0]) ** 2 + (ys - ys[i0]) ** 2
    d[d <= 0.0] = np.inf  # i0 itself and points coinciding with it
    i1 = int(np.argmin(d))
    if not d[i1] < np.inf:
        return None
    x0, y0, x1, y1 = xs[i0], ys[i0], xs[i1], ys[i1]
    with np.errstate(divide="ignore", invalid="ignore"):
        dx, dy = x1 - x0, y1 - y0
        ex, ey = xs - x0, ys - y0
        cross = dx * ey - dy * ex  # _cross(i0, i1, i)
        bl, cl = dx * dx + dy * dy, ex * ex + ey * ey
        dd = 0.5 / cross
        rx = (ey * bl - dy * cl) * dd
        ry = (dx * cl - ex * bl) * dd
        r = rx * rx + ry * ry
    r[(cross == 0.0) | np.isnan(r)] = np.inf
    r[[i0, i1]] = np.inf
    i2 = int(np.argmin(r))
    if not r[i2] < np.inf:
        return None
    if cross[i2] < 0.0:
        i1, i2 = i2, i1
    dx, dy = xs[i1] - xs[i0], ys[i1] - ys[i0]
    ex, ey = xs[i2] - xs[i0], ys[i2] - ys[i0]
    bl, cl = dx * dx + dy * dy, ex * ex + ey * ey
    dd = 0.5 / (dx * ey - dy * ex)
    return i0, i1, i2, float(xs[i0] + (ey * bl - dy * cl) * dd), float(ys[i0] + (dx * cl - ex * bl) * dd)


def sweep_hull_delaunay(xs: np.ndarray, ys: np.ndarray):
    """Triangles (k, 3) of the Delaunay triangulation of n ≥ 3 points, and a success flag.

    Returns (triangles, twin, ok). ok is False when the input is degenerate (all points collinear or
    coincident) or a floating-point inconsistency stopped the sweep; the caller then uses Qhull. The seed
    triangle, the sweep order (NumPy's argsort of the distances from its circumcentre) and every array are
    prepared here in NumPy; the Numba kernel `_sweep_hull` only runs the sweep (no NumPy calls compiled in it).
    """
    xs = np.ascontiguousarray(xs, dtype=np.float64)
    ys = np.ascontiguousarray(ys, dtype=np.float64)
    n = xs.shape[0]
    seed = _sweep_seed(xs, ys) if n >= 3 else None
    if seed is None:
        return np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64), False
    i0, i1, i2, ccx, ccy = seed
    order = np.argsort((xs - ccx) ** 2 + (ys - ccy) ** 2)
    max_triangles = 2 * n - 5
    tri_vertex = np.empty(3 * max_triangles, dtype=np.int64)
    twin = np.full(3 * max_triangles, -1, dtype=np.int64)
    hull_next = np.arange(n, dtype=np.int64)  # hull_next[v] == v: v is not (or no longer) on the hull
    hull_prev = np.arange(n, dtype=np.int64)
    hull_edge = np.full(n, -1, dtype=np.int64)  # the hull half-edge starting at v
    bucket = np.full(max(1, math.isqrt(n - 1) + 1), -1, dtype=np.int64)  # ceil(sqrt(n)) angular buckets
    stack = np.empty(1 << 16, dtype=np.int64)
    count, ok = _sweep_hull(xs, ys, order, i0, i1, i2, ccx, ccy, tri_vertex, twin, hull_next, hull_prev,
                            hull_edge, bucket, stack)
    if not ok:
        return np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64), False
    return tri_vertex[:3 * count].reshape(count, 3), twin[:3 * count], True


@njit(cache=True, nogil=True)
def _sweep_hull(xs, ys, order, i0, i1, i2, ccx, ccy, tri_vertex, twin, hull_next, hull_prev, hull_edge, bucket,
                stack):
    """The sweep from the seed triangle (i0, i1, i2, circumcentre (ccx, ccy)) over the points in `order`, into
    the arrays prepared by `sweep_hull_delaunay`. Returns (triangle count, ok)."""
    n = xs.shape[0]
    size = bucket.shape[0]
    hull_next[i0], hull_next[i1], hull_next[i2] = i1, i2, i0
    hull_prev[i1], hull_prev[i2], hull_prev[i0] = i0, i1, i2
    hull_edge[i0], hull_edge[i1], hull_edge[i2] = 0, 1, 2
    bucket[_angle_bucket(xs[i0] - ccx, ys[i0] - ccy, size)] = i0
    bucket[_angle_bucket(xs[i1] - ccx, ys[i1] - ccy, size)] = i1
    bucket[_angle_bucket(xs[i2] - ccx, ys[i2] - ccy, size)] = i2
    count = 0
    _add_triangle(tri_vertex, twin, count, i0, i1, i2, -1, -1, -1)
    count += 1

    for k in range(n):
        i = order[k]
        if i == i0 or i == i1 or i == i2:
            continue
        x, y = xs[i], ys[i]
        key = _angle_bucket(x - ccx, y - ccy, size)
        start = -1
        for j in range(size):
            s = bucket[(key + j) % size]
            if s != -1 and s != hull_next[s]:
                start = s
                break
        if start == -1:
            return count, False
        start = hull_prev[start]
        e = start
        while True:
            q = hull_next[e]
            if _cross(xs[e], ys[e], xs[q], ys[q], x, y) < 0.0:  # i lies right of e→q: visible
                break
            e = q
            if e == start:
                e = -1
                break
        if e == -1:
            return count, False  # a point on the hull or a duplicate: let Qhull decide
        # the first triangle: hull edge e→q seen from i
        q = hull_next[e]
        t = _add_triangle(tri_vertex, twin, count, e, i, q, -1, -1, hull_edge[e])
        count += 1
        hull_edge[i] = t + 1
        hull_edge[e] = t
        if not _legalize(t + 2, tri_vertex, twin, hull_edge, xs, ys, stack):
            return count, False
        # walk forward along the hull while i sees the next edge
        nxt = hull_next[e]
        while True:
            q = hull_next[nxt]
            if not (_cross(xs[nxt], ys[nxt], xs[q], ys[q], x, y) < 0.0):
                break
            t = _add_triangle(tri_vertex, twin, count, nxt, i, q, hull_edge[i], -1, hull_edge[nxt])
            count += 1
            hull_edge[i] = t + 1
            if not _legalize(t + 2, tri_vertex, twin, hull_edge, xs, ys, stack):
                return count, False
            hull_next[nxt] = nxt  # removed from the hull
            nxt = q
        # walk backward while i sees the previous edge
        if e == start:
            while True:
                q = hull_prev[e]
                if not (_cross(xs[q], ys[q], xs[e], ys[e], x, y) < 0.0):
                    break
                t = _add_triangle(tri_vertex, twin, count, q, i, e, -1, hull_edge[e], hull_edge[q])
                count += 1
                hull_edge[q] = t
                if not _legalize(t + 2, tri_vertex, twin, hull_edge, xs, ys, stack):
                    return count, False
                hull_next[e] = e
                e = q
        hull_prev[i] = e
        hull_next[e] = i
        hull_prev[nxt] = i
        hull_next[i] = nxt
        bucket[key] = i
        bucket[_angle_bucket(xs[e] - ccx, ys[e] - ccy, size)] = e
    return count, True


def delaunay_is_valid(xs: np.ndarray, ys: np.ndarray, triangles: np.ndarray, twin: np.ndarray) -> bool:
    """Check a sweep-hull result: Euler count, counter-clockwise triangles, twins consistent, every interior
    edge locally Delaunay (beyond a rounding-error bound). Valid + locally Delaunay ⇒ the Delaunay triangulation.
    (Arrays prepared here; the checks are the kernel `_delaunay_is_valid`.)
    """
    flat = np.ascontiguousarray(triangles, dtype=np.int64).ravel()
    return bool(_delaunay_is_valid(np.ascontiguousarray(xs, dtype=np.float64),
                                   np.ascontiguousarray(ys, dtype=np.float64), flat,
                                   np.ascontiguousarray(twin, dtype=np.int64), np.zeros(xs.shape[0], dtype=np.bool_)))


@njit(cache=True, nogil=True)
def _delaunay_is_valid(xs, ys, flat, twin, used):
    """The checks of `delaunay_is_valid` on the flat triangle array (3 vertices per triangle); `used` all False."""
    n = xs.shape[0]
    count = flat.shape[0] // 3
    hull = 0
    for h in range(3 * count):
        used[flat[h]] = True
        g = twin[h]
        if g == -1:
            hull += 1
            continue
        if twin[g] != h:
            return False
        # the twin runs the other way
        hn = h - h % 3 + (h + 1) % 3
        gn = g - g % 3 + (g + 1) % 3
        if flat[h] != flat[gn] or flat[hn] != flat[g]:
            return False
        if h < g:
            opposite = flat[h - h % 3 + (h + 2) % 3]
            other = flat[g - g % 3 + (g + 2) % 3]
            a, b, c, p = flat[h], flat[hn], opposite, other
            dx, dy = xs[a] - xs[p], ys[a] - ys[p]
            ex, ey = xs[b] - xs[p], ys[b] - ys[p]
            fx, fy = xs[c] - xs[p], ys[c] - ys[p]
            ap = dx * dx + dy * dy
            bp = ex * ex + ey * ey
            cp = fx * fx + fy * fy
            det = dx * (ey * cp - bp * fy) - dy * (ex * cp - bp * fx) + ap * (ex * fy - ey * fx)
            bound = (abs(dx) * (abs(ey) * cp + bp * abs(fy)) + abs(dy) * (abs(ex) * cp + bp * abs(fx))
                     + ap * (abs(ex * fy) + abs(ey * fx)))
            if det > 1e-12 * bound:
                return False
    for t in range(count):
        a, b, c = flat[3 * t], flat[3 * t + 1], flat[3 * t + 2]
        if _cross(xs[a], ys[a], xs[b], ys[b], xs[c], ys[c]) <= 0.0:
            return False
    for v in range(n):
        if not used[v]:
            return False
    return count == 2 * n - 2 - hull


# ---------------------------------------------------------------------------------------------- geometric graph
@njit(cache=True, nogil=True)
def _bucket_points(xs, ys, cells):
    """Counting sort of points into a cells × cells grid over [0, 1)²: (cell of each point, start, members)."""
    n = xs.shape[0]
    cell = np.empty(n, dtype=np.int64)
    start = np.zeros(cells * cells + 1, dtype=np.int64)
    for i in range(n):
        cx = min(max(int(xs[i] * cells), 0), cells - 1)
        cy = min(max(int(ys[i] * cells), 0), cells - 1)
        cell[i] = cx * cells + cy
        start[cell[i] + 1] += 1
    for c in range(cells * cells):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    members = np.empty(n, dtype=np.int64)
    for i in range(n):
        members[fill[cell[i]]] = i
        fill[cell[i]] += 1
    return cell, start, members


@njit(cache=True, nogil=True, parallel=True)
def geometric_graph_csr(xs, ys, radius, index_dtype_sample):
    """CSR of the graph joining points of [0, 1)² closer than `radius` (strictly), neighbour lists sorted.

    Points are bucketed in a grid whose cells are at least `radius` wide, so each point's neighbours lie in its
    own and the 8 surrounding cells. Coordinates are copied in cell order and points visited cell by cell, so
    the candidates of neighbouring points share the cache; two parallel passes count and then write each row,
    which is then sorted.
    """
    n = xs.shape[0]
    cells = max(1, min(int(1.0 / radius), int(np.sqrt(n)) + 1))
    cell, start, members = _bucket_points(xs, ys, cells)
    sx = np.empty(n, dtype=np.float64)
    sy = np.empty(n, dtype=np.float64)
    for p in prange(n):
        sx[p] = xs[members[p]]
        sy[p] = ys[members[p]]
    r2 = radius * radius
    degree = np.zeros(n, dtype=np.int64)
    for pi in prange(n):
        i = members[pi]
        cx = cell[i] // cells
        cy = cell[i] % cells
        x = sx[pi]
        y = sy[pi]
        count = 0
        for gx in range(max(cx - 1, 0), min(cx + 2, cells)):
            lo = start[gx * cells + max(cy - 1, 0)]
            hi = start[gx * cells + min(cy + 2, cells)]  # cells of one column are consecutive
            for p in range(lo, hi):
                dx = x - sx[p]
                dy = y - sy[p]
                if dx * dx + dy * dy < r2 and p != pi:
                    count += 1
        degree[i] = count
    indptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        indptr[i + 1] = indptr[i] + degree[i]
    indices = np.empty(indptr[n], dtype=index_dtype_sample.dtype)
    for pi in prange(n):
        i = members[pi]
        cx = cell[i] // cells
        cy = cell[i] % cells
        x = sx[pi]
        y = sy[pi]
        out = indptr[i]
        for gx in range(max(cx - 1, 0), min(cx + 2, cells)):
            lo = start[gx * cells + max(cy - 1, 0)]
            hi = start[gx * cells + min(cy + 2, cells)]
            for p in range(lo, hi):
                dx = x - sx[p]
                dy = y - sy[p]
                if dx * dx + dy * dy < r2 and p != pi:
                    indices[out] = members[p]
                    out += 1
        first = indptr[i]
        for p in range(first + 1, out):  # insertion sort: rows are short
            w = indices[p]
            q = p - 1
            while q >= first and indices[q] > w:
                indices[q + 1] = indices[q]
                q -= 1
            indices[q + 1] = w
    return indptr, indices
