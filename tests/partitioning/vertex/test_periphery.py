"""The core-periphery candidate for graphs with many isolated vertices (`periphery.py`)."""

from __future__ import annotations

import numpy as np
import pytest

import apportion
from apportion.graph.csr import Graph
from apportion.partitioning.vertex import multilevel
from apportion.partitioning.vertex.balance import max_block_weights
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex.periphery import periphery_candidate


def _core_periphery(seed=0, core=150, leaves=150, isolated=200):
    """A dense core, leaves hanging off it by one or two edges, and isolated vertices (R-MAT's shape)."""
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for a in range(core) for b in range(a + 1, core) if rng.random() < 0.15]
    for leaf in range(core, core + leaves):
        for hub in rng.choice(core, size=int(rng.integers(1, 3)), replace=False):
            pairs.append((int(hub), leaf))
    pairs = np.array(pairs)
    return Graph.from_edges(pairs[:, 0], pairs[:, 1], n=core + leaves + isolated)


def _degree_split_cut(graph, limit):
    """The candidate for k = 2 recomputed independently: the lowest-degree vertices (isolated first) fill one
    block up to its limit, the rest is the other block."""
    order = np.lexsort((np.arange(graph.n), graph.degrees()))
    part = np.zeros(graph.n, dtype=np.int32)
    part[order[:limit]] = 1
    u, v, _ = graph.edges()
    return int(np.count_nonzero(part[u] != part[v]))


def test_k2_finds_the_periphery_split(monkeypatch):
    graph = _core_periphery()
    limit = int(np.floor(1.03 * graph.n / 2))
    reference = _degree_split_cut(graph, limit)
    with_candidate = apportion.partition(graph, 2, seed=1)
    assert with_candidate.balanced
    assert with_candidate.cut <= reference
    monkeypatch.setattr(multilevel, "PERIPHERY_MIN_SLACK", float("inf"))
    without = apportion.partition(graph, 2, seed=1)
    # the multilevel partitioner alone splits the core; the candidate is what finds the cheap split here
    assert without.cut > with_candidate.cut


@pytest.mark.parametrize("targets", [[3, 1, 1], [1, 1]])
def test_candidate_respects_limits(targets):
    graph = _core_periphery(seed=2)
    level = LevelGraph.from_graph(graph)
    shares = np.asarray(targets, float) / sum(targets)
    limits = max_block_weights(level.vertex_weights.sum(axis=0), shares, 0.03)

    def partition_core(sub, blocks, sub_shares, epsilon, sub_limits):
        result = apportion.partition(Graph._trusted(sub.indptr, sub.indices, None, None, "core"), blocks,
                                     targets=sub_shares, imbalance=epsilon)
        return result.assignment

    part = periphery_candidate(level, len(targets), shares, limits, partition_core)
    assert part is not None
    weights = np.bincount(part, minlength=len(targets))
    assert np.all(weights <= limits[:, 0])
    biggest = int(np.argmax(shares))
    assert np.all(part[graph.degrees() == 0] == biggest)


def test_candidate_does_not_apply_to_small_blocks_or_several_constraints():
    graph = _core_periphery(seed=3)
    level = LevelGraph.from_graph(graph)
    shares = np.full(8, 1 / 8)
    limits = max_block_weights(level.vertex_weights.sum(axis=0), shares, 0.03)
    assert periphery_candidate(level, 8, shares, limits, None) is None
    two = graph.with_weights(vertex_weights=np.ones((graph.n, 2), dtype=np.int64))
    level2 = LevelGraph.from_graph(two)
    shares2 = np.array([0.5, 0.5])
    assert periphery_candidate(level2, 2, shares2, max_block_weights(level2.vertex_weights.sum(axis=0), shares2,
                                                                      0.03), None) is None
