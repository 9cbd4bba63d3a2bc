"""Phases of the multilevel partitioner checked against independent references."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from apportion.partitioning.vertex._coarsen_kernels import labels_to_cmap
from apportion.partitioning.vertex._partition_kernels import block_weights, edge_cut
from apportion import datasets, partition
from apportion.partitioning.vertex._balance_kernels import descend_overload
from apportion.partitioning.vertex.balance import max_block_weights, rebalance_partition
from apportion.partitioning.vertex.coarsen import NO_BLOCKS, cluster_level, cluster_weight_cap, coarsen, first_method
from apportion.partitioning.vertex.context import PartitionContext
from apportion.partitioning.vertex.contract import LevelGraph, contract_graph, induced_level, project_partition
from apportion.partitioning.vertex.options import PRESETS, preset_options
from apportion.partitioning.vertex._fm_gain_cache_kernels import (
    INTERNAL, PART, _move, cached_best_move, key_after_neighbour_move, kway_fm_cached, new_records)
from apportion.partitioning.vertex._partition_kernels import fits
from apportion.partitioning.vertex._refine_kernels import (
    FM_MIN_PATIENCE, apply_if_not_worse, fm_passes_end, fm_patience, kway_fm)
from apportion.partitioning.vertex.refine import (gain_cache, gain_cache_dtype, refine_fm, refine_two_direction,
                                                  use_gain_cache)

from vertex_helpers import grid, random_graph, recount

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def weighted_random_level(n: int, m: int, seed: int, ncon: int = 1) -> LevelGraph:
    rng = np.random.default_rng(seed)
    base = random_graph(n, m, seed)
    u, v, _ = base.edges()
    from apportion.graph.csr import Graph

    vw = rng.integers(1, 5, size=(n, ncon)) if ncon > 1 else rng.integers(1, 5, size=n)
    graph = Graph.from_edges(u, v, rng.integers(1, 9, size=u.shape[0]), n=n, vertex_weights=vw)
    return LevelGraph.from_graph(graph)


@SETTINGS
@given(n=st.integers(2, 200), density=st.floats(0.5, 4), clusters=st.integers(1, 50), seed=st.integers(0, 10**6))
def test_contraction_matches_sparse_triple_product(n, density, clusters, seed):
    """Coarse adjacency = Pᵀ A P without its diagonal; vertex weight kept; edge weight loses the inside edges."""
    level = weighted_random_level(n, int(n * density) + 1, seed, ncon=2)
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, min(clusters, n), size=n).astype(np.int32)
    cmap, nc = labels_to_cmap(labels)
    coarse = contract_graph(level, cmap, nc)
    a = sp.csr_array((level.edge_weights, level.indices, level.indptr), shape=(n, n))
    p = sp.csr_array((np.ones(n, dtype=np.int64), (np.arange(n), cmap)), shape=(n, nc))
    expected = (p.T @ a @ p).toarray()
    inside = np.trace(expected) // 2
    np.fill_diagonal(expected, 0)
    got = sp.csr_array((coarse.edge_weights, coarse.indices, coarse.indptr), shape=(nc, nc)).toarray()
    np.testing.assert_array_equal(got, expected)
    assert np.all(np.diff(coarse.indices[coarse.indptr[0]:coarse.indptr[1]]) > 0) if nc and coarse.indptr[1] > 1 \
        else True
    for c in range(nc):  # sorted, no self-loops
        row = coarse.indices[coarse.indptr[c]:coarse.indptr[c + 1]]
        assert np.all(np.diff(row) > 0) and not np.any(row == c)
    np.testing.assert_array_equal(coarse.vertex_weights.sum(axis=0), level.vertex_weights.sum(axis=0))
    assert coarse.edge_weights.sum() // 2 == level.edge_weights.sum() // 2 - inside
    coarse_part = rng.integers(0, 3, size=nc).astype(np.int32)
    fine_part = project_partition(cmap, coarse_part)
    np.testing.assert_array_equal(fine_part, coarse_part[cmap])
    # projection keeps the cut
    assert edge_cut(level.indptr, level.indices, level.edge_weights, fine_part) == \
        edge_cut(coarse.indptr, coarse.indices, coarse.edge_weights, coarse_part)


@SETTINGS
@given(length=st.integers(1, 300), span_bits=st.integers(0, 30), offset=st.integers(0, 50), seed=st.integers(0, 10**6))
def test_radix_sort_of_a_row_sorts_and_carries_the_weights(length, span_bits, offset, seed):
    """The contraction's radix sort of one row (ids distinct, within [smallest, smallest + span]), with one to
    three digits, against NumPy's sort; the row sits inside a longer array that it must not touch outside."""
    from apportion.partitioning.vertex._contract_kernels import RADIX_BITS, _radix_sort_segment

    rng = np.random.default_rng(seed)
    span = max((1 << span_bits) - 1, length - 1)
    ids = (rng.choice(span + 1, size=length, replace=False) if span < 10**6 else
           np.unique(rng.integers(0, span + 1, size=length))).astype(np.int32) + 7
    length = ids.shape[0]
    ids[0], ids[-1] = 7, 7 + span  # the span is reached at both ends
    ids = np.unique(ids)
    rng.shuffle(ids)
    length = ids.shape[0]
    weights = rng.integers(1, 10**6, size=length)
    full_ids = np.concatenate([np.full(offset, -5, np.int32), ids, np.full(3, -6, np.int32)])
    full_w = np.concatenate([np.full(offset, -1, np.int64), weights, np.full(3, -2, np.int64)])
    _radix_sort_segment(full_ids, full_w, offset, offset + length, 7, int(ids.max()) - 7,
                        np.empty(length, np.int32), np.empty(length, np.int64), np.empty(1 << RADIX_BITS, np.int64))
    order = np.argsort(ids, kind="stable")
    np.testing.assert_array_equal(full_ids[offset:offset + length], ids[order])
    np.testing.assert_array_equal(full_w[offset:offset + length], weights[order])
    assert (full_ids[:offset] == -5).all() and (full_ids[offset + length:] == -6).all()
    assert (full_w[:offset] == -1).all() and (full_w[offset + length:] == -2).all()


@pytest.mark.parametrize("leaves,way", [(600, "scan"), (64, "radix"), (90, "radix"), (24, "quicksort")])
def test_contraction_orders_long_hub_rows(leaves, way):
    """A hub cluster's coarse row: 600 neighbours with ids within a few thousand are put in order by a scan of
    the marker, 64 or 90 spread over the same ids by a radix sort, 24 by the quicksort; each must give Pᵀ A P,
    rows in increasing order, and leave the marker clean for the rows after them."""
    from apportion.graph.csr import Graph
    from apportion.partitioning.vertex._contract_kernels import RADIX_MIN_LENGTH, SCAN_PER_COMPARISON

    rng = np.random.default_rng(leaves)
    n = 20000
    chosen = np.sort(rng.permutation(np.arange(8, n))[:leaves])
    span = int(chosen[-1] - chosen[0])
    scanned = span < SCAN_PER_COMPARISON * leaves * np.log2(leaves)
    assert way == ("scan" if scanned else "radix" if leaves >= RADIX_MIN_LENGTH else "quicksort")
    u = np.repeat(np.arange(8), 3 * leaves)  # hub members 0..7, each joined to random chosen leaves
    v = rng.choice(chosen, size=u.shape[0])
    pairs = {(int(a), int(b)) for a, b in zip(u, v)} | {(int(a), int(a) + 1) for a in range(8, n - 1, 3)}
    u, v = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    graph = Graph.from_edges(u, v, rng.integers(1, 9, size=u.shape[0]), n=n)
    level = LevelGraph.from_graph(graph)
    labels = np.arange(n, dtype=np.int32)
    labels[:8] = 0
    cmap, nc = labels_to_cmap(labels)
    coarse = contract_graph(level, cmap, nc)
    assert coarse.indptr[1] - coarse.indptr[0] == leaves
    a = sp.csr_array((level.edge_weights, level.indices, level.indptr), shape=(n, n))
    p = sp.csr_array((np.ones(n, dtype=np.int64), (np.arange(n), cmap)), shape=(n, nc))
    expected = sp.csr_matrix(p.T @ a @ p)
    expected.setdiag(0)
    expected.eliminate_zeros()
    expected.sort_indices()
    np.testing.assert_array_equal(coarse.indptr, expected.indptr)
    np.testing.assert_array_equal(coarse.indices, expected.indices)
    np.testing.assert_array_equal(coarse.edge_weights, expected.data)


