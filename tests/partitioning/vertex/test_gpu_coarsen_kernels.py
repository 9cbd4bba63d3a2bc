"""The GPU partitioner's coarsening kernels (numba-cuda) against their CPU counterparts on random small graphs,
run on a CUDA device (under `NUMBA_ENABLE_CUDASIM=1` the simulator: graphs of tens of vertices): the prefix sum,
heavy-edge matching (label for label), label propagation (label for label when the cap never binds; the cap
kept when it does), labels to cmap and contraction (array for array), projection and its inverse for V-cycles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.graph.csr import Graph
from apportion.partitioning.vertex._coarsen_kernels import labels_to_cmap
from apportion.partitioning.vertex.coarsen import NO_BLOCKS, label_propagation_clustering, mutual_matching
from apportion.partitioning.vertex.contract import LevelGraph, contract_graph, project_partition

pytestmark = [pytest.mark.gpu,
              # the simulator runs the uint64 hash in NumPy scalars, which warn on the intended wrap-around
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")]

SMALL = settings(max_examples=3)
#: seeds as the coarsening derives them (seed * 7919 + level), up to the largest seed: the kernels' seed
#: arithmetic wraps past 2^63 as the CPU's does
SEEDS = st.sampled_from([0, 7, 999, (2**32 - 1) * 7919 + 3])


@st.composite
def level_graphs(draw, max_n: int = 40, ncon: int = 1):
    """A random weighted LevelGraph (often disconnected), edge weights 1-4, vertex weights 1-3."""
    n = draw(st.integers(1, max_n))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    m = int(draw(st.sampled_from([0.5, 1.5, 3.0])) * n)
    src = rng.integers(0, n, size=m)
    dst = rng.integers(0, n, size=m)
    graph = Graph.from_edges(src, dst, rng.integers(1, 5, size=m), n=n)
    level = LevelGraph.from_graph(graph)
    weights = rng.integers(1, 4, size=(n, ncon)).astype(np.int64)
    return level._replace(vertex_weights=weights)


def _on_device(level: LevelGraph):
    from numba import cuda

    return [cuda.to_device(np.ascontiguousarray(a)) for a in level]


def _device_array(a):
    from numba import cuda

    return cuda.to_device(np.ascontiguousarray(a))


@SMALL
@given(values=st.lists(st.integers(0, 1000), max_size=300))
def test_exclusive_scan_equals_cumsum(values):
    from apportion.partitioning.vertex._gpu_scan_cuda import device_max, device_sum, exclusive_scan

    host = np.array(values, dtype=np.int64)
    device = _device_array(host if host.size else np.zeros(1, dtype=np.int64))
    out = exclusive_scan(device, host.size).copy_to_host()
    np.testing.assert_array_equal(out, np.concatenate([[0], np.cumsum(host)]).astype(np.int64))
    assert device_sum(device, host.size) == int(host.sum())
    assert device_max(device, host.size) == (int(host.max()) if host.size else 0)


@SMALL
@given(level=level_graphs(ncon=2), cap=st.integers(2, 6), seed=SEEDS)
def test_matching_equals_the_cpu_matching_and_respects_the_cap(level, cap, seed):
    from apportion.partitioning.vertex._gpu_matching_cuda import mutual_matching_cuda

    caps = np.array([cap, cap + 1], dtype=np.int64)
    expected = mutual_matching(*level, caps, 4, seed)
    labels = mutual_matching_cuda(*_on_device(level), _device_array(caps), 4, seed).copy_to_host()
    np.testing.assert_array_equal(labels, expected)
    # a matching of neighbours within the cap: every label class is one vertex or an adjacent pair
    for v in range(level.n):
        mates = np.flatnonzero(labels == labels[v])
        assert mates.size <= 2
        if mates.size == 2:
            a, b = mates
            assert b in level.indices[level.indptr[a]:level.indptr[a + 1]]
            assert np.all(level.vertex_weights[a] + level.vertex_weights[b] <= caps)


@SMALL
@given(level=level_graphs(), seed=SEEDS, normalized=st.booleans(), batches=st.sampled_from([1, 3]),
       hash_min_degree=st.sampled_from([0, 2, 32]), max_arcs=st.sampled_from([2, 3, 256]))
def test_label_propagation_equals_the_cpu_clustering_when_the_cap_never_binds(level, seed, normalized, batches,
                                                                            hash_min_degree, max_arcs):
    from apportion.partitioning.vertex._gpu_clustering_cuda import label_propagation_cuda

    cap = np.array([int(level.vertex_weights.sum())], dtype=np.int64)
    expected = label_propagation_clustering(*level, cap, 2, batches, seed, 0.0, NO_BLOCKS, normalized, max_arcs)
    # rows longer than hash_min_degree use the scratch hash tables, the others rescan their row: 0 = all hash
    labels = label_propagation_cuda(*_on_device(level), _device_array(cap), 2, batches, seed, 0.0,
                                    normalized=normalized, hash_min_degree=hash_min_degree,
                                    max_arcs=max_arcs).copy_to_host()
    np.testing.assert_array_equal(labels, expected)


@SMALL
@given(level=level_graphs(), cap=st.integers(3, 8), seed=st.integers(0, 1000), confined=st.booleans())
def test_label_propagation_keeps_the_cap_and_the_blocks(level, cap, seed, confined):
    from apportion.partitioning.vertex._gpu_clustering_cuda import label_propagation_cuda

    caps = np.array([cap], dtype=np.int64)
    blocks = (np.arange(level.n) % 2).astype(np.int32)
    run = lambda: label_propagation_cuda(*_on_device(level), _device_array(caps), 3, 2, seed, 0.0,  # noqa: E731
                                         blocks=_device_array(blocks) if confined else None,
                                         hash_min_degree=2).copy_to_host()
    labels = run()
    np.testing.assert_array_equal(labels, run())  # deterministic for a seed
    weights = np.bincount(labels, weights=level.vertex_weights[:, 0], minlength=level.n)
    sizes = np.bincount(labels, minlength=level.n)
    assert np.all((weights <= cap) | (sizes <= 1))
    if confined:
        assert np.all(blocks == blocks[labels])  # a cluster never spans two blocks


@SMALL
@given(level=level_graphs(ncon=2), clusters=st.integers(1, 20), seed=st.integers(0, 1000))
def test_contraction_and_projection_equal_the_cpu_ones(level, clusters, seed):
    from apportion.partitioning.vertex._gpu_contract_cuda import (
        contract_cuda, labels_to_cmap_cuda, project_cuda, restrict_cuda)

    rng = np.random.default_rng(seed)
    labels = rng.integers(0, min(clusters, level.n), size=level.n).astype(np.int32)
    cmap, coarse_n = labels_to_cmap(labels)
    device_cmap, device_n = labels_to_cmap_cuda(_device_array(labels))
    assert device_n == coarse_n
    np.testing.assert_array_equal(device_cmap.copy_to_host(), cmap)
    expected = contract_graph(level, cmap, coarse_n)
    coarse = contract_cuda(*_on_device(level), device_cmap, device_n)
    for name, got, want in zip(LevelGraph._fields, coarse, expected):
        got = got.copy_to_host()
        assert got.shape == want.shape and got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want, err_msg=name)
    coarse_part = rng.integers(0, 3, size=coarse_n).astype(np.int32)
    fine_part = project_cuda(device_cmap, _device_array(coarse_part))
    np.testing.assert_array_equal(fine_part.copy_to_host(), project_partition(cmap, coarse_part))
    # a partition no cluster crosses goes back to the coarse graph unchanged (V-cycles)
    np.testing.assert_array_equal(restrict_cuda(device_cmap, fine_part, device_n).copy_to_host(), coarse_part)


def test_the_largest_seeds_hash_as_on_the_cpu():
    # seed * 1000003 + round wraps past 2^63 for the largest coarsening seeds, in both kernels alike
    from apportion.partitioning.vertex._gpu_clustering_cuda import label_propagation_cuda
    from apportion.partitioning.vertex._gpu_matching_cuda import mutual_matching_cuda

    rng = np.random.default_rng(4)
    graph = Graph.from_edges(rng.integers(0, 30, size=60), rng.integers(0, 30, size=60), rng.integers(1, 5, 60),
                             n=30)
    level = LevelGraph.from_graph(graph)
    seed = (2**32 - 1) * 7919 + 3
    cap = np.array([int(level.vertex_weights.sum())], dtype=np.int64)
    np.testing.assert_array_equal(
        label_propagation_cuda(*_on_device(level), _device_array(cap), 2, 2, seed, 0.0).copy_to_host(),
        label_propagation_clustering(*level, cap, 2, 2, seed, 0.0, NO_BLOCKS))
    np.testing.assert_array_equal(mutual_matching_cuda(*_on_device(level), _device_array(cap), 3, seed).copy_to_host(),
                                  mutual_matching(*level, cap, 3, seed))
