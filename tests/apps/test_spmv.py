"""Part-by-part SpMV equals SciPy's, and its loads are the edge partition's Σ p_v."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from apportion.apps.spmv import bipartite_graph, build_plan, spmv
from apportion.errors import InputError
from apportion.partitioning.edge.metrics import parts_per_vertex


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 30), cols=st.integers(1, 30), density=st.floats(0.05, 0.6), seed=st.integers(0, 99),
       k=st.integers(1, 5))
def test_plan_matches_scipy_for_any_assignment(rows, cols, density, seed, k):
    a = sp.random(rows, cols, density=density, random_state=seed, format="csr")
    a = sp.csr_array(a)
    assume(a.nnz > 0)
    rng = np.random.default_rng(seed)
    assignment = rng.integers(0, k, size=a.nnz).astype(np.int32)
    plan = build_plan(a, assignment, k)
    x = rng.standard_normal(cols)
    np.testing.assert_allclose(plan.multiply(x), a @ x, rtol=1e-12, atol=1e-12)
    g = bipartite_graph(a)
    u, v, _ = g.edges()
    assert plan.loads_per_part.sum() == parts_per_vertex(u, v, assignment, g.n, k).sum()


def test_bipartite_graph_order_is_csr_order():
    a = sp.csr_array(np.array([[0, 2.0, 0], [1, 0, 3], [0, 0, 4]]))
    g = bipartite_graph(a)
    u, v, _ = g.edges()
    assert u.tolist() == [0, 1, 1, 2] and (v - 3).tolist() == [1, 0, 2, 2]


@pytest.mark.parametrize("method", ["hdrf", "ne", "random"])
def test_spmv_report(method):
    a = sp.random(80, 60, density=0.08, random_state=4, format="csr")
    report = spmv(a, 4, method=method, repeats=1)
    assert report.max_abs_error < 1e-10
    np.testing.assert_allclose(report.y, a @ np.random.default_rng(0).random(60))
    assert report.total_loads == report.loads_per_part.sum() and report.max_loads == report.loads_per_part.max()
    touched = np.count_nonzero(np.diff(a.indptr)) + np.unique(a.indices).size
    assert report.total_loads == report.vertex_copies + touched
    assert set(report.to_dict()) >= {"speedup_vs_scipy", "speedup_vs_unpartitioned"}


def test_spmv_rejects_bad_input():
    a = sp.random(5, 5, density=0.5, random_state=1, format="csr")
    with pytest.raises(InputError):
        spmv(a, 2, repeats=0)
    with pytest.raises(InputError):
        spmv(a, 2, x=np.ones(3), method="hdrf")
    with pytest.raises(InputError):
        spmv(sp.csr_array((4, 4)), 2)
