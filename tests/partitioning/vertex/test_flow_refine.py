"""Flow-based refinement (flow.py, _flow_kernels.py): never a larger cut, never a block above its limit,
deterministic, and the known best balanced cut of planted two-cluster graphs from a bad split; the max-flow
kernel's value equals networkx's on random networks."""

from __future__ import annotations

import dataclasses

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from apportion.graph.csr import Graph
from apportion.partitioning.vertex._flow_kernels import augment
from apportion.partitioning.vertex._partition_kernels import block_weights
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex.flow import block_pairs, disjoint_batches, refine_flows
from apportion.partitioning.vertex.options import PRESETS

from vertex_helpers import recount


def _random_weighted_graph(n: int, m: int, ncon: int, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, size=m)
    dst = rng.integers(0, n, size=m)
    weights = rng.integers(1, 5, size=m)
    vw = rng.integers(1, 4, size=(n, ncon)) if ncon > 1 else rng.integers(1, 4, size=n)
    return Graph.from_edges(src, dst, weights, n=n, vertex_weights=vw)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 60), density=st.floats(1.0, 4.0), k=st.integers(2, 5), ncon=st.integers(1, 2),
       slack=st.integers(0, 3), fraction=st.sampled_from([0.1, 0.5, 1.0]), depth=st.sampled_from([0, 1, 3]),
       seed=st.integers(0, 10_000))
def test_flows_never_worsen_cut_or_break_limits(n, density, k, ncon, slack, fraction, depth, seed):
    graph = _random_weighted_graph(n, int(density * n), ncon, seed)
    rng = np.random.default_rng(seed + 1)
    part = rng.integers(0, k, size=n).astype(np.int32)
    level = LevelGraph.from_graph(graph)
    bw = block_weights(level.vertex_weights, part, k)
    # limits that the random split meets, with a little random room: blocks at or near their limits
    limits = bw + rng.integers(0, slack + 1, size=bw.shape)
    cut_before, _ = recount(graph, part, k)
    gain = refine_flows(level, part, bw, limits, 3, fraction, seed, max_depth=depth)
    cut_after, weights = recount(graph, part, k)
    assert gain >= 0
    assert cut_after == cut_before - gain
    assert np.array_equal(weights, bw)
    assert np.all(weights <= limits)

    again = np.random.default_rng(seed + 1).integers(0, k, size=n).astype(np.int32)
    bw_again = block_weights(level.vertex_weights, again, k)
    refine_flows(level, again, bw_again, limits, 3, fraction, seed, max_depth=depth)
    assert np.array_equal(again, part)  # same seed, same result


def _two_clusters(size_a: int, size_b: int, bridges: int, seed: int) -> Graph:
    """Two cliques joined by `bridges` edges: the only balanced 2-way cut with limits (size_a, size_b) of
    weight below min(size) - 1 is the bridges."""
    rng = np.random.default_rng(seed)
    edges = [(u, v) for u in range(size_a) for v in range(u + 1, size_a)]
    edges += [(size_a + u, size_a + v) for u in range(size_b) for v in range(u + 1, size_b)]
    for _ in range(bridges):
        edges.append((int(rng.integers(0, size_a)), size_a + int(rng.integers(0, size_b))))
    e = np.array(edges)
    return Graph.from_edges(e[:, 0], e[:, 1], n=size_a + size_b, merge_duplicates=True)