@pytest.mark.parametrize("method,matching,rating", [("matching", "mutual", "heavy"), ("matching", "suitor", "heavy"),
                                                    ("clustering", "mutual", "heavy"),
                                                    ("clustering", "mutual", "normalized")])
def test_clusterings_respect_the_weight_cap_and_shrink(method, matching, rating):
    level = weighted_random_level(600, 2400, 4)
    options = preset_options("default", matching=matching, clustering_rating=rating)
    cap = np.array([6], dtype=np.int64)
    labels = cluster_level(level, cap, method, options, seed=3)
    cmap, nc = labels_to_cmap(labels)
    weights = np.zeros(nc, dtype=np.int64)
    np.add.at(weights, cmap, level.vertex_weights[:, 0])
    assert weights.max() <= 6
    assert nc < 0.8 * level.n
    if method == "matching":
        assert np.bincount(cmap).max() <= 2


def test_suitor_matching_equals_greedy_heaviest_first():
    """Suitor's matching is the greedy matching by decreasing edge weight (distinct weights)."""
    rng = np.random.default_rng(0)
    base = random_graph(120, 400, 1)
    u, v, _ = base.edges()
    from apportion.graph.csr import Graph

    w = rng.permutation(u.shape[0]) + 1
    graph = Graph.from_edges(u, v, w, n=base.n)
    level = LevelGraph.from_graph(graph)
    options = preset_options("default", matching="suitor", two_hop_threshold=1.0)
    labels = cluster_level(level, np.array([10**9]), "matching", options, seed=0)
    matched = np.zeros(base.n, dtype=bool)
    expected = np.arange(base.n)
    for i in np.argsort(-w):
        a, b = u[i], v[i]
        if not matched[a] and not matched[b]:
            matched[a] = matched[b] = True
            expected[a] = expected[b] = min(a, b)
    np.testing.assert_array_equal(labels, expected)


@SETTINGS
@given(seed=st.integers(0, 10**6), chunks=st.integers(2, 9), hub=st.floats(0.0, 0.9))
def test_parallel_contraction_gives_the_serial_result(seed, chunks, hub):
    """The parallel contraction builds slices of the coarse vertices on separate threads; with one hub cluster
    holding a `hub` share of the vertices, every slice count gives the one-slice graph."""
    import apportion.partitioning.vertex._contract_kernels as kernels

    level = weighted_random_level(300, 1500, seed)
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 60, size=300).astype(np.int32)
    labels[rng.random(300) < hub] = 7
    cmap, nc = labels_to_cmap(labels)
    args = (level.indptr, level.indices, level.edge_weights, level.vertex_weights, cmap, nc)
    serial = kernels.contract(*args, 1, np.dtype(np.int32))
    saved, kernels.PARALLEL_MIN_ENTRIES = kernels.PARALLEL_MIN_ENTRIES, 1  # small graphs would run serially
    try:
        sliced = kernels.contract(*args, chunks, np.dtype(np.int32))
    finally:
        kernels.PARALLEL_MIN_ENTRIES = saved
    for a, b in zip(serial, sliced):
        np.testing.assert_array_equal(a, b)


def test_coarsen_builds_a_shrinking_hierarchy():
    level = LevelGraph.from_graph(grid(40, 40))
    targets = np.full(4, 0.25)
    ctx = PartitionContext(k=4, targets=targets, epsilon=0.03, options=PRESETS["default"], seed=1,
                           max_block_weights=max_block_weights(level.vertex_weights.sum(axis=0), targets, 0.03))
    hierarchy, cmaps, _ = coarsen(level, ctx)
    assert len(hierarchy) >= 2 and len(cmaps) == len(hierarchy) - 1
    for fine, coarse, cmap in zip(hierarchy, hierarchy[1:], cmaps):
        assert coarse.n < fine.n and cmap.max() == coarse.n - 1
        assert coarse.vertex_weights.sum() == fine.vertex_weights.sum()


@pytest.mark.parametrize("coarsening, max_n, n, blocks, expected", [
    ("auto", 0, 10**7, None, "matching"),          # no limit: matching first at any size
    ("auto", 1000, 1000, None, "matching"),        # at the limit: still matching
    ("auto", 1000, 1001, None, "clustering"),      # above it: clustering from the first level
    ("matching", 1000, 5000, None, "matching"),    # the limit is for "auto" only
    ("clustering", 0, 10, None, "clustering"),
    ("auto", 0, 10, np.zeros(10, np.int32), "clustering"),  # V-cycles always cluster inside blocks
])
def test_first_coarsening_method(coarsening, max_n, n, blocks, expected):
    options = preset_options("default", coarsening=coarsening, matching_first_max_n=max_n)
    assert first_method(options, n, blocks) == expected


def test_auto_coarsening_starts_with_clustering_above_the_limit(monkeypatch):
    import apportion.partitioning.vertex.coarsen as coarsen_module

    level = LevelGraph.from_graph(grid(30, 30))
    targets = np.full(4, 0.25)
    used = []
    real = coarsen_module.cluster_level

    def recording(graph, cap, method, *args, **kwargs):
        used.append((graph.n, method))
        return real(graph, cap, method, *args, **kwargs)

    monkeypatch.setattr(coarsen_module, "cluster_level", recording)
    for max_n, first in ((0, "matching"), (899, "clustering"), (900, "matching")):
        used.clear()
        options = preset_options("default", coarsening="auto", matching_first_max_n=max_n)
        ctx = PartitionContext(k=4, targets=targets, epsilon=0.03, options=options, seed=1,
                               max_block_weights=max_block_weights(level.vertex_weights.sum(axis=0), targets, 0.03))
        coarsen(level, ctx)
        assert used[0] == (900, first)


def level_with_hubs(n: int, m: int, seed: int, ncon: int, hubs: int, leaves: int) -> LevelGraph:
    """`weighted_random_level` with `hubs` vertices (ids 0..hubs-1) each joined to `leaves` random others."""
    rng = np.random.default_rng(seed)
    base = weighted_random_level(n, m, seed, ncon=ncon)
    src = np.repeat(np.arange(n), np.diff(base.indptr))
    keep = src < base.indices
    u, v, w = src[keep], base.indices[keep].astype(np.int64), base.edge_weights[keep]
    for hub in range(hubs):
        joined = rng.choice(np.arange(hubs, n), size=leaves, replace=False)
        u, v, w = np.concatenate([u, np.full(joined.size, hub)]), np.concatenate([v, joined]), \
            np.concatenate([w, rng.integers(1, 9, size=joined.size)])
    from apportion.graph.csr import Graph

    graph = Graph.from_edges(u, v, w, n=n, vertex_weights=base.vertex_weights if ncon > 1 else
                             base.vertex_weights[:, 0])
    return LevelGraph.from_graph(graph)


