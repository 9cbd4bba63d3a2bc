"""Multi-device PageRank: ranks sum to 1 and lie within the tolerance (L1) of the exact PageRank."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import apportion
from apportion.apps.pagerank import DEFAULT_TOLERANCE, pagerank, pagerank_reference, residual_threshold
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.generate import generate

from _runtime_graphs import run_options, small_graphs

pytestmark = pytest.mark.timeout(300)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), options=run_options, tolerance=st.sampled_from([DEFAULT_TOLERANCE, 0.05, 0.3]))
def test_pagerank_is_within_its_tolerance_of_the_exact_vector(graph, options, tolerance):
    expected = pagerank_reference(graph)
    result = pagerank(graph, tolerance=tolerance, **options)
    assert result.values.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(result.values > 0)
    assert np.abs(result.values - expected).sum() <= tolerance


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), options=run_options, scan_every=st.sampled_from([0.0, 0.05, 0.5]))
def test_halo_scans_keep_every_share(graph, options, scan_every):
    # a list of one halo entry switches a batch to scanning at once; scans every ~scan_every·n remote arcs, the
    # accumulators held between them — no share may be lost or sent twice
    import apportion.apps.pagerank as module

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "FLUSH_ITEMS", 1)
        patch.setattr(module, "SCAN_EVERY", scan_every)
        result = pagerank(graph, **options)
    assert result.values.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.abs(result.values - pagerank_reference(graph)).sum() <= DEFAULT_TOLERANCE


@pytest.mark.parametrize("scan_every", [0.01, 1.0])
def test_held_halo_sums_reach_their_owners_within_the_phase(monkeypatch, scan_every):
    # a share held back and never sent would show up as residual in the driver's test and cost a second phase
    import apportion.apps.pagerank as module

    graph = generate("rmat", 1 << 12, seed=5)
    monkeypatch.setattr(module, "FLUSH_ITEMS", 1)
    monkeypatch.setattr(module, "SCAN_EVERY", scan_every)
    result = pagerank(graph, devices=2, placement="random")
    assert result.phases == 1
    assert np.abs(result.values - pagerank_reference(graph)).sum() <= DEFAULT_TOLERANCE


class _TwoDevices:
    """Device 0's view of a small graph for direct kernel calls: its vertices 0 (a star's centre, its 6 leaves on
    device 1), 7 (a neighbour 8 on device 1) and 9 (isolated); a list limit of one halo entry."""

    def __init__(self, scan_every: float):
        from apportion.apps.pagerank import signed_targets

        graph = Graph.from_edges([0] * 6 + [7], list(range(1, 7)) + [8], n=10)
        self.owner = np.array([0, 1, 1, 1, 1, 1, 1, 0, 1, 0], dtype=np.int32)
        n = graph.n
        self.residual = np.zeros(n)
        self.extra = np.zeros(n + 5)
        self.extra[n], self.extra[n + 1], self.extra[n + 2] = 1e-3, 1, scan_every  # ε, list limit, scan every
        self.qstate = np.zeros(3, dtype=np.int64)
        self.out_v, self.out_d = np.zeros(n + 8, dtype=np.int64), np.zeros(n + 8)
        self.out_dest, self.counts = np.zeros(n + 8, dtype=np.int32), np.zeros(6, dtype=np.int64)
        empty = np.zeros(1, dtype=np.int64)
        weights = np.where(np.diff(graph.indptr) > 0, 0.85 / np.maximum(np.diff(graph.indptr), 1), 0.0)
        self.args = (graph.indptr, signed_targets(graph, self.owner), weights, self.owner, 0, self.residual, empty,
                     empty, self.qstate, empty, np.zeros(2, dtype=np.int64))

    def step(self, in_v, in_d, budget):
        from apportion.apps._pagerank_kernels import pagerank_step

        pagerank_step(*self.args, np.array(in_v, dtype=np.int64), np.array(in_d, dtype=np.float64), 0.0, budget,
                      False, self.out_v, self.out_d, self.out_dest, self.counts, self.extra)
        return int(self.counts[3])


def test_a_scan_sends_every_held_share_once_when_the_device_runs_dry():
    # vertex 0 lists its 6 halo entries; the list is over its limit, so the next push (7 → 8) scans instead; with
    # nothing left to do the scan sends the 7 sums, in id order, and clears them
    device = _TwoDevices(scan_every=1e9)
    assert device.step([0, 7, 9], [0.6, 0.3, 0.2], budget=100) == 7
    assert list(device.out_v[:7]) == [1, 2, 3, 4, 5, 6, 8] and list(device.out_dest[:7]) == [1] * 7
    np.testing.assert_allclose(device.out_d[:7], [0.85 * 0.6 / 6] * 6 + [0.85 * 0.3])
    assert device.residual[device.owner == 1].sum() == 0.0
    np.testing.assert_allclose(device.extra[[0, 7, 9]], [0.6, 0.3, 0.2])
    assert device.extra[10 + 3] == 0.0  # back to listing


def test_a_scan_holds_the_sums_while_the_device_has_work_and_sends_them_when_due():
    device = _TwoDevices(scan_every=1e9)
    assert device.step([0, 7, 9], [0.6, 0.3, 0.2], budget=2) == 0  # two pushes, vertex 9 still active: held
    assert device.qstate[2] == 1
    assert device.residual[device.owner == 1].sum() == pytest.approx(0.85 * 0.9)
    assert device.step([], [], budget=1) == 7  # 9 pushed: dry, so the held sums go, each once
    assert device.out_d[:7].sum() == pytest.approx(0.85 * 0.9)
    assert device.step([], [], budget=1) == 0
    # due: one remote arc since the switch is enough when scans come every arc
    due = _TwoDevices(scan_every=1.0)
    assert due.step([0, 7, 9], [0.6, 0.3, 0.2], budget=2) == 7 and due.qstate[2] == 1


def test_reference_equals_networkx_with_isolated_vertices():
    graph = Graph.from_edges([0, 1, 2, 4], [1, 2, 0, 5], n=7)
    ours = pagerank_reference(graph)
    theirs = nx.pagerank(graph.to_networkx(), alpha=0.85, tol=1e-14)
    np.testing.assert_allclose(ours, [theirs[v] for v in range(7)], atol=1e-12)


def test_default_tolerance_on_a_delaunay_graph_with_four_devices():
    graph = generate("delaunay", 2000, seed=8)
    result = pagerank(graph, devices=4, routing="direct", placement="random")
    assert np.abs(result.values - pagerank_reference(graph)).sum() <= DEFAULT_TOLERANCE
    assert result.messages > 4


def test_threshold_and_bad_parameters():
    assert residual_threshold(100, 0.85, 1e-3) == pytest.approx(1e-3 * 0.15**2 / 400)
    graph = Graph.from_edges([0], [1], n=2)
    assert apportion.pagerank is pagerank
    for bad in ({"alpha": 1.0}, {"alpha": 0}, {"tolerance": 0}, {"tolerance": -1}, {"alpha": "x"},
                {"alpha": None}, {"tolerance": [0.5]}, {"tolerance": True}):
        with pytest.raises(InputError):
            pagerank(graph, **bad)
    with pytest.raises(InputError):
        pagerank(Graph.from_edges([], [], n=0))


def test_a_posteriori_test_adds_phases_until_the_bound_holds(monkeypatch):
    # an over-optimistic first ε (100× the usual) must be caught by the residual bound and refined in later
    # phases that continue from the ranks so far — the answer still within the tolerance
    import apportion.apps.pagerank as module

    graph = generate("delaunay", 3000, seed=3)
    monkeypatch.setattr(module, "STARTING_FACTOR", 150.0)
    result = pagerank(graph, devices=2, tolerance=1e-3)
    assert result.phases >= 2
    assert result.values.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.abs(result.values - pagerank_reference(graph)).sum() <= 1e-3


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), scale=st.floats(0.0, 1.0))
def test_error_bound_bounds_the_distance_of_partial_ranks(graph, scale):
    # ranks from a truncated power series (x ≤ x*, every residual ≥ 0): the bound is never below the true L1
    from apportion.apps.pagerank import error_bound

    n = graph.n
    degrees = np.diff(graph.indptr)
    share = np.where(degrees > 0, 0.85 / np.maximum(degrees, 1), 0.0)
    base = 0.15 / n
    ranks = np.zeros(n)
    term = np.full(n, base)
    steps = int(scale * 40)
    for _ in range(steps):  # x = Σ_{k < steps} (α Pᵀ)^k b
        ranks += term
        pulled = np.zeros(n)
        np.add.at(pulled, graph.indices, np.repeat(term * share, degrees))
        term = pulled
    if ranks.sum() == 0:
        return
    bound, residuals = error_bound(graph.indptr, graph.indices, share, ranks, base, 0.85)
    assert np.all(residuals >= -1e-15)
    assert np.abs(ranks / ranks.sum() - pagerank_reference(graph)).sum() <= bound + 1e-12


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(), seed=st.integers(0, 2**32 - 1), spread=st.floats(0.0, 2.0))
def test_error_bound_bounds_the_distance_of_any_positive_ranks(graph, seed, spread):
    # ranks on either side of the exact ones (signed residuals, as the push from the degree start leaves them)
    from apportion.apps.pagerank import error_bound

    n = graph.n
    degrees = np.diff(graph.indptr)
    share = np.where(degrees > 0, 0.85 / np.maximum(degrees, 1), 0.0)
    exact = pagerank_reference(graph)
    ranks = exact * np.exp(np.random.default_rng(seed).normal(0.0, spread, n)) * 3.0  # any total, too
    bound, residuals = error_bound(graph.indptr, graph.indices, share, ranks, 0.15 / n, 0.85)
    assert np.abs(ranks / ranks.sum() - exact).sum() <= bound + 1e-12
    assert np.all(np.isfinite(residuals))


def test_start_ranks_give_each_component_its_exact_total():
    from apportion.apps._pagerank_kernels import degree_start
    from apportion.apps.pagerank import error_bound, start_ranks

    # a triangle, a path of 4, a star of 5 and two isolated vertices
    graph = Graph.from_edges([0, 1, 2, 3, 4, 5, 7, 7, 7, 7], [1, 2, 0, 4, 5, 6, 8, 9, 10, 11], n=14)
    degrees = np.diff(graph.indptr)
    x = np.empty(14)
    degree_start(graph.indptr, graph.indices, 0.85, x)
    np.testing.assert_allclose(x[3:7], 0.15 / 14 + 0.85 * degrees[3:7] * 4 / (14 * 6))
    share = np.where(degrees > 0, 0.85 / np.maximum(degrees, 1), 0.0)
    ranks, residuals = start_ranks(graph, 0.85, share)  # after the Jacobi steps
    for start in (x, ranks):
        for component in ([0, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10, 11]):  # x* sums to |C| / n on each component
            assert start[component].sum() == pytest.approx(len(component) / 14)
        np.testing.assert_allclose(start[12:], 0.15 / 14)  # an isolated vertex's exact (unnormalised) rank
    np.testing.assert_allclose(x[:3], 1 / 14)  # a regular component starts exact
    np.testing.assert_allclose(residuals, error_bound(graph.indptr, graph.indices, share, ranks, 0.15 / 14, 0.85)[1],
                               atol=1e-15)
    assert not np.allclose(ranks, x)


def test_a_negative_share_takes_an_active_vertex_out_of_the_worklist_and_counts_it_consumed():
    device = _TwoDevices(scan_every=1e9)
    device.step([7], [0.5], budget=0)  # 7 active, nothing processed
    assert device.qstate[2] == 1 and device.counts[1] == 1 and device.counts[2] == 1
    device.step([7], [-0.4995], budget=0)  # back under ε = 1e-3: inactive, and one more item consumed
    assert device.qstate[2] == 0 and device.counts[1] == 0 and device.counts[2] == 2
    device.step([9], [-0.002], budget=10)  # a negative residual at or over ε is pushed like a positive one
    assert device.qstate[2] == 0 and device.counts[0] == 1 and device.extra[9] == pytest.approx(-0.002)


def test_relabelling_is_made_once_per_placement_and_undone_in_the_result():
    from apportion.apps.pagerank import relabelled

    graph = generate("delaunay", 1500, seed=6)
    placement = apportion.place(graph, devices=2, seed=0)
    renumbered, moved, new_of_old = relabelled(graph, placement)
    assert relabelled(graph, placement)[0] is renumbered  # cached while both live
    assert np.all(np.diff(moved.owner) >= 0)  # each device's vertices are one contiguous block
    assert np.array_equal(np.sort(new_of_old), np.arange(graph.n))
    assert np.array_equal(moved.owner[new_of_old], placement.owner)
    assert renumbered.m == graph.m and np.array_equal(np.sort(np.diff(renumbered.indptr)),
                                                      np.sort(np.diff(graph.indptr)))
    by_degree, moved_d, new_d = relabelled(graph, placement, order="degree")
    assert by_degree is not renumbered and relabelled(graph, placement, order="degree")[0] is by_degree
    assert np.array_equal(moved_d.owner[new_d], placement.owner) and np.all(np.diff(moved_d.owner) >= 0)
    degrees = np.diff(by_degree.indptr)
    for device in range(2):  # within a device's block: degrees never rise
        assert np.all(np.diff(degrees[moved_d.owner == device]) <= 0)
    assert np.array_equal(np.sort(degrees), np.sort(np.diff(graph.indptr)))
    with pytest.raises(InputError):
        relabelled(graph, placement, order="shuffled")
    result = pagerank(graph, devices=2, placement=placement)
    assert result.placement is placement
    assert np.abs(result.values - pagerank_reference(graph)).sum() <= DEFAULT_TOLERANCE


def test_signed_targets_are_made_once_per_placement():
    from apportion.apps.pagerank import signed_targets

    graph = generate("delaunay", 500, seed=2)
    first = apportion.place(graph, devices=2, seed=0)
    other = apportion.place(graph, devices=2, method="random", seed=1)
    made = signed_targets(graph, first.owner)
    assert signed_targets(graph, first.owner) is made
    fresh = signed_targets(graph, other.owner)
    assert fresh is not made
    for owner, targets in ((first.owner, made), (other.owner, fresh)):
        for v in range(graph.n):
            row = targets[graph.indptr[v]:graph.indptr[v + 1]]
            mine = owner[graph.indices[graph.indptr[v]:graph.indptr[v + 1]]] == owner[v]
            assert sorted(row[row >= 0]) == sorted(graph.indices[graph.indptr[v]:graph.indptr[v + 1]][mine])
            assert sorted(-row[row < 0] - 1) == sorted(graph.indices[graph.indptr[v]:graph.indptr[v + 1]][~mine])
            assert np.all(np.diff((row < 0).astype(int)) >= 0)  # own-device arcs first
    writable = np.array(first.owner)
    assert signed_targets(graph, writable) is not signed_targets(graph, writable)  # never cached


def test_the_start_is_made_once_per_graph_and_alpha():
    from apportion.apps.pagerank import start_ranks

    graph = generate("delaunay", 400, seed=4)
    degrees = np.diff(graph.indptr)
    share = np.where(degrees > 0, 0.85 / np.maximum(degrees, 1), 0.0)
    ranks, residuals = start_ranks(graph, 0.85, share)
    assert start_ranks(graph, 0.85, share)[0] is ranks
    assert not ranks.flags.writeable and not residuals.flags.writeable
    other = np.where(degrees > 0, 0.5 / np.maximum(degrees, 1), 0.0)
    assert start_ranks(graph, 0.5, other)[0] is not ranks
