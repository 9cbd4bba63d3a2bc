"""SPAC: the Ψ transform's structure, Theorem 3.4's guarantee, exact balance, the METIS cross-check."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from apportion.graph.csr import Graph
from apportion.partitioning.edge.api import partition_edges
from apportion.partitioning.edge.incidence import edge_incidence
from apportion.partitioning.edge.spac import split_and_connect

warnings.filterwarnings("ignore", category=Warning, module="numba")


@st.composite
def graphs(draw, min_pairs=1):
    n = draw(st.integers(2 if min_pairs == 1 else 6, 20))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=min_pairs, max_size=60))
    g = Graph.from_edges([a for a, _ in pairs], [b for _, b in pairs], n=n)
    return g if g.m else Graph.from_edges([0], [1], n=n)


@settings(max_examples=60, deadline=None)
@given(graph=graphs())
def test_psi_structure(graph):
    psi = split_and_connect(graph)
    inc = edge_incidence(graph)
    m = graph.m
    assert psi.n == 2 * m
    Graph.from_csr(psi.indptr, psi.indices, edge_weights=psi.edge_weights)  # every invariant holds
    src = psi.sources()
    w = psi.edge_weights
    dominant = w == 1000
    # one dominant edge per clone, linking the two clones of one original edge (clone = CSR entry)
    assert np.array_equal(np.bincount(src[dominant], minlength=2 * m), np.ones(2 * m))
    assert np.array_equal(psi.indices[dominant], inc.reverse[src[dominant]])
    ends = np.sort(np.stack([inc.sources[src[dominant]], inc.sources[psi.indices[dominant]]]), axis=0)
    u, v, _ = graph.edges()
    assert set(zip(ends[0].tolist(), ends[1].tolist())) == set(zip(u.tolist(), v.tolist()))
    # auxiliary edges: weight 1, between clones of the same vertex, forming one cycle per vertex
    aux = ~dominant
    assert np.all(w[aux] == 1)
    assert np.array_equal(inc.sources[src[aux]], inc.sources[psi.indices[aux]])
    degrees = graph.degrees()
    expected_aux = sum(int(d) if d >= 3 else (1 if d == 2 else 0) for d in degrees)
    assert np.count_nonzero(aux) // 2 == expected_aux
    nxg = nx.Graph()
    nxg.add_edges_from(zip(src[aux].tolist(), psi.indices[aux].tolist()))
    for x in range(graph.n):
        clones = list(range(graph.indptr[x], graph.indptr[x + 1]))
        if len(clones) >= 3:
            cyc = nxg.subgraph(clones)
            assert nx.is_connected(cyc) and all(d == 2 for _, d in cyc.degree())


@pytest.mark.parametrize("vertex_partitioner", ["apportion", "metis"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=graphs(min_pairs=20), k=st.integers(2, 4))
def test_theorem_3_4_copies_at_most_transformed_cut(vertex_partitioner, graph, k):
    assume(graph.m >= 3 * k)  # enough edges that the partition of Ψ has a cut to reconstruct from
    result = partition_edges(graph, k, method="spac", seed=0, vertex_partitioner=vertex_partitioner)
    d = result.details
    assert d["copies_before_balance"] <= d["auxiliary_edges_cut"] + d["dominant_edges_cut"]
    assert d["transformed_cut_weight"] == d["auxiliary_edges_cut"] + 1000 * d["dominant_edges_cut"]
    counts = result.edges_per_part
    assert counts.min() >= graph.m // k and counts.max() <= -(-graph.m // k)


def test_spac_on_power_law_is_exact_and_uses_own_partitioner():
    g = Graph.from_networkx(nx.barabasi_albert_graph(600, 5, seed=1))
    result = partition_edges(g, 7, method="spac", seed=3)
    assert result.details["vertex_partitioner"] == "apportion"
    assert set(result.edges_per_part.tolist()) <= {g.m // 7, -(-g.m // 7)}
    assert result.details["copies_before_balance"] <= (result.details["auxiliary_edges_cut"]
                                                       + result.details["dominant_edges_cut"])
    metis = partition_edges(g, 7, method="spac", seed=3, vertex_partitioner="metis")
    assert metis.details["vertex_partitioner"] == "metis"
    random = partition_edges(g, 7, method="random", seed=3)
    assert result.vertex_copies < random.vertex_copies and metis.vertex_copies < random.vertex_copies


def test_dominant_weight_option_changes_transform():
    g = Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])
    psi = split_and_connect(g, dominant_weight=7)
    assert sorted(set(psi.edge_weights.tolist())) == [1, 7]


def test_psi_cut_counts_a_degree_two_vertex_once():
    """A vertex of degree 2 has one auxiliary edge between its two clones (no second edge closing a cycle):
    splitting those clones cuts 1 auxiliary edge, in the O(m) count and in the built transform alike."""
    from apportion.partitioning.edge.spac import psi_cut, transformed_cut

    path = Graph.from_edges([0, 1], [1, 2])  # clones: 0 | 1, 2 (vertex 1) | 3
    psi = split_and_connect(path)
    split = np.array([0, 0, 1, 1], dtype=np.int32)
    assert psi_cut(path, split) == transformed_cut(psi, split, 1000) == (1, 0)
    triangle = Graph.from_edges([0, 1, 2], [1, 2, 0])  # every vertex of degree 2: clones 2x, 2x+1
    one_split = np.array([0, 1, 0, 0, 0, 0], dtype=np.int32)
    assert psi_cut(triangle, one_split) == transformed_cut(split_and_connect(triangle), one_split, 1000)
    assert psi_cut(triangle, one_split)[0] == 1


@settings(max_examples=40, deadline=None)
@given(graph=graphs(), cap=st.integers(1, 6), k=st.integers(2, 5), seed=st.integers(0, 3))
def test_clone_runs_cut_equals_psi_cut(graph, cap, k, seed):
    """The run graph is Ψ with runs of consecutive clones contracted: a partition of the runs, projected to the
    clones, cuts exactly as much in Ψ (built and counted independently) as in the run graph."""
    from apportion.partitioning.edge.spac import clone_runs, psi_cut, transformed_cut

    runs, clone_run = clone_runs(graph, cap)
    Graph.from_csr(runs.indptr, runs.indices, vertex_weights=runs.vertex_weights, edge_weights=runs.edge_weights)
    assert runs.vertex_weights.sum() == 2 * graph.m
    assert runs.vertex_weights.max() <= cap
    inc = edge_incidence(graph)
    assert np.array_equal(inc.sources, np.repeat(np.arange(graph.n), np.diff(graph.indptr)))
    # every run holds consecutive clones of one vertex
    owner = np.full(runs.n, -1)
    owner[clone_run] = inc.sources
    assert np.array_equal(owner[clone_run], inc.sources) and np.all(np.diff(clone_run) >= 0)
    part = np.random.default_rng(seed).integers(0, k, runs.n).astype(np.int32)
    clone_part = part[clone_run]
    psi = split_and_connect(graph)
    assert psi_cut(graph, clone_part) == transformed_cut(psi, clone_part, 1000)
    src = runs.sources()
    cut = part[src] != part[runs.indices]
    run_cut_weight = int(runs.edge_weights[cut].sum()) // 2
    aux, dom = transformed_cut(psi, clone_part, 1000)
    assert run_cut_weight == aux + 1000 * dom


@pytest.mark.parametrize("run_cap", [1, 3, 32])
def test_preclustered_spac_exact_balance_recount_and_determinism(run_cap):
    from apportion.graph.metrics import edge_partition_metrics

    g = Graph.from_networkx(nx.barabasi_albert_graph(400, 4, seed=2))
    k = 6
    first = partition_edges(g, k, method="spac", seed=5, imbalance=0.0, run_cap=run_cap)
    again = partition_edges(g, k, method="spac", seed=5, imbalance=0.0, run_cap=run_cap)
    assert np.array_equal(first.assignment, again.assignment)
    assert set(first.edges_per_part.tolist()) <= {g.m // k, -(-g.m // k)}
    recount = edge_partition_metrics(g, first.assignment, k=k)
    assert recount.vertex_copies == first.vertex_copies
    assert np.array_equal(np.asarray(recount.edges_per_part), first.edges_per_part)
    d = first.details
    assert d["run_cap"] == min(run_cap, (2 * g.m // k) // 4)
    assert d["transformed_vertices"] == 2 * g.m
    assert (d["partitioned_vertices"] == 2 * g.m) == (run_cap == 1)
    assert d["copies_before_balance"] <= d["auxiliary_edges_cut"] + d["dominant_edges_cut"]
    assert set(d["phase_s"]) == {"transform", "vertex_partition", "reconstruct", "refine", "balance"}
    assert d["copies_before_refine"] == d["copies_before_balance"]


def test_spac_accepts_partition_options_and_rejects_other_presets():
    from apportion.errors import InputError
    from apportion.graph.metrics import edge_partition_metrics
    from apportion.partitioning.vertex.options import preset_options

    g = Graph.from_networkx(nx.barabasi_albert_graph(300, 3, seed=4))
    options = preset_options("fast", fm_passes=1, initial_tries=2)
    first = partition_edges(g, 5, method="spac", seed=1, vertex_preset=options)
    assert np.array_equal(first.assignment, partition_edges(g, 5, method="spac", seed=1,
                                                           vertex_preset=options).assignment)
    assert set(first.edges_per_part.tolist()) <= {g.m // 5, -(-g.m // 5)}
    assert edge_partition_metrics(g, first.assignment, k=5).vertex_copies == first.vertex_copies
    with pytest.raises(InputError):
        partition_edges(g, 5, method="spac", vertex_preset="fastest")


def test_spac_default_vertex_options_are_its_pinned_run_graph_options():
    from apportion.partitioning.edge.spac import RUN_GRAPH_OPTIONS, run_graph_options

    options = run_graph_options()
    assert all(getattr(options, name) == value for name, value in RUN_GRAPH_OPTIONS.items())
    g = Graph.from_networkx(nx.barabasi_albert_graph(250, 3, seed=7))
    implicit = partition_edges(g, 4, method="spac", seed=3)
    explicit = partition_edges(g, 4, method="spac", seed=3, vertex_preset=options)
    assert np.array_equal(implicit.assignment, explicit.assignment)
