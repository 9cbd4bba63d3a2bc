"""The group-move refinement: copies never increase, every edge keeps one part, balance bounds hold."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from apportion.graph.csr import Graph
from apportion.graph.metrics import edge_partition_metrics
from apportion.partitioning.edge.api import partition_edges
from apportion.partitioning.edge.metrics import balanced_capacity, copy_statistics
from apportion.partitioning.edge.refine import refine, refine_balanced, relaxed_capacity


def _brute_copies(u, v, a, n):
    parts = [set() for _ in range(n)]
    for x, y, p in zip(u, v, a):
        parts[x].add(int(p))
        parts[y].add(int(p))
    return sum(len(s) - 1 for s in parts if s)


@st.composite
def graphs_and_assignments(draw, max_n=25, max_k=6):
    n = draw(st.integers(2, max_n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=80))
    g = Graph.from_edges([a for a, _ in pairs], [b for _, b in pairs], n=n)
    k = draw(st.integers(1, max_k))
    a = np.array(draw(st.lists(st.integers(0, k - 1), min_size=g.m, max_size=g.m)), dtype=np.int32)
    return g, k, a


@settings(max_examples=150, deadline=None)
@given(case=graphs_and_assignments(), seed=st.integers(0, 3), slack=st.sampled_from([0, 1, 5]),
       regions=st.booleans())
def test_refine_never_increases_copies_and_keeps_bounds(case, seed, slack, regions):
    g, k, a = case
    assume(g.m > 0)
    u, v, _ = g.edges()
    loads = np.bincount(a, minlength=k)
    lower = max(0, int(loads.min()) - slack)
    upper = int(loads.max()) + slack
    out, gain, moved = refine(u, v, a, g.n, k, lower, upper, seed=seed, regions=regions)
    assert out.shape == a.shape and out.min() >= 0 and out.max() < k        # every edge exactly one part
    before = _brute_copies(u, v, a, g.n)
    after = _brute_copies(u, v, out, g.n)
    assert after <= before and before - after == gain                     # the gain is exact
    assert moved >= int(np.count_nonzero(out != a))
    new_loads = np.bincount(out, minlength=k)
    assert new_loads.max() <= upper and new_loads.min() >= lower
    again, _, _ = refine(u, v, a, g.n, k, lower, upper, seed=seed, regions=regions)
    assert np.array_equal(out, again)                                     # deterministic for a seed


@settings(max_examples=80, deadline=None)
@given(case=graphs_and_assignments(), eps=st.sampled_from([0.0, 0.05, 0.3]))
def test_refine_balanced_reaches_requested_balance(case, eps):
    g, k, a = case
    assume(g.m > k)
    u, v, _ = g.edges()
    out, stats = refine_balanced(u, v, a, g.n, k, eps, seed=1)
    lower, upper = balanced_capacity(g.m, k, eps)
    loads = np.bincount(out, minlength=k)
    assert loads.max() <= upper and loads.min() >= lower
    assert out.shape == a.shape and out.min() >= 0
    assert stats["refine_gain_relaxed"] >= 0 and stats["refine_gain_strict"] >= 0


@settings(max_examples=50, deadline=None)
@given(m=st.integers(1, 5000), k=st.integers(1, 64), eps=st.floats(0, 1), slack=st.floats(0, 0.2))
def test_relaxed_capacity_contains_requested(m, k, eps, slack):
    lower, upper = balanced_capacity(m, k, eps)
    wl, wu = relaxed_capacity(m, k, eps, slack)
    assert wl <= lower and wu >= upper and wl >= 0


def test_refine_fixes_an_obvious_mistake():
    # two disjoint triangles, one edge of the first placed with the second: moving it back removes 2 copies
    g = Graph.from_edges([0, 1, 0, 3, 4, 3], [1, 2, 2, 4, 5, 5])
    u, v, _ = g.edges()
    a = np.zeros(g.m, dtype=np.int32)
    first = (u <= 2)
    a[~first] = 1
    a[np.flatnonzero(first)[0]] = 1
    assert _brute_copies(u, v, a, g.n) == 2
    out, gain, _ = refine(u, v, a, g.n, 2, 0, g.m, seed=0)
    assert gain == 2 and _brute_copies(u, v, out, g.n) == 0


@pytest.mark.parametrize("method", ["spac", "ne", "hdrf"])
def test_refine_option_improves_or_keeps_and_matches_reference(method):
    from apportion import generate

    g = generate("ba", 400, seed=3, m_attach=3)
    plain = partition_edges(g, 4, method=method, seed=0, refine=False)
    refined = partition_edges(g, 4, method=method, seed=0, refine=True)
    assert refined.details["refined"] and not plain.details["refined"]
    assert refined.vertex_copies <= refined.details["copies_before_refine"] + refined.details["balance_moves"] * 2
    reference = edge_partition_metrics(g, refined.assignment, k=4)
    assert reference.vertex_copies == refined.vertex_copies
    assert list(refined.edges_per_part) == list(np.bincount(refined.assignment, minlength=4))
    assert refined.edges_per_part.max() - refined.edges_per_part.min() <= 1
    u, v, _ = g.edges()
    assert copy_statistics(u, v, refined.assignment, g.n, 4)[0] == _brute_copies(u, v, refined.assignment, g.n)


def test_region_moves_cross_a_plateau():
    # a path of 12 edges split 0|1 in the middle is one copy; the same path with a stray edge of part 1
    # inside part 0's half costs 3 copies; group moves alone or region moves must bring it back to 1
    g = Graph.from_edges(list(range(12)), list(range(1, 13)))
    u, v, _ = g.edges()
    a = np.array([0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1], dtype=np.int32)
    out, gain, _ = refine(u, v, a, g.n, 2, 5, 7, seed=0, regions=True)
    assert _brute_copies(u, v, out, g.n) == 1 and gain == 2


@settings(max_examples=100, deadline=None)
@given(case=graphs_and_assignments(), data=st.data(), seed=st.integers(0, 3))
def test_incremental_refine_keeps_the_contract(case, data, seed):
    """refine(since=earlier): the first pass starts near the edges changed since; gain exact, bounds hold."""
    g, k, a = case
    assume(g.m > 0)
    u, v, _ = g.edges()
    earlier = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=g.m, max_size=g.m)), dtype=np.int32)
    loads = np.bincount(a, minlength=k)
    lower, upper = int(loads.min()), int(loads.max())
    out, gain, _ = refine(u, v, a, g.n, k, lower, upper, seed=seed, since=earlier)
    before = _brute_copies(u, v, a, g.n)
    assert before - _brute_copies(u, v, out, g.n) == gain >= 0
    new_loads = np.bincount(out, minlength=k)
    assert new_loads.max() <= upper and new_loads.min() >= lower
    if np.array_equal(earlier, a):
        assert gain == 0 and np.array_equal(out, a)                        # nothing changed: nothing to visit
    again, _, _ = refine(u, v, a, g.n, k, lower, upper, seed=seed, since=earlier)
    assert np.array_equal(out, again)


@settings(max_examples=100, deadline=None)
@given(case=graphs_and_assignments(), data=st.data(), hub=st.integers(0, 6))
def test_mark_near_changes_matches_a_direct_count(case, data, hub):
    from apportion.partitioning.edge._refine_kernels import mark_near_changes
    from apportion.partitioning.edge.incidence import edge_incidence

    g, k, a = case
    assume(g.m > 0)
    b = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=g.m, max_size=g.m)), dtype=np.int32)
    inc = edge_incidence(g)
    marks = mark_near_changes(a, b, inc.u, inc.v, g.indptr.astype(np.int64), inc.targets, hub)
    nx_graph = g.to_networkx()
    expected = set()
    for e in np.flatnonzero(a != b):
        for x in (int(inc.u[e]), int(inc.v[e])):
            expected.add(x)
            if nx_graph.degree(x) <= hub:
                expected.update(nx_graph.neighbors(x))
    assert set(np.flatnonzero(marks).tolist()) == expected


def test_refine_balanced_reuses_given_part_sets():
    """Part sets passed in (as SPAC's reconstruction builds them) give the same result as building them."""
    from apportion.partitioning.edge._part_sets import PartSets, build_part_sets, slot_offsets
    from apportion.graph.generate import generate

    g = generate("delaunay", 400, seed=3)
    u, v, _ = g.edges()
    a = (np.arange(g.m) * 7 // g.m).astype(np.int32)
    ptr = slot_offsets(np.diff(g.indptr).astype(np.int64), 7)
    sets = PartSets(ptr, *build_part_sets(u.astype(np.int64), v.astype(np.int64), a, ptr, g.n))
    plain, _ = refine_balanced(u, v, a, g.n, 7, 0.0, seed=2)
    shared, stats = refine_balanced(u, v, a, g.n, 7, 0.0, seed=2, part_sets=sets)
    assert np.array_equal(plain, shared)
    assert stats["copies_before_refine"] == _brute_copies(u, v, a, g.n)