@settings(max_examples=20, deadline=None)
@given(size_a=st.integers(6, 25), size_b=st.integers(6, 25), bridges=st.integers(1, 4),
       swapped=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_flows_find_the_planted_bisection_from_a_bad_split(size_a, size_b, bridges, swapped, seed):
    graph = _two_clusters(size_a, size_b, bridges, seed)
    truth = np.r_[np.zeros(size_a, dtype=np.int32), np.ones(size_b, dtype=np.int32)]
    best_cut, _ = recount(graph, truth, 2)
    assert best_cut <= bridges
    rng = np.random.default_rng(seed)
    swapped = min(swapped, (min(size_a, size_b) - 1) // 2)  # a minority: each block keeps its cluster's majority
    part = truth.copy()
    part[rng.choice(size_a, swapped, replace=False)] = 1
    part[size_a + rng.choice(size_b, swapped, replace=False)] = 0
    level = LevelGraph.from_graph(graph)
    bw = block_weights(level.vertex_weights, part, 2)
    limits = np.array([[size_a], [size_b]], dtype=np.int64)  # epsilon = 0: blocks exactly at their limits
    cut_before, _ = recount(graph, part, 2)
    assert cut_before > best_cut
    refine_flows(level, part, bw, limits, 4, 1.0, seed)
    cut_after, weights = recount(graph, part, 2)
    assert np.all(weights <= limits)
    assert cut_after == best_cut


@settings(max_examples=30, deadline=None)
@given(n=st.integers(3, 30), density=st.floats(1.0, 5.0), seed=st.integers(0, 10_000))
def test_max_flow_value_equals_networkx(n, density, seed):
    rng = np.random.default_rng(seed)
    m = int(density * n)
    src = rng.integers(0, n, size=m)
    dst = rng.integers(0, n, size=m)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    w = rng.integers(1, 10, size=src.shape[0])
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for u, v, c in zip(src, dst, w):
        if g.has_edge(u, v):
            g[u][v]["capacity"] += int(c)
        else:
            g.add_edge(int(u), int(v), capacity=int(c))
    pairs = [(u, v, d["capacity"]) for u, v, d in g.edges(data=True)]
    degree = np.zeros(n + 1, dtype=np.int64)
    for u, v, _ in pairs:
        degree[u + 1] += 1
        degree[v + 1] += 1
    start = np.cumsum(degree)
    fill = start[:-1].copy()
    head = np.empty(2 * len(pairs), dtype=np.int32)
    cap = np.empty(2 * len(pairs), dtype=np.int64)
    rev = np.empty(2 * len(pairs), dtype=np.int64)
    for u, v, c in pairs:
        a, b = fill[u], fill[v]
        fill[u] += 1
        fill[v] += 1
        head[a], head[b], cap[a], cap[b], rev[a], rev[b] = v, u, c, c, b, a
    is_source = np.zeros(n, dtype=np.bool_)
    is_sink = np.zeros(n, dtype=np.bool_)
    is_source[0] = True
    is_sink[n - 1] = True
    flow = np.zeros(head.shape[0], dtype=np.int64)
    scratch = [np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int32),
               np.empty(n, dtype=np.int64)]
    value = augment(start, head, cap, rev, flow, is_source, is_sink, *scratch, 1 << 60)
    expected = nx.maximum_flow_value(g, 0, n - 1) if n > 1 else 0
    assert value == expected
    # a flow: antisymmetric, within capacity, conserved away from the terminals
    assert np.array_equal(flow, -flow[rev])
    assert np.all(flow <= cap)
    net = np.array([flow[start[x]:start[x + 1]].sum() for x in range(n)])
    assert np.all(net[1:n - 1] == 0) and net[0] == value


def test_block_pairs_are_the_quotient_graph():
    graph = _random_weighted_graph(50, 150, 1, 3)
    part = np.random.default_rng(4).integers(0, 4, size=50).astype(np.int32)
    level = LevelGraph.from_graph(graph)
    boundary = np.arange(50, dtype=np.int32)
    pairs = block_pairs(level, part, 4, boundary)
    u, v, w = graph.edges()
    expected = {}
    for a, b, c in zip(part[u], part[v], w):
        if a != b:
            key = (min(a, b), max(a, b))
            expected[key] = expected.get(key, 0) + int(c)
    assert {(int(a), int(b)): int(c) for a, b, c in pairs} == expected
    assert list(pairs[:, 2]) == sorted(pairs[:, 2], reverse=True)


@settings(max_examples=60, deadline=None)
@given(k=st.integers(2, 9), pairs=st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=40))
def test_disjoint_batches_keep_the_order_of_pairs_that_share_a_block(k, pairs):
    pairs = np.array([(min(a, b) % k, max(a, b) % k) for a, b in pairs if a % k != b % k] or np.zeros((0, 2)),
                     dtype=np.int64).reshape(-1, 2)
    batches = disjoint_batches(pairs, k)
    which = np.full(pairs.shape[0], -1)
    for number, batch in enumerate(batches):
        assert batch.shape[0] > 0
        blocks = pairs[batch].ravel()
        assert np.unique(blocks).shape[0] == blocks.shape[0]  # no block twice in a batch
        assert np.all(which[batch] == -1)
        which[batch] = number
    assert np.all(which >= 0)  # every pair in exactly one batch
    for i in range(pairs.shape[0]):
        for j in range(i + 1, pairs.shape[0]):
            if set(pairs[i]) & set(pairs[j]):
                assert which[i] < which[j]  # a later pair sharing a block runs in a later batch


