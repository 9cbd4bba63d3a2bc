"""`_small_split_kernels`: the recursive bisection of small graphs in one kernel call takes the same steps as
the Python recursion (`initial.split_blocks`), and large k stays balanced."""

from __future__ import annotations

import numpy as np
import pytest

import apportion
from apportion.partitioning.vertex import initial
from apportion.partitioning.vertex._small_split_kernels import float_max_block_weights, split_recursively
from apportion.partitioning.vertex.balance import max_block_weights
from apportion.partitioning.vertex.context import PartitionContext
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex.options import PRESETS

from vertex_helpers import grid, random_graph, recount


def _initial(graph: LevelGraph, shares: np.ndarray, seed: int) -> np.ndarray:
    total = graph.vertex_weights.sum(axis=0)
    ctx = PartitionContext(k=shares.shape[0], targets=shares, epsilon=0.03,
                           max_block_weights=max_block_weights(total, shares, 0.03), options=PRESETS["default"],
                           seed=seed, threads=1)
    return initial.initial_partition(graph, ctx, seed)


@pytest.mark.parametrize("k,targets,seed", [(4, [1, 2, 3, 4], 0), (7, [5, 1, 1, 2, 1, 3, 1], 5), (16, None, 9)])
def test_the_kernel_takes_the_python_recursions_steps(monkeypatch, k, targets, seed):
    """A graph under `small_split_vertices` split in one kernel call: the very blocks the Python recursion gives
    when it is made to split every graph itself."""
    graph = LevelGraph.from_graph(random_graph(150, 420, seed).with_weights(
        vertex_weights=np.random.default_rng(seed).integers(1, 6, 150)))
    shares = np.full(k, 1.0 / k) if targets is None else np.asarray(targets, float) / sum(targets)
    assert graph.n <= initial.small_split_vertices(PRESETS["default"])
    in_kernel = _initial(graph, shares, seed)
    monkeypatch.setattr(initial, "small_split_vertices", lambda options: 0)
    in_python = _initial(graph, shares, seed)
    np.testing.assert_array_equal(in_kernel, in_python)


@pytest.mark.parametrize("targets", [[1, 2, 3, 4], [4, 3, 2, 1], [1, 1, 6]])
def test_unequal_targets_get_their_shares(targets):
    """Unit weights on an 8 x 10 grid: every block within its limit of (1 + 0.03) of its share; the first half
    of the targets gets the first half's share at every split (swapped, 1 : 9 against 9 : 1 breaks it)."""
    graph = grid(8, 10)
    level = LevelGraph.from_graph(graph)
    shares = np.asarray(targets, float) / sum(targets)
    blocks = split_recursively(level.indptr, level.indices, level.edge_weights, level.vertex_weights, shares,
                               0.03, 7, 4, 4)
    _, weights = recount(graph, blocks, len(targets))
    limits = max_block_weights(np.array([80]), shares, 0.03)
    assert np.all(weights <= limits), (weights.ravel().tolist(), limits.ravel().tolist())


def test_float_limits_match_the_formula():
    """floor((1 + ε) · ceil(share · W)) with the tolerances and the unit for a rounding deficit."""
    np.testing.assert_array_equal(float_max_block_weights(np.array([7]), np.array([0.5, 0.5]), 0.0), [[4], [4]])
    np.testing.assert_array_equal(float_max_block_weights(np.array([400]), np.full(4, 0.25), 0.15), [[115]] * 4)
    np.testing.assert_array_equal(float_max_block_weights(np.array([30]), np.array([0.1, 0.9]), 0.0), [[3], [27]])
    huge = float_max_block_weights(np.array([15606]), np.full(4, 0.25), 1e308)
    np.testing.assert_array_equal(huge, [[2**60]] * 4)


@pytest.mark.parametrize("n,k", [(2000, 1000), (3000, 1500)])
def test_large_k_on_a_path_is_balanced_and_cuts_little(n, k):
    """k = n / 2 blocks of a path: every block two vertices at ε = 0 (the recursion below `small_split_vertices`
    runs in the kernel), and the cut near the k - 1 of contiguous blocks."""
    path = apportion.Graph.from_edges(np.arange(n - 1), np.arange(1, n), n=n)
    result = apportion.partition(path, k, imbalance=0.0)
    cut, weights = recount(path, result.assignment, k)
    assert result.balanced and np.all(weights == n // k)
    assert cut == result.cut and cut <= 1.1 * (k - 1)
