"""The 2-way FM of recursive bisection (`bisection_fm`): never worse, never above a limit, and able to make
progress under an exact balance where single-queue FM cannot move at all."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings, strategies as st

from apportion.graph.csr import Graph
from apportion.partitioning.vertex._initial_kernels import bisection_fm
from apportion.partitioning.vertex._partition_kernels import block_weights, edge_cut
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex.initial import bisect


def _from_pairs(pairs, n, edge_weights=None, vertex_weights=None) -> Graph:
    pairs = np.asarray(pairs)
    return Graph.from_edges(pairs[:, 0], pairs[:, 1], edge_weights, n=n, vertex_weights=vertex_weights)


def _level(graph: Graph) -> LevelGraph:
    return LevelGraph.from_graph(graph)


def _run(level, part, limits, passes=4, patience=50):
    bw = block_weights(level.vertex_weights, part, 2)
    total = level.vertex_weights.sum(axis=0).astype(np.float64)
    targets = np.outer([0.5, 0.5], total)
    cut = bisection_fm(level.indptr, level.indices, level.edge_weights, level.vertex_weights, part, bw, limits,
                       targets, passes, patience)
    return int(cut), bw


def test_two_cliques_under_exact_balance_reach_the_single_bridge():
    # two 6-cliques joined by one edge, started from an alternating split: every block holds exactly 6 and
    # the limit is 6, so only alternating moves can improve; the optimum (cut 1) needs all of them
    edges = [(a, b) for a in range(6) for b in range(a + 1, 6)]
    edges += [(a + 6, b + 6) for a, b in edges] + [(5, 6)]
    level = _level(_from_pairs(np.array(edges), 12))
    part = (np.arange(12) % 2).astype(np.int32)
    start = int(edge_cut(level.indptr, level.indices, level.edge_weights, part))
    limits = np.array([[6], [6]], dtype=np.int64)
    cut, bw = _run(level, part, limits)
    assert start > 1
    assert cut == 1 == edge_cut(level.indptr, level.indices, level.edge_weights, part)
    assert bw[:, 0].tolist() == [6, 6]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 40), density=st.floats(0.05, 0.5), seed=st.integers(0, 10_000),
       slack=st.integers(0, 3), weighted=st.booleans())
def test_never_worse_and_never_above_a_limit(n, density, seed, slack, weighted):
    rng = np.random.default_rng(seed)
    pairs = np.array([(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < density] or [(0, 1)])
    ew = rng.integers(1, 5, len(pairs)) if weighted else None
    vw = rng.integers(1, 4, n) if weighted else None
    level = _level(_from_pairs(pairs, n, ew, vw))
    total = int(level.vertex_weights.sum())
    limit = (total + 1) // 2 + slack + int(level.vertex_weights.max())
    limits = np.array([[limit], [limit]], dtype=np.int64)
    # a random start within the limits
    part = np.zeros(n, dtype=np.int32)
    for v in rng.permutation(n):
        w = int(level.vertex_weights[v, 0])
        load = block_weights(level.vertex_weights, part, 2)[:, 0] - np.array([w, 0]) * (part[v] == 0)
        part[v] = 0 if load[0] + w <= limit and rng.random() < 0.5 else 1
    bw0 = block_weights(level.vertex_weights, part, 2)
    assume(not np.any(bw0 > limits))
    start = int(edge_cut(level.indptr, level.indices, level.edge_weights, part))
    cut, bw = _run(level, part, limits)
    assert cut == edge_cut(level.indptr, level.indices, level.edge_weights, part)
    assert cut <= start
    assert np.array_equal(bw, block_weights(level.vertex_weights, part, 2))
    assert np.all(bw <= limits)


def test_removes_overload_when_the_other_block_has_room():
    # a path of 10 unit vertices, everything in block 1: the limit 5 forces moves out of block 1
    level = _level(_from_pairs(np.array([(i, i + 1) for i in range(9)]), 10))
    part = np.ones(10, dtype=np.int32)
    part[0] = 0
    cut, bw = _run(level, part, np.array([[5], [5]], dtype=np.int64))
    assert bw[:, 0].tolist() == [5, 5]
    assert cut == 1


def test_bisect_grid_is_balanced_and_near_optimal():
    # a 16 x 16 grid: the optimal bisection cuts 16 edges; recursive bisection's bisect must stay close
    side = 16
    ids = np.arange(side * side).reshape(side, side)
    edges = np.concatenate([np.stack([ids[:, :-1].ravel(), ids[:, 1:].ravel()], 1),
                            np.stack([ids[:-1, :].ravel(), ids[1:, :].ravel()], 1)])
    level = _level(_from_pairs(edges, side * side))
    from apportion.partitioning.vertex.options import preset_options
    part = bisect(level, 0.5, 0.0, preset_options("default"), seed=3)
    assert np.bincount(part, minlength=2).tolist() == [128, 128]
    assert 16 <= edge_cut(level.indptr, level.indices, level.edge_weights, part) <= 20