@settings(max_examples=25, deadline=None)
@given(n=st.integers(20, 120), k=st.integers(4, 9), seed=st.integers(0, 10_000), threads=st.integers(1, 3))
def test_batched_pairs_give_what_the_pairs_one_after_the_other_give(n, k, seed, threads):
    import numba

    from apportion.partitioning.vertex._flow_kernels import refine_pair
    from apportion._kernels.hashing import mix_hash

    graph = _random_weighted_graph(n, 3 * n, 1, seed)
    level = LevelGraph.from_graph(graph)
    start = np.random.default_rng(seed).integers(0, k, size=n).astype(np.int32)
    bw0 = block_weights(level.vertex_weights, start, k)
    limits = bw0 + 2
    # the reference: one round, every pair in the scheduling order, one after the other
    serial, bw = start.copy(), bw0.copy()
    from apportion.partitioning.vertex.boundary import all_boundary_vertices

    boundary = all_boundary_vertices(level, serial)
    local = np.full(n, -1, dtype=np.int32)
    for a, b, _ in block_pairs(level, serial, k, boundary):
        fraction = 0.5
        for _ in range(2):  # refine_flows' default: one retry with a quarter of the fraction
            # the boundary grouped by the blocks of now, in boundary order within each, by plain NumPy
            blocks_now = serial[boundary]
            by_block = boundary[np.argsort(blocks_now, kind="stable")]
            block_ptr = np.concatenate([[0], np.cumsum(np.bincount(blocks_now, minlength=k))]).astype(np.int64)
            gain = refine_pair(level.indptr, level.indices, level.edge_weights, level.vertex_weights, serial, bw,
                               limits, int(a), int(b), fraction, 0, by_block, block_ptr, local,
                               int(mix_hash(seed * 65_537, a * k + b)), 1 << 30)
            if gain > 0:
                break
            fraction *= 0.25
    batched, bw_batched = start.copy(), bw0.copy()
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        refine_flows(level, batched, bw_batched, limits, 1, 0.5, seed)
    finally:
        numba.set_num_threads(previous)
    assert np.array_equal(batched, serial)
    assert np.array_equal(bw_batched, bw)


def test_strong_and_quality_run_flows_on_every_level():
    for name in ("strong", "quality"):
        options = PRESETS[name]
        assert options.flow_rounds > 0 and options.flow_min_vertices == 0 and not options.flow_finest_only


def _flow_levels(monkeypatch) -> list[int]:
    """The sizes of the levels `refine` runs flows on from now on (a counting wrapper of `refine_flows`)."""
    from apportion.partitioning.vertex import refine as refine_module

    sizes = []
    original = refine_module.refine_flows

    def counting(graph, *args, **kwargs):
        sizes.append(graph.n)
        return original(graph, *args, **kwargs)

    monkeypatch.setattr(refine_module, "refine_flows", counting)
    return sizes


