"""Small random graphs for the runtime apps' property tests (hypothesis strategies)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from apportion.graph.csr import Graph


@st.composite
def small_graphs(draw, weighted: bool = False, max_n: int = 40):
    """A random simple undirected graph (often disconnected) with 1..max_n vertices; integer weights 1-20 when
    `weighted`."""
    n = draw(st.integers(1, max_n))
    density = draw(st.sampled_from([0.0, 0.03, 0.08, 0.2]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    pairs = int(density * n * (n - 1) / 2) + (n // 2 if density else 0)
    src = rng.integers(0, n, size=pairs)
    dst = rng.integers(0, n, size=pairs)
    weights = rng.integers(1, 21, size=pairs) if weighted else None
    return Graph.from_edges(src, dst, weights, n=n)


run_options = st.fixed_dictionaries({
    "devices": st.sampled_from([1, 2, 4]),
    "routing": st.sampled_from(["ring", "direct"]),
    "placement": st.sampled_from(["partition", "ranges", "random"]),
    "batch": st.sampled_from([1, 3, 4096]),
    "seed": st.integers(0, 3),
})
