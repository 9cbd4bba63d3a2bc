"""Deep multilevel partitioning (`deep.py`): the groups of blocks follow the recursion's tree, extensions nest,
a deep cycle's partition honours the limits and does not depend on the thread count, and the rule that picks it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import apportion
from apportion.partitioning.vertex import deep
from apportion.partitioning.vertex.balance import max_block_weights
from apportion.partitioning.vertex.context import PartitionContext
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex.options import PRESETS

from vertex_helpers import expected_limits, grid, random_graph, recount

#: every cycle deep, groups split on levels of 20 vertices per group (several extensions on small graphs), groups
#: of more than 256 vertices by multilevel bisections, smaller ones flat
ALWAYS_DEEP = replace(PRESETS["default"], deep_from_k=2, deep_coarsest_fraction=0.0, deep_per_group=20,
                      deep_flat_vertices=256)


def _tree(first: int, count: int, depth: int) -> list[tuple[int, int]]:
    """The groups `depth` levels below a group, by the recursion's rule (the first count // 2 blocks left)."""
    if depth == 0 or count == 1:
        return [(first, count)]
    left = count // 2
    return _tree(first, left, depth - 1) + _tree(first + left, count - left, depth - 1)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(0, 10), st.integers(0, 10))
def test_groups_split_like_the_recursion(k, a, b):
    groups = deep.Groups.root(k).split(a)
    assert list(zip(groups.first.tolist(), groups.count.tolist())) == _tree(0, k, a)
    twice = groups.split(b)
    once = deep.Groups.root(k).split(a + b)
    np.testing.assert_array_equal(twice.first, once.first)
    np.testing.assert_array_equal(twice.count, once.count)
    assert int(groups.count.sum()) == k


def test_levels_for_leaves_enough_vertices_per_group():
    root = deep.Groups.root(8192)
    assert root.levels_for(200, 30, at_least=1) == 2  # 4 groups of 30 fit in 200, 8 do not
    assert root.levels_for(10, 30, at_least=1) == 1  # the coarsest level splits at least once
    assert root.levels_for(10, 30) == 0
    assert root.levels_for(245_760, 30) == 13
    assert deep.Groups.root(5).levels_for(10**9, 1) == 3  # no further than single blocks
    assert deep.Groups.root(5).split(3).final


def test_group_epsilon_tightens_an_overloaded_group():
    assert deep.group_epsilon(0.03, np.array([100.0]), np.array([100.0])) == pytest.approx(0.03)
    assert deep.group_epsilon(0.03, np.array([100.0]), np.array([50.0])) == pytest.approx(1.06)
    assert deep.group_epsilon(0.03, np.array([100.0]), np.array([103.0])) == deep.MIN_GROUP_EPSILON
    # the tightest constraint decides; a constraint the group holds none of does not
    assert deep.group_epsilon(0.03, np.array([100.0, 100.0]), np.array([90.0, 101.0])) == pytest.approx(
        1.03 * 100 / 101 - 1)
    assert deep.group_epsilon(0.03, np.array([100.0, 100.0]), np.array([100.0, 0.0])) == pytest.approx(0.03)


def test_extensions_nest():
    """Splitting groups twice over, then all the way: every vertex's block lies in the group it was given."""
    graph = LevelGraph.from_graph(grid(30, 30))
    k = 37
    shares = np.full(k, 1.0 / k)
    ctx = PartitionContext(k=k, targets=shares, epsilon=0.03, options=ALWAYS_DEEP, seed=3, threads=1,
                           max_block_weights=max_block_weights(graph.vertex_weights.sum(axis=0), shares, 0.03))
    part, groups = deep.extend(graph, None, deep.Groups.root(k), 2, ctx, seed=5)
    assert groups.first.tolist() == [0, 9, 18, 27]
    assert set(np.unique(part).tolist()) == {0, 1, 2, 3}
    final, leaves = deep.extend(graph, part, groups, 100, ctx, seed=6)
    assert leaves.final and leaves.first.tolist() == list(range(k))
    lo, hi = groups.first[part], groups.first[part] + groups.count[part]
    assert np.all((lo <= final) & (final < hi))
    assert len(np.unique(final)) == k


@pytest.mark.parametrize("graph_name,k,weighted", [("grid", 64, False), ("random", 50, True), ("grid", 300, True),
                                                   ("random", 7, False)])
def test_deep_partition_honours_the_limits(graph_name, k, weighted):
    graph = grid(45, 45) if graph_name == "grid" else random_graph(2500, 9000, 4)
    rng = np.random.default_rng(k)
    if weighted:
        graph = graph.with_weights(vertex_weights=rng.integers(1, 5, size=(graph.n, 2)))
    targets = rng.integers(1, 4, size=k).astype(float)
    shares = targets / targets.sum()
    result = apportion.partition(graph, k, targets=targets, preset=ALWAYS_DEEP, seed=1, threads=1)
    cut, weights = recount(graph, result.assignment, k)
    assert result.balanced and cut == result.cut
    assert np.all(weights <= expected_limits(graph, shares, 0.03))
    assert result.assignment.min() >= 0 and result.assignment.max() < k


def test_deep_partition_does_not_depend_on_the_thread_count():
    graph = apportion.generate("delaunay", n=6000, seed=2)
    one = apportion.partition(graph, 200, preset=ALWAYS_DEEP, seed=4, threads=1).assignment
    two = apportion.partition(graph, 200, preset=ALWAYS_DEEP, seed=4, threads=2).assignment
    np.testing.assert_array_equal(one, two)


def test_deep_cut_stays_near_the_plain_recursions():
    """A quality guard: on a mesh at k = 256 the deep cycle cuts at most 10 % more than plain recursive
    bisection of the coarsest graph (both deterministic for the seed)."""
    graph = apportion.generate("delaunay", n=8000, seed=7)
    plain = apportion.partition(graph, 256, preset=replace(PRESETS["default"], deep_from_k=0), seed=0, threads=1)
    deeper = apportion.partition(graph, 256, preset=replace(ALWAYS_DEEP, deep_per_group=200), seed=0, threads=1)
    assert deeper.balanced and deeper.cut <= 1.10 * plain.cut


def test_the_rule_picks_deep_where_the_plain_coarsest_graph_is_most_of_the_input():
    options = PRESETS["default"]  # 30 vertices per block at the coarsest, from k = 1024, from a fifth of n
    assert deep.wanted(options, 8192, 10**6)  # 245,760 >= 200,000
    assert not deep.wanted(options, 8192, 2 * 10**6)
    assert not deep.wanted(options, 512, 10**4)  # below deep_from_k
    assert deep.wanted(options, 1024, 10**4)
    assert not deep.wanted(replace(options, deep_from_k=0), 10**5, 10**5)