def _random_start(level: LevelGraph, k: int, seed: int):
    rng = np.random.default_rng(seed)
    part = rng.integers(0, k, size=level.n).astype(np.int32)
    shares = rng.integers(1, 4, size=k).astype(float)
    shares /= shares.sum()
    limits = max_block_weights(level.vertex_weights.sum(axis=0), shares, 0.05)
    bw = block_weights(level.vertex_weights, part, k)
    rebalance_partition(level, part, bw, limits, final=True)
    return part, bw, limits


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(2, 6),
       which=st.sampled_from(["two_direction", "fm", "fm_gain_cache"]))
def test_refiners_never_increase_the_cut_and_keep_balance(seed, k, which):
    level = weighted_random_level(150, 500, seed)
    part, bw, limits = _random_start(level, k, seed)
    assert np.all(bw <= limits)
    before = edge_cut(level.indptr, level.indices, level.edge_weights, part)
    if which.startswith("fm"):
        gain = refine_fm(level, part, bw, limits, 3, 0.5, seed, cached=which == "fm_gain_cache")
    else:
        refine_two_direction(level, part, bw, limits, 3, seed)  # returns (moves, boundary)
        gain = None
    after = edge_cut(level.indptr, level.indices, level.edge_weights, part)
    assert after <= before
    if gain is not None:
        assert before - after == gain
    np.testing.assert_array_equal(bw, block_weights(level.vertex_weights, part, k))
    assert np.all(bw <= limits)


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(2, 6), ncon=st.integers(1, 2), seeds=st.integers(1, 40),
       hubs=st.integers(0, 2))
