"""Decisions of the vertex partitioner's phases judged against what they are for: the coarsening cap follows
the smallest target, coarse vertices never exceed it, recursive bisection gives each half its own share."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.partitioning.vertex.balance import max_block_weights
from apportion.partitioning.vertex.coarsen import cluster_weight_cap, coarsen
from apportion.partitioning.vertex.context import PartitionContext
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex.initial import initial_partition
from apportion.partitioning.vertex.options import PartitionOptions

from vertex_helpers import grid, random_graph, recount


def test_cluster_cap_is_proportional_to_the_smallest_target():
    """With a large ε the ε-term of the cap (ε · smallest target · W) is the binding one: eight equal targets
    (smallest 1/8) against 10 : 1 : ... : 1 (smallest 1/17) scale the cap by 8/17."""
    level = LevelGraph.from_graph(grid(50, 50))
    options = PartitionOptions()
    even = cluster_weight_cap(level, 8, np.full(8, 1 / 8), 1.0, options)
    skewed_targets = np.array([10, 1, 1, 1, 1, 1, 1, 1], dtype=float) / 17
    skewed = cluster_weight_cap(level, 8, skewed_targets, 1.0, options)
    assert even[0] >= 0.1 * 2500   # the ε-term decides here (a cap of about W/8 = 312)
    assert skewed[0] / even[0] == pytest.approx(8 / 17, rel=0.01)


def context(level: LevelGraph, targets: np.ndarray, epsilon: float, options: PartitionOptions,
            seed: int) -> PartitionContext:
    limits = max_block_weights(level.vertex_weights.sum(axis=0), targets, epsilon)
    return PartitionContext(k=targets.shape[0], targets=targets, epsilon=epsilon, max_block_weights=limits,
                            options=options, seed=seed)


def weighted_level(n: int, m: int, seed: int) -> LevelGraph:
    rng = np.random.default_rng(seed)
    graph = random_graph(n, m, seed).with_weights(vertex_weights=rng.integers(1, 30, size=n))
    return LevelGraph.from_graph(graph)


@settings(max_examples=25)
@given(seed=st.integers(0, 10**6), coarsening=st.sampled_from(["matching", "clustering"]),
       matching=st.sampled_from(["mutual", "suitor"]))
def test_every_coarse_vertex_respects_the_cap_of_its_level(seed, coarsening, matching):
    level = weighted_level(400, 1600, seed)
    targets = np.array([6, 1, 1], dtype=float) / 8
    options = PartitionOptions(coarsening=coarsening, matching=matching, coarsest_per_block=5, coarsest_min=20)
    hierarchy, cmaps, _ = coarsen(level, context(level, targets, 0.03, options, seed % 1000))
    assert len(hierarchy) >= 2
    for fine, coarse, cmap in zip(hierarchy, hierarchy[1:], cmaps):
        cap = cluster_weight_cap(fine, 3, targets, 0.03, options)
        merged = np.bincount(cmap, weights=fine.vertex_weights[:, 0]).astype(np.int64)
        np.testing.assert_array_equal(merged, coarse.vertex_weights[:, 0])
        assert coarse.vertex_weights[:, 0].max() <= cap[0]


@pytest.mark.parametrize("shares", [[3, 1], [1, 3], [1, 1, 2], [2, 1, 1, 4]])
def test_initial_partition_gives_each_block_its_share(shares):
    graph = grid(30, 30)
    level = LevelGraph.from_graph(graph)
    targets = np.array(shares, dtype=float) / sum(shares)
    part = initial_partition(level, context(level, targets, 0.05, PartitionOptions(), 2), 2)
    _, weights = recount(graph, part, len(shares))
    ideal = targets * graph.n
    assert np.all(weights[:, 0] <= np.floor(1.05 * ideal) + 1), (weights[:, 0], ideal)
    assert np.all(weights[:, 0] >= 0.9 * ideal), (weights[:, 0], ideal)
