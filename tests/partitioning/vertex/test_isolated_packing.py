"""Graphs whose weight is mostly isolated vertices: the rest (the core) is packed into the fewest blocks that hold
it within ε, and the isolated vertices fill every block (`multilevel._blocks_for_core`)."""

from __future__ import annotations

import numpy as np
import pytest

import apportion
from apportion.partitioning.vertex import multilevel

from vertex_helpers import recount


def _mostly_isolated(core_n: int, n: int) -> apportion.Graph:
    mesh = apportion.generate("delaunay", n=core_n, seed=0)
    u, v, _ = mesh.edges()
    return apportion.Graph.from_edges(u, v, n=n)


@pytest.mark.parametrize("targets", [None, np.geomspace(1, 8, 64)])
def test_the_core_is_packed_and_cuts_less(monkeypatch, targets):
    """2,000 mesh vertices beside 18,000 isolated ones at k = 64: the core lands in the fewest blocks (largest
    limits first) that hold it 1.03 times over, every block within its limit, and the cut is below the
    spread-out partition's (each block holding about 31 core vertices)."""
    graph = _mostly_isolated(2000, 20_000)
    packed = apportion.partition(graph, 64, targets=targets, seed=0)
    cut, weights = recount(graph, packed.assignment, 64)
    assert packed.balanced and cut == packed.cut
    assert np.all(weights.ravel() <= np.asarray(packed.max_block_weights).ravel())
    core = np.diff(graph.indptr) > 0
    holding = np.unique(packed.assignment[core])
    limits = np.asarray(packed.max_block_weights).ravel()
    fewest = int(np.searchsorted(np.cumsum(np.sort(limits)[::-1]), 1.03 * core.sum())) + 1
    assert len(holding) <= fewest
    assert set(holding.tolist()) == set(np.argsort(-limits, kind="stable")[:fewest].tolist())
    monkeypatch.setattr(multilevel, "PACK_CORE_FROM", float("inf"))
    spread = apportion.partition(graph, 64, targets=targets, seed=0)
    assert spread.balanced and len(np.unique(spread.assignment[core])) > fewest
    assert packed.cut < 0.8 * spread.cut


def test_a_core_of_more_than_half_the_weight_is_not_packed(monkeypatch):
    """Packing starts where the core fills at most half of every block (`PACK_CORE_FROM`); here it fills 0.6, and
    the core is partitioned over the k blocks with the isolated vertices' weight as slack."""
    calls = []
    real = multilevel._blocks_for_core
    monkeypatch.setattr(multilevel, "_blocks_for_core", lambda *args: calls.append(args) or real(*args))
    graph = _mostly_isolated(6000, 10_000)
    assert apportion.partition(graph, 16, seed=0).balanced and calls == []
    assert apportion.partition(_mostly_isolated(2000, 10_000), 16, seed=0).balanced and len(calls) == 1


def test_blocks_for_the_core():
    limits = np.array([[10], [30], [20], [30]], dtype=np.int64)
    assert multilevel._blocks_for_core(limits, np.array([25.0]), 0.03).tolist() == [1]
    assert multilevel._blocks_for_core(limits, np.array([30.0]), 0.03).tolist() == [1, 3]
    assert multilevel._blocks_for_core(limits, np.array([62.0]), 0.03).tolist() == [1, 2, 3]
    assert multilevel._blocks_for_core(limits, np.array([85.0]), 0.03) is None  # every block
    assert multilevel._blocks_for_core(np.ones((4, 2), dtype=np.int64), np.array([1.0, 1.0]), 0.03) is None