def test_fm_slots_grown_from_one_give_the_run_with_room_for_every_vertex(seed, k, ncon, seeds, hubs):
    """FM keeps its per-vertex state in slots that double when used up: started with room for one slot (so
    that it grows at every power of two) it makes exactly the moves it makes with room for all n vertices,
    hubs (degree above EXACT_UPDATE_DEGREE, keys updated without a recount) included."""
    level = level_with_hubs(200, 700, seed, ncon, hubs, 80)
    start, start_bw, limits = _random_start(level, k, seed)
    vertices = np.random.default_rng(seed).permutation(level.n)[:seeds].astype(np.int32)
    runs = []
    for room in (1, level.n):
        part, bw = start.copy(), start_bw.copy()
        gain = kway_fm(level.indptr, level.indices, level.edge_weights, level.vertex_weights, part, bw, limits, k,
                       4, 0.5, 0, seed, vertices, 0.0, -1, room, vertices[:0], vertices[:0], -1)
        runs.append((gain, part, bw))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    np.testing.assert_array_equal(runs[0][2], runs[1][2])
    assert runs[0][0] == edge_cut(level.indptr, level.indices, level.edge_weights, start) - edge_cut(
        level.indptr, level.indices, level.edge_weights, runs[0][1])


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(1, 6), n=st.integers(1, 120), chunks=st.sampled_from([1, 3, 7]))
def test_the_boundary_scan_on_several_threads_finds_every_vertex_with_a_foreign_neighbour(seed, k, n, chunks):
    """`all_boundary_vertices`, split into static vertex ranges on every thread, against a NumPy recount
    (a vertex is on the boundary when one of its arcs ends in another block)."""
    import apportion.partitioning.vertex.boundary as boundary

    level = weighted_random_level(n, 3 * n, seed)
    part = np.random.default_rng(seed).integers(0, k, size=n).astype(np.int32)
    owner = np.repeat(np.arange(n), np.diff(level.indptr))
    foreign = part[level.indices] != part[owner]
    expected = np.unique(owner[foreign]).astype(np.int32)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(boundary, "thread_budget", lambda: chunks)
        patch.setattr(boundary, "PARALLEL_BOUNDARY_MIN_ARCS", 0)
        found = boundary.all_boundary_vertices(level, part)
    assert found.dtype == np.int32
    np.testing.assert_array_equal(found, expected)


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(2, 5), movers=st.integers(1, 30))
def test_applying_requests_keeps_them_exactly_when_the_cut_does_not_grow(seed, k, movers):
    """`apply_if_not_worse` (the two-direction refiner's step 4) against a recount of the cut: moves that
    together raise it are undone (-1), others kept with the decrease returned and the block weights updated;
    the marks it leaves in `request` meanwhile are all cleared."""
    level = weighted_random_level(60, 200, seed)
    rng = np.random.default_rng(seed)
    part = rng.integers(0, k, size=level.n).astype(np.int32)
    bw = block_weights(level.vertex_weights, part, k)
    accepted = rng.permutation(level.n)[:movers].astype(np.int32)
    blocks = ((part[accepted] + rng.integers(1, k, size=movers)) % k).astype(np.int32)  # another block each
    moved = part.copy()
    moved[accepted] = blocks
    before = edge_cut(level.indptr, level.indices, level.edge_weights, part)
    after = edge_cut(level.indptr, level.indices, level.edge_weights, moved)
    request = np.full(level.n, -1, dtype=np.int32)
    kept = part.copy()
    decrease = apply_if_not_worse(level.indptr, level.indices, level.edge_weights, level.vertex_weights, kept, bw,
                                  accepted, blocks, request)
    np.testing.assert_array_equal(request, -1)
    if after > before:
        assert decrease == -1
        np.testing.assert_array_equal(kept, part)
    else:
        assert decrease == before - after
        np.testing.assert_array_equal(kept, moved)
    np.testing.assert_array_equal(bw, block_weights(level.vertex_weights, kept, k))


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(2, 8), ncon=st.integers(1, 2), hubs=st.integers(0, 3))
def test_gain_cache_fm_keeps_its_cache_exact_and_reports_the_true_gain(seed, k, ncon, hubs):
    """The gain-cache FM (moves, undone moves, several passes) leaves every vertex's row equal to its
    connections recounted from the final partition, reports exactly the cut it removed and keeps every block
    within its limit; `hubs` vertices joined to a third of the graph give it hubs to move."""
    n = 120
    level = level_with_hubs(n, 300, seed, ncon, hubs, n // 3)
    part, bw, limits = _random_start(level, k, seed)
    before = edge_cut(level.indptr, level.indices, level.edge_weights, part)
    conn, degree_weight = gain_cache(level, part, k)
    gain = kway_fm_cached(level.indptr, level.indices, level.edge_weights, level.vertex_weights, part, bw, limits,
                          k, 4, 0.5, 0, np.arange(n, dtype=np.int32), 0.0, conn, degree_weight, -1)
    after = edge_cut(level.indptr, level.indices, level.edge_weights, part)
    assert before - after == gain >= 0
    recounted, recounted_degree = gain_cache(level, part, k)
    np.testing.assert_array_equal(conn, recounted)
    np.testing.assert_array_equal(degree_weight, recounted_degree)
    np.testing.assert_array_equal(bw, block_weights(level.vertex_weights, part, k))
    assert np.all(bw <= limits)


def test_fm_patience_is_the_fraction_of_the_boundary_between_the_floor_and_the_cap():
    assert fm_patience(0.25, 100, 0) == FM_MIN_PATIENCE  # the floor
    assert fm_patience(0.25, 2_000_000, 0) == 500_000  # no cap
    assert fm_patience(0.25, 2_000_000, 8192) == 8192
    assert fm_patience(0.25, 20_000, 8192) == 5000  # under the cap: the fraction
    assert fm_patience(0.25, 100, 7) == 7  # a cap below the floor is the user's choice


def clique_behind_a_valley(h: int) -> tuple[LevelGraph, np.ndarray]:
    """(level, partition): block 0 a clique of s = 12 vertices, each with s - 1 - 2h edges to block 1, a
    clique of 16. Moving the clique over one vertex at a time gains -2h, -2h + 2, ...: the cut first rises and
    only the (2h + 2)-th move makes a new best, after 2h + 1 moves without one; the whole clique over removes
    every cut edge."""
    s, b = 12, 16
    d = s - 1 - 2 * h
    src, dst = [], []
    for clique, first in ((s, 0), (b, s)):
        for i in range(clique):
            for j in range(i + 1, clique):
                src.append(first + i)
                dst.append(first + j)
    for i in range(s):
        for j in range(d):
            src.append(i)
            dst.append(s + (i * d + j) % b)
    from apportion.graph.csr import Graph

    level = LevelGraph.from_graph(Graph.from_edges(np.array(src), np.array(dst), n=s + b))
    return level, np.repeat(np.array([0, 1], dtype=np.int32), [s, b])


@pytest.mark.parametrize("cached", [False, True])
@pytest.mark.parametrize("h", [1, 3])
def test_fm_crosses_a_valley_as_long_as_its_patience_allows(cached, h):
    """A pass needs 2h + 1 moves without a new best to get the clique over (`clique_behind_a_valley`): a cap of
    that many lets it (the whole cut removed), one fewer stops it before the new best, no cap (0) is the floor
    of FM_MIN_PATIENCE moves, plenty; the same in the plain kernel and the gain-cache one."""
    level, start = clique_behind_a_valley(h)
    limits = np.full((2, 1), level.n, dtype=np.int64)
    cut = edge_cut(level.indptr, level.indices, level.edge_weights, start)
    vertices = np.arange(level.n, dtype=np.int32)
    gains = {}
    for cap in (0, 2 * h + 1, 2 * h):
        part = start.copy()
        bw = block_weights(level.vertex_weights, part, 2)
        if cached:
            conn, degree_weight = gain_cache(level, part, 2)
            gain = kway_fm_cached(level.indptr, level.indices, level.edge_weights, level.vertex_weights, part, bw,
                                  limits, 2, 4, 0.25, cap, vertices, 0.0, conn, degree_weight, -1)
        else:
            gain = kway_fm(level.indptr, level.indices, level.edge_weights, level.vertex_weights, part, bw, limits,
                           2, 4, 0.25, cap, 0, vertices, 0.0, -1, 0, vertices[:0], vertices[:0], -1)
        assert gain == cut - edge_cut(level.indptr, level.indices, level.edge_weights, part)
        gains[cap] = gain
    assert gains[0] == gains[2 * h + 1] == cut > 0
    assert gains[2 * h] == 0


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(3, 8), hubs=st.integers(1, 3))
def test_gain_cache_fm_moves_the_same_whatever_the_cache_dtype(seed, k, hubs):
    """The cache is int16 where every vertex's edge weight fits (`gain_cache_dtype`), else int32 or int64; the
    entry width must not change a move: the same input in each width gives the same partition, gain and rows."""
    n = 120
    level = level_with_hubs(n, 300, seed, 1, hubs, n // 3)
    start, bw0, limits = _random_start(level, k, seed)
    conn16, degree_weight = gain_cache(level, start, k)
    assert conn16.dtype == np.int16
    results = []
    for dtype in (np.int16, np.int32, np.int64):
        part, bw, conn = start.copy(), bw0.copy(), conn16.astype(dtype)
        gain = kway_fm_cached(level.indptr, level.indices, level.edge_weights, level.vertex_weights, part, bw,
                              limits, k, 4, 0.5, 0, np.arange(n, dtype=np.int32), 0.0, conn, degree_weight.copy(),
                              -1)
        results.append((gain, part, conn.astype(np.int64)))
    for gain, part, conn in results[1:]:
        assert gain == results[0][0]
        np.testing.assert_array_equal(part, results[0][1])
        np.testing.assert_array_equal(conn, results[0][2])


def test_gain_cache_dtype_is_the_narrowest_that_holds_every_vertex_weight():
    from apportion.graph.csr import Graph

    path = LevelGraph.from_graph(Graph.from_edges(np.arange(9), np.arange(1, 10), n=10))
    assert gain_cache_dtype(path, 2) == np.int16
    heavy = Graph.from_edges(np.arange(9), np.arange(1, 10), n=10, weights=np.full(9, 20_000))
    assert gain_cache_dtype(LevelGraph.from_graph(heavy), 2) == np.int32  # 2 · 20,000 can exceed int16
    huge = Graph.from_edges(np.arange(9), np.arange(1, 10), n=10, weights=np.full(9, 2**29))
    assert gain_cache_dtype(LevelGraph.from_graph(huge), 2) == np.int64  # the total exceeds int32


def test_fm_passes_end_stops_where_a_geometric_series_of_gains_cannot_reach_the_alternative():
    # a pass that gains nothing, or less than min_improvement of the starting cut, ends FM
    assert fm_passes_end(0, 0, 100, 100, 0.0, -1)
    assert fm_passes_end(4, 0, 96, 100, 0.05, -1)
    assert not fm_passes_end(5, 0, 95, 100, 0.05, -1)
    # no alternative, the first pass, or a pass gaining no less than the one before: go on
    assert not fm_passes_end(10, 20, 50, 100, 0.0, -1)
    assert not fm_passes_end(10, 0, 50, 100, 0.0, 0)
    assert not fm_passes_end(10, 10, 50, 100, 0.0, 0)
    # gains 20 then 10 (r = 1/2): at most 10 more, so 50 can reach 40 but not 39
    assert not fm_passes_end(10, 20, 50, 100, 0.0, 40)
    assert fm_passes_end(10, 20, 50, 100, 0.0, 39)
    # gains 30 then 10 (r = 1/3): at most 5 more
    assert not fm_passes_end(10, 30, 50, 100, 0.0, 45)
    assert fm_passes_end(10, 30, 50, 100, 0.0, 44)


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(3, 6), cached=st.booleans())
def test_fm_gives_up_after_the_pass_that_fm_passes_end_names(seed, k, cached):
    """FM with `give_up_above` is FM stopped after the first pass from the second on at which `fm_passes_end`
    says the cut cannot reach it: the per-pass gains are read off runs of 1, 2, ... passes (each a prefix of
    the longer runs), and the run that gives up equals the run of exactly that many passes."""
    level = weighted_random_level(300, 900, seed)
    start, start_bw, limits = _random_start(level, k, seed)
    start_cut = int(edge_cut(level.indptr, level.indices, level.edge_weights, start))
    max_passes = 8
    runs = []  # (part, total gain) after 1, 2, ... passes
    for passes in range(1, max_passes + 1):
        part, bw = start.copy(), start_bw.copy()
        gain = refine_fm(level, part, bw, limits, passes, 0.5, seed, cached=cached)
        runs.append((part, gain))
    gains = [runs[0][1]] + [runs[p][1] - runs[p - 1][1] for p in range(1, max_passes)]
    assume(len([g for g in gains if g > 0]) >= 3)
    cuts_after = [start_cut - total for _, total in runs]
    for give_up in sorted({0, *(max(0, c - 1) for c in cuts_after), cuts_after[-1]}):
        expected = max_passes
        for p in range(max_passes):
            if fm_passes_end(gains[p], gains[p - 1] if p else 0, cuts_after[p], start_cut, 0.0, give_up):
                expected = p + 1
                break
        part, bw = start.copy(), start_bw.copy()
        gain = refine_fm(level, part, bw, limits, max_passes, 0.5, seed, cached=cached, give_up_above=give_up)
        assert gain == runs[expected - 1][1]
        np.testing.assert_array_equal(part, runs[expected - 1][0])