def test_strong_is_default_with_flows_on_every_level(monkeypatch):
    """strong differs from default only in its flows: on a graph where default runs none (under its size
    floor), strong refines every level by flows and cuts no more than default."""
    import apportion

    default, strong = PRESETS["default"], PRESETS["strong"]
    flow_fields = {"flow_min_vertices", "flow_finest_only", "flow_region_fraction", "flow_region_depth",
                   "flow_max_piercings"}
    differ = {f.name for f in dataclasses.fields(default) if getattr(default, f.name) != getattr(strong, f.name)}
    assert differ <= flow_fields and differ
    sizes = _flow_levels(monkeypatch)
    mesh = apportion.generate("delaunay", n=3000, seed=4)
    plain = apportion.partition(mesh, 8, seed=0)
    assert not sizes
    flowed = apportion.partition(mesh, 8, seed=0, preset="strong")
    assert len(sizes) > 1 and max(sizes) == mesh.n  # every level, the finest included
    assert flowed.balanced and flowed.cut <= plain.cut


@pytest.mark.parametrize("preset", ["fast", "default"])
def test_fast_and_default_run_cheap_flows_on_the_finest_level_of_large_graphs_only(monkeypatch, preset):
    import apportion
    from apportion.errors import InputError
    from apportion.partitioning.vertex.options import preset_options

    options = PRESETS[preset]
    assert options.flow_rounds == 1 and options.flow_finest_only and options.flow_min_vertices >= 1_000_000
    assert dict(options.heavy_tailed.changes)["flow_rounds"] == 0
    sizes = _flow_levels(monkeypatch)
    grid = apportion.generate("grid2d", rows=60, cols=60)
    apportion.partition(grid, 8, preset=preset)
    assert not sizes  # under flow_min_vertices: none
    apportion.partition(grid, 8, preset=preset_options(preset, flow_min_vertices=0))
    assert sizes == [grid.n]  # the finest level only, once
    sizes.clear()
    apportion.partition(grid, 8, preset=preset_options(preset, flow_min_vertices=0, flow_finest_only=False))
    assert len(sizes) > 1 and max(sizes) == grid.n
    try:
        preset_options(preset, flow_finest_only=1)
    except InputError as error:
        assert "flow_finest_only must be True or False" in str(error)
    else:
        raise AssertionError("a non-bool flow_finest_only was accepted")


@pytest.mark.parametrize("preset", ["strong", "quality"])
def test_flows_skip_hub_graphs_and_run_on_others(monkeypatch, preset):
    """The heavy-tailed variant of the presets with flows: flows on a mesh-like graph, none on one dominated by
    hubs."""
    import apportion

    calls = _flow_levels(monkeypatch)
    grid = apportion.generate("grid2d", rows=30, cols=30)
    apportion.partition(grid, 4, preset=preset)
    assert calls
    calls.clear()
    # grid plus a hub joined to every vertex: maximum degree 900 against an average of about 6
    u, v, _ = grid.edges()
    hub = grid.n
    hubbed = Graph.from_edges(np.concatenate([u, np.full(grid.n, hub)]),
                              np.concatenate([v, np.arange(grid.n)]), n=grid.n + 1)
    assert dict(PRESETS[preset].heavy_tailed.changes)["flow_rounds"] == 0
    assert PRESETS[preset].heavy_tailed_ratio * 2 * hubbed.m / hubbed.n < hubbed.degrees().max()
    apportion.partition(hubbed, 4, preset=preset)
    assert not calls


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=0, max_size=60), st.integers(7, 9))
def test_vertices_by_block_groups_stably(blocks, k):
    from apportion.partitioning.vertex._partition_kernels import vertices_by_block

    part = np.array(blocks, dtype=np.int32)
    boundary = np.random.default_rng(len(blocks)).permutation(len(blocks)).astype(np.int32)
    by_block, block_ptr = vertices_by_block(boundary, part, k)
    np.testing.assert_array_equal(by_block, boundary[np.argsort(part[boundary], kind="stable")])
    np.testing.assert_array_equal(np.diff(block_ptr), np.bincount(part[boundary], minlength=k))
    assert block_ptr[0] == 0
