"""The GPU partitioner's Jet refinement and weak rebalancer (numba-cuda) on random small graphs, on a CUDA device
(under `NUMBA_ENABLE_CUDASIM=1` the simulator): the device cut equals the CPU's; refinement of a balanced
partition returns a balanced one with no larger cut and reports its cut and block weights truly; the rebalancer
never overfills a block that was within its limit, never raises the total overload, reaches balance when there
is room, and is deterministic; both give the same result whether rows find their adjacent blocks by rescanning
or with the scratch hash tables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.graph.csr import Graph
from apportion.partitioning.vertex._partition_kernels import edge_cut
from apportion.partitioning.vertex.balance import max_block_weights
from apportion.partitioning.vertex.contract import LevelGraph

pytestmark = [pytest.mark.gpu, pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")]

SMALL = settings(max_examples=3)


@st.composite
def weighted_levels(draw, max_n: int = 48):
    """A random weighted LevelGraph: a ring (so every vertex has neighbours) plus random chords; edge weights
    1-4, vertex weights 1-3."""
    n = draw(st.integers(8, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    chords = int(draw(st.sampled_from([0.5, 1.0, 2.0])) * n)
    src = np.concatenate([np.arange(n), rng.integers(0, n, size=chords)])
    dst = np.concatenate([(np.arange(n) + 1) % n, rng.integers(0, n, size=chords)])
    graph = Graph.from_edges(src, dst, rng.integers(1, 5, size=src.shape[0]), n=n)
    level = LevelGraph.from_graph(graph)
    return level._replace(vertex_weights=rng.integers(1, 4, size=(n, 1)).astype(np.int64))


def _device(level: LevelGraph, part: np.ndarray):
    from numba import cuda

    arrays = [cuda.to_device(np.ascontiguousarray(a)) for a in level]  # unit weights are broadcast views
    return arrays, cuda.to_device(np.ascontiguousarray(part, dtype=np.int32))


def _limits(level: LevelGraph, k: int, epsilon: float) -> np.ndarray:
    return max_block_weights(level.vertex_weights.sum(axis=0), np.full(k, 1.0 / k), epsilon)[:, 0].copy()


def _weights(level: LevelGraph, part: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(part, weights=level.vertex_weights[:, 0], minlength=k).astype(np.int64)


def _balanced_start(level: LevelGraph, k: int, limits: np.ndarray, seed: int) -> np.ndarray:
    """A random partition within the limits: vertices in seeded random order, each into the block with the most
    room (at most one vertex past the average when every limit exceeds it by the heaviest vertex)."""
    rng = np.random.default_rng(seed)
    part = np.zeros(level.n, dtype=np.int32)
    weights = np.zeros(k, dtype=np.int64)
    for v in rng.permutation(level.n):
        b = int(np.argmin(weights - limits))
        part[v] = b
        weights[b] += level.vertex_weights[v, 0]
    assert np.all(weights <= limits)
    return part


@SMALL
@given(level=weighted_levels(), k=st.integers(2, 6), seed=st.integers(0, 1000))
def test_device_cut_and_block_weights_equal_the_cpu_ones(level, k, seed):
    from apportion.partitioning.vertex._gpu_refine_cuda import block_weights_cuda, edge_cut_cuda

    part = np.random.default_rng(seed).integers(0, k, size=level.n).astype(np.int32)
    arrays, device_part = _device(level, part)
    assert edge_cut_cuda(*arrays[:3], device_part) == edge_cut(*level[:3], part)
    np.testing.assert_array_equal(block_weights_cuda(device_part, arrays[3], k).copy_to_host(),
                                  _weights(level, part, k))


@SMALL
@given(level=weighted_levels(), k=st.integers(2, 5), seed=st.integers(0, 1000),
       temperature=st.sampled_from([0.25, 0.75]))
def test_jet_never_worsens_a_balanced_partition(level, k, seed, temperature):
    from numba import cuda

    from apportion.partitioning.vertex._gpu_refine_cuda import jet_refine_cuda

    # room for the greedy start: a block may exceed the average by one vertex (weights <= 3)
    limits = np.full(k, -(-int(level.vertex_weights.sum()) // k) + 3, dtype=np.int64)
    start = _balanced_start(level, k, limits, seed)
    start_cut = edge_cut(*level[:3], start)
    results = []
    # the second run finds every row's adjacent blocks with the scratch hash tables (hash_min_degree 0), the
    # first only long rows' (none here): the same partition either way
    for hash_min_degree in (32, 0):
        arrays, device_part = _device(level, start)
        cut, weights = jet_refine_cuda(*arrays, device_part, k, cuda.to_device(limits), limits, 4, temperature,
                                       hash_min_degree=hash_min_degree)
        part = device_part.copy_to_host()
        assert cut == edge_cut(*level[:3], part) <= start_cut
        np.testing.assert_array_equal(weights, _weights(level, part, k))
        assert np.all(weights <= limits)
        results.append(part)
    np.testing.assert_array_equal(results[0], results[1])


@SMALL
@given(level=weighted_levels(), k=st.integers(2, 5), seed=st.integers(0, 1000))
def test_rebalancer_never_overfills_and_reaches_balance_when_there_is_room(level, k, seed):
    from numba import cuda

    from apportion.partitioning.vertex._gpu_rebalance_cuda import rebalance_cuda

    limits = _limits(level, k, 0.2)
    rng = np.random.default_rng(seed)
    part = np.where(rng.random(level.n) < 0.6, 0, rng.integers(0, k, size=level.n)).astype(np.int32)
    before = _weights(level, part, k)
    arrays, device_part = _device(level, part)
    device_weights = cuda.to_device(before)
    # every round moves a vertex while one fits somewhere: n rounds are enough
    after = rebalance_cuda(*arrays, device_part, device_weights, cuda.to_device(limits), limits, level.n)
    moved = device_part.copy_to_host()
    np.testing.assert_array_equal(after, _weights(level, moved, k))
    # a block within its limit stays within it, and the overload never grows
    assert np.all((after <= limits) | (before > limits))
    assert np.maximum(after - limits, 0).sum() <= np.maximum(before - limits, 0).sum()
    # while a block is over its limit, some block is below the average: with a limit at least the heaviest
    # vertex (3) above the average, every vertex of an overweight block has somewhere to go
    if limits.min() - np.ceil(level.vertex_weights.sum() / k) >= 3:
        assert np.all(after <= limits)
    # deterministic, and the same with every row's blocks found by the scratch hash tables
    for hash_min_degree in (32, 0):
        again = cuda.to_device(part)
        rebalance_cuda(*arrays, again, cuda.to_device(before), cuda.to_device(limits), limits, level.n,
                       hash_min_degree=hash_min_degree)
        np.testing.assert_array_equal(again.copy_to_host(), moved)
