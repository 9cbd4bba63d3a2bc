"""Graphs whose weight totals would overflow int64 are refused when built, by any route (constructor, reader),
instead of being summed into wrapped, negative totals."""

from __future__ import annotations

import numpy as np
import pytest

from apportion.errors import InputError
from apportion.graph.csr import MAX_TOTAL_WEIGHT, Graph


def test_vertex_weights_whose_total_passes_int64_are_refused():
    big = np.array([2**62, 2**62, 2**62], dtype=np.int64)   # int64 sum wraps to a negative number
    assert int(big.sum()) < 0
    with pytest.raises(InputError, match="vertex weights add up to 13835058055282163712"):
        Graph.from_edges([0, 1], [1, 2], vertex_weights=big)


def test_edge_weights_are_totalled_over_both_stored_directions():
    half = MAX_TOTAL_WEIGHT // 2
    Graph.from_edges([0], [1], [half])                        # stored twice: exactly the limit
    with pytest.raises(InputError, match="edge weights"):
        Graph.from_edges([0], [1], [half + 1])


def test_each_constraint_is_checked_and_named():
    weights = np.array([[1, 2**61], [1, 2**61], [1, 1]], dtype=np.int64)
    with pytest.raises(InputError, match=r"\(constraint 1\)"):
        Graph.from_edges([0, 1], [1, 2], vertex_weights=weights)


def test_totals_up_to_the_limit_are_exact():
    weights = np.array([2**61, 2**61 - 5, 5], dtype=np.int64)
    graph = Graph.from_edges([0, 1], [1, 2], vertex_weights=weights)
    assert int(graph.total_vertex_weight()[0]) == MAX_TOTAL_WEIGHT
