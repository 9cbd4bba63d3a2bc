"""Distributed Gaussian elimination with partial pivoting against NumPy and SciPy references."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from apportion.apps.gauss import lu_reference, random_matrix, run_gauss
from apportion.platform import CPUDevice, Platform


@pytest.mark.parametrize("method, k", [("nphp", 3), ("points", 4), ("columns", 2)])
def test_gauss_matches_references(method, k):
    n = 29
    result = run_gauss(n, [CPUDevice(name=f"c{i}") for i in range(k)], method=method, seed=5)
    lu, perm = lu_reference(random_matrix(n, 5))
    np.testing.assert_allclose(result.lu, lu, rtol=1e-10, atol=1e-10)
    assert np.array_equal(result.permutation, perm)
    scipy_lu, _ = scipy.linalg.lu_factor(random_matrix(n, 5))
    np.testing.assert_allclose(result.lu, scipy_lu, rtol=1e-9, atol=1e-9)
    # P·A = L·U
    lower = np.tril(result.lu, -1) + np.eye(n)
    upper = np.triu(result.lu)
    np.testing.assert_allclose(random_matrix(n, 5)[result.permutation], lower @ upper, atol=1e-9)
    assert result.trace.compute_s.shape == (n - 1, k)


def test_gauss_needs_pivoting_and_simulated_platform():
    a = np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]])
    result = run_gauss(3, Platform.load("seed002").subset([0, 1]), matrix=a)
    lu, perm = lu_reference(a)
    np.testing.assert_allclose(result.lu, lu)
    assert np.array_equal(result.permutation, perm) and perm[0] == 2
    assert result.trace.simulated and result.trace.makespan_s() > 0
