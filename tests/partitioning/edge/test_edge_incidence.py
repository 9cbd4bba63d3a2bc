"""The entry ↔ edge correspondence against a brute-force dictionary of the CSR entries."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.graph.csr import Graph
from apportion.partitioning.edge.incidence import edge_incidence


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 25), pairs=st.lists(st.tuples(st.integers(0, 24), st.integers(0, 24)), max_size=80))
def test_twins_and_edge_ids_match_brute_force(n, pairs):
    pairs = [(a % n, b % n) for a, b in pairs]
    g = Graph.from_edges([a for a, _ in pairs], [b for _, b in pairs], n=n)
    inc = edge_incidence(g)
    src = np.repeat(np.arange(g.n), np.diff(g.indptr))
    position = {(int(a), int(b)): i for i, (a, b) in enumerate(zip(src, g.indices))}
    u, v, _ = g.edges()
    edge_id = {(int(a), int(b)): e for e, (a, b) in enumerate(zip(u, v))}
    assert np.array_equal(inc.sources, src) and np.array_equal(inc.targets, g.indices)
    for i, (a, b) in enumerate(zip(src.tolist(), g.indices.tolist())):
        assert inc.reverse[i] == position[(b, a)]
        assert inc.edge_of_entry[i] == edge_id[(min(a, b), max(a, b))]
    assert np.array_equal(inc.u, u) and np.array_equal(inc.v, v)
    assert np.array_equal(inc.upper_entries, [position[(int(a), int(b))] for a, b in zip(u, v)])