@settings(max_examples=300, deadline=None)
@given(data=st.data(), k=st.integers(2, 8), ncon=st.integers(1, 2))
def test_key_after_a_neighbour_move_is_the_exact_best_gain(data, k, ncon):
    """After a neighbour v of u moves from a to b, `key_after_neighbour_move` gives u's exact best feasible
    gain (what a scan of its row finds) from its best move before and the changed entries alone, or asks for a
    scan, and only where one is needed: u aimed at a, or at b and b is now full. Blocks near their limits, so
    that the move fills b and frees a."""
    ints = lambda lo, hi, size: np.array(data.draw(st.lists(st.integers(lo, hi), min_size=size, max_size=size)),
                                         dtype=np.int64)
    u, v = 0, 1
    own, a = data.draw(st.integers(0, k - 1)), data.draw(st.integers(0, k - 1))
    b = data.draw(st.integers(0, k - 1).filter(lambda x: x != a))
    w = data.draw(st.integers(1, 9))
    conn = np.zeros(2 * k, dtype=np.int32)
    conn[:k] = ints(0, 12, k)
    conn[a] += w  # v, in a, is u's neighbour
    conn[k:] = ints(0, 12, k)  # v's row: its other neighbours'
    conn[k + own] += w  # ... and u
    part = np.array([own, a], dtype=np.int32)
    vertex_weights = ints(1, 3, 2 * ncon).reshape(2, ncon)
    bw = ints(0, 10, k * ncon).reshape(k, ncon)
    max_weights = bw + ints(0, 4, k * ncon).reshape(k, ncon)
    target, gain = cached_best_move(u, own, conn, k, bw, vertex_weights, max_weights)
    assume(target >= 0)
    indptr, indices, edge_weights = (np.array([0, 1, 2], dtype=np.int64), np.array([v, u], dtype=np.int32),
                                     np.array([w, w], dtype=np.int64))
    records = new_records(part, conn, k)
    _move(v, a, b, indptr, indices, edge_weights, vertex_weights, part, bw, conn, k, records)
    # the move kept both records exact: each vertex's block and its row's entry for it
    assert records[u, PART] == own and records[u, INTERNAL] == conn[own]
    assert records[v, PART] == part[v] == b and records[v, INTERNAL] == conn[k + b]
    best, best_gain = key_after_neighbour_move(u, own, records[u, INTERNAL], a, b, w, target, gain, conn, k, bw,
                                               vertex_weights, max_weights)
    exact_block, exact_gain = cached_best_move(u, own, conn, k, bw, vertex_weights, max_weights)
    if best < 0:
        assert target == a or (target == b and not fits(bw, b, vertex_weights, u, max_weights))
    else:
        assert exact_block >= 0 and best_gain == exact_gain
        assert best != own and conn[best] - conn[own] == best_gain
        assert fits(bw, best, vertex_weights, u, max_weights)


def test_key_after_a_neighbour_leaves_the_own_block_for_the_aimed_one_rises_by_twice_the_edge():
    """The case the random test above meets only sometimes: u and its neighbour v both in block 0, u aiming at
    block 1; v moves from 0 to 1, so u's internal weight falls by w and its weight towards 1 rises by w: its key
    rises by 2w (one w would leave it stale), and that is the exact best gain."""
    k, w = 3, 2
    conn = np.array([4 + w, 5, 1, 3, 0, 2], dtype=np.int32)  # u's row (v in block 0 among it), then v's row
    conn[k + 0] += w  # v's edge to u
    part = np.array([0, 0], dtype=np.int32)
    vertex_weights = np.ones((2, 1), dtype=np.int64)
    bw = np.array([[10], [10], [10]], dtype=np.int64)
    max_weights = np.full((3, 1), 20, dtype=np.int64)
    target, gain = cached_best_move(0, 0, conn, k, bw, vertex_weights, max_weights)
    assert (target, gain) == (1, 5 - (4 + w))
    indptr, indices, edge_weights = (np.array([0, 1, 2], dtype=np.int64), np.array([1, 0], dtype=np.int32),
                                     np.array([w, w], dtype=np.int64))
    records = new_records(part, conn, k)
    _move(1, 0, 1, indptr, indices, edge_weights, vertex_weights, part, bw, conn, k, records)
    best, best_gain = key_after_neighbour_move(0, 0, records[0, INTERNAL], 0, 1, w, target, gain, conn, k, bw,
                                               vertex_weights, max_weights)
    assert (best, best_gain) == (1, gain + 2 * w)
    assert (best, best_gain) == cached_best_move(0, 0, conn, k, bw, vertex_weights, max_weights)


def test_gain_cache_is_used_where_hubs_are_and_the_cache_is_small():
    from apportion.graph.csr import Graph

    n = 401  # a star with a path through its leaves: max degree 400, 1,597 arcs
    src = np.concatenate([np.zeros(n - 1, dtype=np.int64), np.arange(1, n - 1)])
    dst = np.concatenate([np.arange(1, n), np.arange(2, n)])
    star = LevelGraph.from_graph(Graph.from_edges(src, dst, n=n))
    assert use_gain_cache(star, 4)
    assert not use_gain_cache(star, 2)  # two blocks: the plain kernel's one-block hub keys are exact
    assert use_gain_cache(star, 16)  # 401 · 16 entries: 4.0 per arc, within the 32 bytes allowed up to k = 64
    assert use_gain_cache(star, 32)  # 8.03 int16 entries per arc: 16.1 bytes (int32 entries would take 32.1)
    assert not use_gain_cache(star, 64)  # 16.1 int16 entries per arc: 32.1 bytes
    weighted = Graph.from_edges(src, dst, n=n, weights=np.full(src.shape[0], 100))  # 100 · 400: int32 entries
    assert use_gain_cache(LevelGraph.from_graph(weighted), 16)
    assert not use_gain_cache(LevelGraph.from_graph(weighted), 32)
    assert not use_gain_cache(LevelGraph.from_graph(grid(20, 20)), 2)  # no hubs: the plain kernel is exact
    u, v = np.triu_indices(70, 1)  # a clique of 70 (degree 69, above the hub degree): 4,830 arcs
    clique = LevelGraph.from_graph(Graph.from_edges(u.astype(np.int64), v.astype(np.int64), n=70))
    assert use_gain_cache(clique, 100)  # 1.45 int16 entries per arc
    assert use_gain_cache(clique, 250)  # 3.6 int16 entries per arc: 7.2 bytes, within the 8 allowed past k = 64
    assert not use_gain_cache(clique, 300)  # 4.3 per arc: 8.7 bytes


