"""The blocks' room tree (`_room_tree_kernels`) and the balance kernels that fill blocks by the most room:
`place_isolated` (each vertex into the block with the most relative room after taking it, the lowest block on a
tie) and `rebalance`'s fallback give the very choices of a scan over the blocks."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.partitioning.vertex._balance_kernels import place_isolated


def _scan(vertex_weights, vertices, part, bw, max_weights):
    """The definition, one scan of the blocks per vertex."""
    for v in vertices:
        rooms = ((max_weights - bw - vertex_weights[v]) / np.maximum(max_weights, 1)).min(axis=1)
        best = int(np.argmax(rooms))  # the first of the largest
        part[v] = best
        bw[best] += vertex_weights[v]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 300), k=st.integers(1, 40), ncon=st.integers(1, 3), levels=st.integers(1, 4),
       seed=st.integers(0, 2**31))
def test_the_tree_chooses_as_a_scan(n, k, ncon, levels, seed):
    rng = np.random.default_rng(seed)
    weights = rng.integers(1, levels + 1, size=(n, ncon)).astype(np.int64)
    order = np.argsort(-weights.sum(axis=1), kind="stable").astype(np.int64)  # runs of equal weights, and not
    limits = rng.integers(1, 3 * max(n, 1) // k + 5, size=(k, ncon)).astype(np.int64)
    start = rng.integers(0, 4, size=(k, ncon)).astype(np.int64)
    expected_part, expected_bw = np.full(n, -1, dtype=np.int32), start.copy()
    _scan(weights, order, expected_part, expected_bw, limits)
    part, bw = np.full(n, -1, dtype=np.int32), start.copy()
    place_isolated(weights, order, part, bw, limits)
    np.testing.assert_array_equal(part, expected_part)
    np.testing.assert_array_equal(bw, expected_bw)


def test_unit_weights_fill_the_blocks_evenly():
    """Unit weights into equal blocks: the counts differ by at most one, lowest blocks first."""
    part, bw = np.full(10, -1, dtype=np.int32), np.zeros((4, 1), dtype=np.int64)
    place_isolated(np.ones((10, 1), dtype=np.int64), np.arange(10), part, bw, np.full((4, 1), 3, dtype=np.int64))
    assert bw.ravel().tolist() == [3, 3, 2, 2] and part.tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]


def test_the_room_tree_names_the_roomiest_block_but_one():
    """`roomiest_except`: the block with the most room other than the skipped one, the lowest on a tie, as a scan;
    after `update_room` too."""
    from apportion.partitioning.vertex._room_tree_kernels import (
        build_room_tree, new_room_tree, roomiest_except, update_room)

    rng = np.random.default_rng(4)
    for k in (1, 2, 3, 5, 8, 13):
        rooms = rng.integers(-3, 3, size=k).astype(np.float64)
        tree = new_room_tree(k)
        build_room_tree(tree, rooms)
        for step in range(20):
            for skip in range(k):
                others = [b for b in range(k) if b != skip]
                expected = max(others, key=lambda b: (rooms[b], -b)) if others else -1
                assert roomiest_except(tree, rooms, skip) == expected
            assert tree[1] == max(range(k), key=lambda b: (rooms[b], -b))
            changed = int(rng.integers(k))
            rooms[changed] = float(rng.integers(-3, 3))
            update_room(tree, rooms, changed)


def test_rebalance_skips_a_roomy_block_the_vertex_does_not_fit():
    """A vertex leaving an overloaded block with no neighbour elsewhere goes to the roomiest block it fits: block 1
    has the most relative room (empty) but holds 2, block 2 half its 100; each of block 0's vertices (10 and 5)
    only fits block 2, and one round must end balanced."""
    from apportion.partitioning.vertex._balance_kernels import rebalance

    indptr = np.array([0, 1, 2, 2], dtype=np.int64)
    indices = np.array([1, 0], dtype=np.int32)
    edge_weights = np.ones(2, dtype=np.int64)
    vertex_weights = np.array([[10], [5], [50]], dtype=np.int64)
    part = np.array([0, 0, 2], dtype=np.int32)
    bw = np.array([[15], [0], [50]], dtype=np.int64)
    limits = np.array([[10], [2], [100]], dtype=np.int64)
    assert rebalance(indptr, indices, edge_weights, vertex_weights, part, bw, limits, 1)
    assert bw.ravel().tolist() in ([10, 0, 55], [5, 0, 60]) and part[2] == 2 and 1 not in part.tolist()
