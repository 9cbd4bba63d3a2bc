"""The streaming edge partitioners follow their published rules, checked edge by edge on a replay of the stream
(DBH with capacity to spare, so that no capacity fallback hides its hash; greedy with its capacity, replayed),
and their results have the quality the rules promise."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.graph.csr import Graph
from apportion.graph.generate import generate
from apportion.graph.metrics import edge_partition_metrics
from apportion.partitioning.edge.api import partition_edges
from apportion.partitioning.edge.metrics import balanced_capacity
from apportion.partitioning.edge.streaming import dbh, greedy, hdrf

SPARE = 100.0  # imbalance allowance for DBH: every part may hold all edges, so only the hash decides


@st.composite
def graphs(draw):
    n = draw(st.integers(4, 30))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=6, max_size=120))
    graph = Graph.from_edges([a for a, _ in pairs], [b for _, b in pairs], n=n)
    return graph if graph.m else Graph.from_edges([0, 1], [1, 2], n=n)


def power_law() -> Graph:
    return Graph.from_networkx(nx.barabasi_albert_graph(400, 4, seed=3))


def check_dbh_rule(graph, assignment):
    """Every edge sits where all edges of its lower-degree endpoint (ties: the lower id) sit."""
    u, v, _ = graph.edges()
    degrees = graph.degrees()
    pick = np.where((degrees[u] < degrees[v]) | ((degrees[u] == degrees[v]) & (u < v)), u, v)
    part_of = {}
    for p, a in zip(pick.tolist(), np.asarray(assignment).tolist()):
        assert part_of.setdefault(p, a) == a


@settings(max_examples=60)
@given(graph=graphs(), k=st.integers(2, 6), seed=st.integers(0, 5))
def test_dbh_hashes_the_lower_degree_endpoint(graph, k, seed):
    check_dbh_rule(graph, dbh(graph, k, SPARE, seed))


def test_dbh_rule_on_a_power_law_graph():
    graph = power_law()
    check_dbh_rule(graph, dbh(graph, 8, SPARE, 1))


def check_greedy_rules(graph, assignment, k, imbalance):
    """PowerGraph's greedy rules with a capacity, replayed edge by edge ("room": parts below the capacity):
    1. the endpoints share parts with room -> the least loaded of those; 2. both placed, none shared -> the least
    loaded part with room of the endpoint with more unplaced edges (else of the other one); 3. one placed -> the
    least loaded of its parts with room; otherwise, or when the rule leaves nothing, the least loaded part with
    room. Ties may go either way (a seeded order), so a choice is checked by its load."""
    _, upper = balanced_capacity(graph.m, k, imbalance)
    u, v, _ = graph.edges()
    loads = [0] * k
    remaining = graph.degrees().tolist()
    parts: dict[int, set] = {}
    for a, b, q in zip(u.tolist(), v.tolist(), np.asarray(assignment).tolist()):
        pa, pb = parts.get(a, set()), parts.get(b, set())

        def room(candidates):
            return {p for p in candidates if loads[p] < upper}

        if room(pa & pb):
            expected = room(pa & pb)
        elif pa and pb:
            first, second = (pa, pb) if remaining[a] >= remaining[b] else (pb, pa)
            expected = room(first) or room(second)
        else:
            expected = room(pa or pb)
        expected = expected or room(range(k))
        assert q in expected and loads[q] == min(loads[p] for p in expected), (a, b, q, expected)
        loads[q] += 1
        remaining[a] -= 1
        remaining[b] -= 1
        parts.setdefault(a, set()).add(q)
        parts.setdefault(b, set()).add(q)


@settings(max_examples=60)
@given(graph=graphs(), k=st.integers(2, 6), seed=st.integers(0, 5), imbalance=st.sampled_from([0.0, 0.1, 0.5]))
def test_greedy_follows_powergraph_rules(graph, k, seed, imbalance):
    check_greedy_rules(graph, greedy(graph, k, imbalance, seed), k, imbalance)


def test_greedy_rules_on_a_power_law_graph():
    graph = power_law()
    assignment = greedy(graph, 8, 0.1, 1)
    assert np.count_nonzero(np.bincount(assignment, minlength=8)) == 8   # the capacity spreads the edges
    check_greedy_rules(graph, assignment, 8, 0.1)


@pytest.mark.parametrize("make", [power_law, lambda: generate("grid2d", 1600)])
def test_hdrf_strong_balance_weight_balances_without_a_capacity(make):
    """With λ = 10 the balance term outweighs replication (at most 2): HDRF spreads the edges evenly by itself,
    although the capacity (ε = 1) would allow a part twice the average."""
    graph = make()
    assignment = hdrf(graph, 8, 1.0, 0, lam=10.0)
    metrics = edge_partition_metrics(graph, assignment, k=8)
    assert metrics.edge_imbalance <= 0.01


@pytest.mark.parametrize("name, make", [("power-law", power_law), ("grid", lambda: generate("grid2d", 1600))])
def test_neighbourhood_expansion_beats_the_one_pass_heuristics(name, make):
    """NE grows each part around a core and keeps the edges among boundary vertices in it: on a mesh and on a
    power-law graph it leaves fewer copies than any one-pass method (measured, k = 8: grid 146 against HDRF's 233
    and greedy's 220; Barabási–Albert 387 against DBH's 792)."""
    graph = make()
    copies = {m: partition_edges(graph, 8, method=m, seed=0).vertex_copies for m in ("ne", "hdrf", "greedy", "dbh")}
    assert copies["ne"] < 0.85 * min(copies["hdrf"], copies["greedy"], copies["dbh"])


@settings(max_examples=60)
@given(graph=graphs(), k=st.integers(2, 6), seed=st.integers(0, 5))
def test_neighbourhood_expansion_grows_every_part_to_its_exact_share(graph, k, seed):
    """Before any balancing, NE's part p holds exactly ⌈m/k⌉ edges for p < m mod k and ⌊m/k⌋ for the others
    (the last part takes the rest, which is its share)."""
    from apportion.partitioning.edge.ne import neighbourhood_expansion

    k = min(k, graph.m)
    sizes = np.bincount(neighbourhood_expansion(graph, k, 0.0, seed), minlength=k)
    expected = [graph.m // k + (1 if p < graph.m % k else 0) for p in range(k)]
    assert sizes.tolist() == expected


def test_neighbourhood_expansion_part_sizes_by_hand():
    from apportion.partitioning.edge.ne import neighbourhood_expansion

    path = Graph.from_edges(np.arange(7), np.arange(1, 8))   # 7 edges into 3 parts: 3, 2, 2
    assert np.bincount(neighbourhood_expansion(path, 3, 0.0, 0), minlength=3).tolist() == [3, 2, 2]
