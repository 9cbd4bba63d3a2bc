"""`place_isolated`: each vertex into the block with the most relative room after taking it, the lowest block on
a tie; the tournament tree gives the very choices of a scan over the blocks."""

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