def test_gain_cache_fm_finds_what_stale_hub_keys_miss():
    """On a heavy-tailed graph the plain kernel keeps a hub's key towards one block only; the cached kernel's
    keys follow every move. From `fast`'s partition of rmat scale 13 at k = 32 (no FM on heavy-tailed graphs),
    measured: the plain kernel removes 372 cut edges, the cached one 673 (scales 12-13 at k = 8, 16, 32: the
    cached one 1.04-2.42 times as many in all six; since label propagation samples a hub's arcs). Both keep the
    limits."""
    import apportion

    graph = apportion.generate("rmat", scale=13, seed=1)
    level = LevelGraph.from_graph(graph)
    k = 32
    # the multilevel result itself (the hub-block candidate, which wins here, leaves FM other work)
    fast = preset_options("fast", hub_block=False)
    start = apportion.partition(graph, k, preset=fast, seed=0, threads=1).assignment.astype(np.int32)
    gains = {}
    for cached in (False, True):
        part = start.copy()
        bw = block_weights(level.vertex_weights, part, k)
        limits = np.maximum(max_block_weights(level.vertex_weights.sum(axis=0), np.full(k, 1 / k), 0.03), bw)
        gains[cached] = refine_fm(level, part, bw, limits, 8, 0.25, 0, cached=cached)
        assert np.all(bw <= limits)
        assert gains[cached] == edge_cut(level.indptr, level.indices, level.edge_weights, start) - edge_cut(
            level.indptr, level.indices, level.edge_weights, part)
    assert gains[True] > 1.5 * gains[False] > 0


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(2, 8), ncon=st.integers(1, 2))
def test_rebalancer_reaches_balance_from_any_start(seed, k, ncon):
    level = weighted_random_level(200, 600, seed, ncon=ncon)
    rng = np.random.default_rng(seed)
    part = np.zeros(level.n, dtype=np.int32)  # everything in block 0: as unbalanced as it gets
    part[rng.random(level.n) < 0.2] = k - 1
    shares = np.full(k, 1 / k)
    limits = max_block_weights(level.vertex_weights.sum(axis=0), shares, 0.1)
    bw = block_weights(level.vertex_weights, part, k)
    assert rebalance_partition(level, part, bw, limits, final=True)
    np.testing.assert_array_equal(bw, block_weights(level.vertex_weights, part, k))
    assert np.all(bw <= limits)
    assert part.min() >= 0 and part.max() < k


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(2, 9), ncon=st.integers(1, 3), slack=st.sampled_from([0.0, 0.02, 0.1]))
def test_overload_descent_only_lowers_the_overload_and_keeps_the_weights_true(seed, k, ncon, slack):
    """`descend_overload` (the last balance repair): block weights stay those of `part`, the total overload never
    grows, and success means every limit met."""
    rng = np.random.default_rng(seed)
    n = 120
    vw = np.ascontiguousarray(rng.choice([0, 1, 2, 4, 8, 24, 52], size=(n, ncon)).astype(np.int64))
    part = rng.integers(0, k, size=n).astype(np.int32)
    limits = max_block_weights(vw.sum(axis=0), np.full(k, 1 / k), slack)
    bw = block_weights(vw, part, k)

    def overload(weights):
        return (np.maximum(weights - limits, 0) / np.maximum(vw.sum(axis=0), 1)).sum()

    before = overload(bw)
    ok = descend_overload(vw, part, bw, limits, 10 * n, 64)
    np.testing.assert_array_equal(bw, block_weights(vw, part, k))
    assert overload(bw) <= before + 1e-12
    assert ok == bool(np.all(bw <= limits))


@pytest.mark.parametrize("preset", ["fast", "default", "strong"])
@pytest.mark.parametrize("k", [3, 8, 16])
def test_two_constraints_at_three_per_cent_are_met_where_moves_must_chain(preset, k):
    """METIS's multi-constraint example: at k = 8 one block ended 34 over in its second constraint with every
    other block full in its first, and the partitioner said no partition existed (the greedy repair moves a
    vertex only where it fits). Through `descend_overload`'s chains every preset and seed finds one."""
    graph = datasets.load("test_mgraph")
    for seed in range(4):
        result = partition(graph, k, preset=preset, seed=seed, imbalance=0.03)
        assert np.all(result.block_weights <= result.max_block_weights)


@pytest.mark.parametrize("k, epsilon", [(2, 0.0), (24, 0.01)])
def test_two_constraints_near_exact_balance_are_packed_from_scratch_where_repair_fails(k, epsilon):
    """Partitions an integer program finds (METIS's two-constraint example, k = 2 exactly balanced, k = 24 at
    1 %) that no repair of the multilevel partition reached for some seeds: the packing from scratch does."""
    graph = datasets.load("test_mgraph")
    for seed in range(4):
        result = partition(graph, k, preset="fast", seed=seed, imbalance=epsilon)
        assert np.all(result.block_weights <= result.max_block_weights)


def test_cluster_cap_scales_with_smallest_target():
    level = LevelGraph.from_graph(grid(50, 50))
    even = cluster_weight_cap(level, 8, np.full(8, 1 / 8), 0.03, PRESETS["default"])
    skewed_targets = np.array([10, 1, 1, 1, 1, 1, 1, 1], dtype=float)
    skewed = cluster_weight_cap(level, 8, skewed_targets / skewed_targets.sum(), 0.03, PRESETS["default"])
    assert skewed[0] <= even[0]


def test_recount_helper_agrees_with_kernels():
    graph = random_graph(100, 300, 9)
    level = LevelGraph.from_graph(graph)
    part = (np.arange(100) % 3).astype(np.int32)
    cut, weights = recount(graph, part, 3)
    assert cut == edge_cut(level.indptr, level.indices, level.edge_weights, part)
    np.testing.assert_array_equal(weights, block_weights(level.vertex_weights, part, 3))


@settings(max_examples=40, deadline=None)
@given(keys=st.lists(st.integers(-5, 5) | st.integers(-2**62, 2**62), max_size=300))
def test_stable_argsort_equals_numpy_mergesort(keys):
    from apportion.partitioning.vertex._partition_kernels import stable_argsort

    values = np.array(keys, dtype=np.int64)
    np.testing.assert_array_equal(stable_argsort(values), np.argsort(values, kind="mergesort"))
    floats = values.astype(np.float64) / 3
    np.testing.assert_array_equal(stable_argsort(floats), np.argsort(floats, kind="mergesort"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mutual_matching_is_a_maximal_capped_matching_with_several_constraints(seed):
    """Mutual heavy-edge choice through the shared segmented arg-best (`graph._segmented_kernels.best_in_row`):
    with enough rounds the heaviest feasible edge between unmatched vertices is always a mutual pick, so the
    result is a matching of graph edges, within the cap in every constraint, and maximal among feasible edges."""
    from apportion.partitioning.vertex.coarsen import mutual_matching

    rng = np.random.default_rng(seed)
    level = weighted_random_level(300, 1200, 4)
    vw = np.ascontiguousarray(rng.integers(1, 5, (level.n, 2)).astype(np.int64))
    cap = np.array([6, 5], dtype=np.int64)
    labels = mutual_matching(level.indptr, level.indices, level.edge_weights, vw, cap, 10_000, seed)
    mate = np.full(level.n, -1)
    for v in range(level.n):
        if labels[v] != v:
            mate[v], mate[labels[v]] = labels[v], v
    for v in range(level.n):
        nbrs = level.indices[level.indptr[v]:level.indptr[v + 1]]
        if mate[v] >= 0:
            assert mate[v] in nbrs and mate[mate[v]] == v
            assert (vw[v] + vw[mate[v]] <= cap).all()
        else:  # maximal: no unmatched neighbour it could still merge with
            for u in nbrs:
                assert mate[u] >= 0 or u == v or not (vw[u] + vw[v] <= cap).all()


def test_the_finest_level_is_the_graph_itself_and_unit_weights_take_no_memory():
    import apportion

    mesh = apportion.generate("delaunay", 500, seed=3)
    level = LevelGraph.from_graph(mesh)
    assert np.shares_memory(level.indptr, mesh.indptr) and np.shares_memory(level.indices, mesh.indices)
    assert level.edge_weights.shape == mesh.indices.shape and level.edge_weights.strides == (0,)
    assert level.vertex_weights.shape == (mesh.n, 1) and level.vertex_weights.strides == (0, 0)
    assert (level.edge_weights == 1).all() and (level.vertex_weights == 1).all()
    assert not any(a.flags.writeable for a in level)
    weighted = mesh.with_weights(vertex_weights=np.arange(1, mesh.n + 1),
                                 edge_weights=np.ones(mesh.indices.shape[0], dtype=np.int64) * 2)
    heavy = LevelGraph.from_graph(weighted)
    assert heavy.edge_weights.dtype == np.int32 and (heavy.edge_weights == 2).all()  # int32: their total fits
    assert np.shares_memory(heavy.vertex_weights, weighted.vertex_weights)
    # the partitioner reads these views and leaves the graph as it was
    before = [a.copy() for a in (mesh.indptr, mesh.indices)]
    result = apportion.partition(mesh, 4, seed=1)
    assert all(np.array_equal(a, b) for a, b in zip(before, (mesh.indptr, mesh.indices)))
    # a subgraph of unit weights keeps unit weights; real weights are copied
    some = np.arange(0, mesh.n, 3, dtype=np.int64)
    sub = induced_level(*level, some)
    assert sub.edge_weights.strides == (0,) and sub.vertex_weights.strides == (0, 0)
    heavy_sub = induced_level(*heavy, some)
    assert heavy_sub.edge_weights.strides == (4,) and (heavy_sub.edge_weights == 2).all()
    assert np.array_equal(heavy_sub.vertex_weights[:, 0], weighted.vertex_weights[some])
    assert np.array_equal(sub.indptr, heavy_sub.indptr) and np.array_equal(sub.indices, heavy_sub.indices)
    assert sub.edge_weights.shape == sub.indices.shape and sub.vertex_weights.shape == (some.shape[0], 1)
    cmap = np.arange(mesh.n, dtype=np.int32) // 2
    coarse = contract_graph(level, cmap, int(cmap.max()) + 1)
    assert not any(a.flags.writeable for a in coarse)  # coarse levels are read-only too
    assert result.cut == edge_cut(level.indptr, level.indices, level.edge_weights, result.assignment)


def _with_random_weights(u, v, n, rng):
    """The graph of edges (u, v) on n vertices with random edge weights 1-8 and vertex weights 1-4."""
    from apportion.graph.csr import Graph

    return Graph.from_edges(u, v, rng.integers(1, 9, size=u.shape[0]), n=n, vertex_weights=rng.integers(1, 5, size=n))


@SETTINGS
@given(n=st.integers(2, 120), density=st.floats(0.2, 3), isolated=st.floats(0.0, 0.8), weighted=st.booleans(),
       seed=st.integers(0, 10**6))
def test_the_core_level_is_the_induced_subgraph_of_the_non_isolated_vertices(n, density, isolated, weighted, seed):
    """`core_level` (ids relabelled in parallel, edge weights shared) equals `induced_level` of the same
    vertices, for unit and real weights, whatever share of the vertices is isolated."""
    from apportion.graph.csr import Graph
    from apportion.partitioning.vertex import _contract_kernels
    from apportion.partitioning.vertex.contract import core_level

    rng = np.random.default_rng(seed)
    alone = rng.random(n) < isolated
    linked = np.flatnonzero(~alone)
    m = int(linked.shape[0] * density) if linked.shape[0] else 0
    u, v = (rng.choice(linked, size=m), rng.choice(linked, size=m)) if m else (np.zeros(0, np.int64),) * 2
    keep = u != v
    pairs = sorted({(int(min(a, b)), int(max(a, b))) for a, b in zip(u[keep], v[keep])})
    u, v = np.array([p[0] for p in pairs], dtype=np.int64), np.array([p[1] for p in pairs], dtype=np.int64)
    graph = _with_random_weights(u, v, n, rng) if weighted else Graph.from_edges(u, v, n=n)
    level = LevelGraph.from_graph(graph)
    core_ids = np.flatnonzero(np.diff(graph.indptr) > 0)
    saved, _contract_kernels.PARALLEL_MIN_ENTRIES = _contract_kernels.PARALLEL_MIN_ENTRIES, 1
    try:
        import apportion.partitioning.vertex.contract as contract_module
        contract_module.PARALLEL_MIN_ENTRIES = 1  # relabel on several threads even for small graphs
        core = core_level(*level, core_ids)
    finally:
        _contract_kernels.PARALLEL_MIN_ENTRIES = saved
        contract_module.PARALLEL_MIN_ENTRIES = saved
    expected = induced_level(*level, core_ids)
    for got, want in zip(core, expected):
        np.testing.assert_array_equal(got, want)
    assert not any(a.flags.writeable for a in core)
    if u.shape[0]:  # unit weights stay a broadcast 1; real ones are the level's own array, not a copy
        assert (core.edge_weights.strides == (0,)) == (not weighted)
        assert not weighted or np.shares_memory(core.edge_weights, level.edge_weights)


@SETTINGS
@given(n=st.integers(1, 120), density=st.floats(0.0, 4), share=st.floats(0.0, 1.0), weighted=st.booleans(),
       seed=st.integers(0, 10**6))
def test_an_induced_level_cut_out_on_several_threads_is_the_serial_one(n, density, share, weighted, seed):
    """`induced_level` on several threads (ranges of equal arc counts, a count pass and a fill pass) gives the
    arrays of the serial `induced_subgraph` (one chunk of the same passes), and both are SciPy's submatrix of the
    adjacency, for any subset, unit and real weights."""
    from apportion._chunked import using_threads
    from apportion.graph.csr import Graph
    from apportion.partitioning.vertex import contract as contract_module
    from apportion.partitioning.vertex._initial_kernels import induced_subgraph

    rng = np.random.default_rng(seed)
    m = int(n * density)
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = u != v
    u, v = u[keep], v[keep]
    graph = _with_random_weights(u, v, n, rng) if weighted else Graph.from_edges(u, v, n=n)
    level = LevelGraph.from_graph(graph)
    chosen = np.flatnonzero(rng.random(n) < share).astype(np.int64)
    saved, contract_module.PARALLEL_MIN_ENTRIES = contract_module.PARALLEL_MIN_ENTRIES, 0
    try:
        with using_threads(2):
            got = induced_level(*level, chosen)
    finally:
        contract_module.PARALLEL_MIN_ENTRIES = saved
    ptr, idx, w, vw = induced_subgraph(level.indptr, level.indices, level.edge_weights, level.vertex_weights,
                                       chosen, True, True)
    for have, want in zip(got, (ptr, idx, w, vw)):
        np.testing.assert_array_equal(have, want)
    reference = graph.to_scipy().tocsr()[chosen][:, chosen]  # rows keep their increasing ids
    reference.sort_indices()
    np.testing.assert_array_equal(ptr, reference.indptr)
    np.testing.assert_array_equal(idx, reference.indices)
    np.testing.assert_array_equal(w, reference.data if weighted else np.ones_like(reference.data))
    np.testing.assert_array_equal(vw[:, 0], level.vertex_weights[chosen, 0])
    assert not any(a.flags.writeable for a in got)
    assert (got.edge_weights.strides == (0,)) == (not weighted) or idx.shape[0] == 0


@SETTINGS
@given(n=st.integers(2, 150), density=st.floats(0.5, 4), k=st.integers(1, 6), seed=st.integers(0, 10**6))
def test_the_parallel_cut_equals_the_serial_one(n, density, k, seed):
    """`edge_cut_parallel` (slices of the vertices on every thread, as for graphs of 2^20 arcs and more) counts
    what `edge_cut` counts."""
    from apportion.partitioning.vertex import _partition_kernels as kernels

    level = weighted_random_level(n, int(n * density) + 1, seed)
    part = np.random.default_rng(seed).integers(0, k, size=n).astype(np.int32)
    saved, kernels.PARALLEL_CUT_MIN_ENTRIES = kernels.PARALLEL_CUT_MIN_ENTRIES, 0
    try:
        got = kernels.edge_cut_parallel(level.indptr, level.indices, level.edge_weights, part)
    finally:
        kernels.PARALLEL_CUT_MIN_ENTRIES = saved
    assert got == edge_cut(level.indptr, level.indices, level.edge_weights, part)
    a = sp.csr_array((level.edge_weights, level.indices, level.indptr), shape=(n, n)).tocoo()
    assert got == int(a.data[part[a.row] != part[a.col]].sum()) // 2


@SETTINGS
@given(n=st.integers(2, 150), density=st.floats(0.5, 6), cap=st.integers(1, 40), seed=st.integers(0, 10**6),
       normalized=st.booleans(), confined=st.booleans(), max_arcs=st.sampled_from([2, 5, None]))
def test_label_propagation_chooses_the_same_with_dense_rows_and_hash_tables(n, density, cap, seed, normalized,
                                                                             confined, max_arcs):
    """Dense rating rows (small levels of high degree) and hash tables give the same clustering, with and without
    blocks to respect and with either rating; weight limits binding or not; rows read whole or sampled
    (`max_arcs`); on one thread and on two (the tables have a row per thread)."""
    import numba

    from apportion.partitioning.vertex import coarsen as coarsen_module

    level = weighted_random_level(n, int(n * density) + 1, seed)
    blocks = np.random.default_rng(seed).integers(0, 3, size=n).astype(np.int32) if confined else NO_BLOCKS
    limit = np.array([cap], dtype=np.int64)
    runs = []
    threads = numba.get_num_threads()
    saved = coarsen_module.DENSE_RATING_MAX_VERTICES, coarsen_module.DENSE_RATING_MIN_DEGREE
    try:
        for max_vertices, min_degree in ((0, 10**9), (10**9, 0)):  # hash tables everywhere, then dense rows
            coarsen_module.DENSE_RATING_MAX_VERTICES = max_vertices
            coarsen_module.DENSE_RATING_MIN_DEGREE = min_degree
            assert coarsen_module.dense_rating(n, int(level.indptr[-1])) == (max_vertices > 0)
            for count in (threads, 1):
                numba.set_num_threads(count)
                runs.append(coarsen_module.label_propagation_clustering(*level, limit, 3, 4, seed, 0.0, blocks,
                                                                        normalized, max_arcs))
            numba.set_num_threads(threads)
    finally:
        numba.set_num_threads(threads)
        coarsen_module.DENSE_RATING_MAX_VERTICES, coarsen_module.DENSE_RATING_MIN_DEGREE = saved
    for other in runs[1:]:
        np.testing.assert_array_equal(runs[0], other)
    weights = np.bincount(runs[1], weights=level.vertex_weights[:, 0], minlength=n)
    assert weights.max() <= max(cap, level.vertex_weights[:, 0].max())


@pytest.mark.parametrize("dense", [False, True])
def test_label_propagation_rates_a_long_row_on_an_even_sample_of_its_arcs(dense):
    """A vertex of more than `max_arcs` arcs rates the clusters on every ceil(degree / max_arcs)-th arc of its row
    from the first: a hub whose arcs to odd vertices (positions 0, 2, 4, 6 of its row) weigh 1 and to even ones 5
    joins an even vertex's cluster when it reads its whole row and an odd one's when it reads every second arc."""
    from apportion.graph.csr import Graph
    from apportion.partitioning.vertex import coarsen as coarsen_module

    spokes = np.arange(1, 9)
    graph = Graph.from_edges(np.zeros(8, dtype=np.int64), spokes, np.where(spokes % 2 == 1, 1, 5), n=9)
    level = LevelGraph.from_graph(graph)
    assert np.array_equal(level.indices[:8], spokes)  # the hub's row in id order
    limit = np.array([100], dtype=np.int64)
    saved = coarsen_module.DENSE_RATING_MAX_VERTICES, coarsen_module.DENSE_RATING_MIN_DEGREE
    try:
        if dense:
            coarsen_module.DENSE_RATING_MAX_VERTICES, coarsen_module.DENSE_RATING_MIN_DEGREE = 10**9, 0
        chosen = {}
        for max_arcs in (4, 8, 100):
            labels = coarsen_module.label_propagation_clustering(*level, limit, 1, 1, 7, 0.0, NO_BLOCKS, False,
                                                                 max_arcs)
            chosen[max_arcs] = int(labels[0])
    finally:
        coarsen_module.DENSE_RATING_MAX_VERTICES, coarsen_module.DENSE_RATING_MIN_DEGREE = saved
    assert chosen[4] % 2 == 1 and chosen[4] in spokes
    assert chosen[8] % 2 == 0 and chosen[8] in spokes and chosen[100] == chosen[8]


@pytest.mark.parametrize("k,targets", [(16, None), (11, [3, 1, 1, 2, 1, 1, 1, 4, 1, 1, 2])])
def test_initial_partition_splits_halves_in_parallel_with_the_serial_result(monkeypatch, k, targets):
    """Recursive bisection runs the two halves of a split on two threads (`_chunked.run_pair`) and gives the
    very partition of one thread; the pairs are really used, and every block gets its vertices."""
    import numba

    from apportion.partitioning.vertex import initial

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two Numba threads")
    graph = LevelGraph.from_graph(grid(45, 45))
    shares = np.full(k, 1.0 / k) if targets is None else np.asarray(targets, float) / sum(targets)
    pairs = []
    real = initial.run_pair

    def counting(first, second):
        pairs.append(numba.get_num_threads())
        real(first, second)

    monkeypatch.setattr(initial, "run_pair", counting)
    results = []
    for threads in (1, 2):
        total = graph.vertex_weights.sum(axis=0)
        ctx = PartitionContext(k=k, targets=shares, epsilon=0.03,
                               max_block_weights=max_block_weights(total, shares, 0.03),
                               options=PRESETS["default"], seed=3, threads=threads)
        results.append(initial.initial_partition(graph, ctx, 11))
    np.testing.assert_array_equal(results[0], results[1])
    assert 2 in pairs  # the top split ran its halves on the two threads
    assert np.all(np.bincount(results[1], minlength=k) > 0)
