"""Locality-aware SpMV on a CUDA device (one thread block per part, shared-memory buffers) equals the CPU kernel
and SciPy's product (under `NUMBA_ENABLE_CUDASIM=1`: small matrices)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.apps._spmv_cuda import SHARED_ENTRIES
from apportion.apps.spmv import build_plan
from apportion.platform.cuda import CUDADevice

pytestmark = pytest.mark.gpu


@settings(max_examples=6, deadline=None)
@given(rows=st.integers(1, 30), cols=st.integers(1, 30), density=st.floats(0.05, 0.6), k=st.integers(1, 5),
       seed=st.integers(0, 999))
def test_gpu_partitioned_spmv_equals_cpu_kernel_and_scipy(rows, cols, density, k, seed):
    rng = np.random.default_rng(seed)
    matrix = sp.random_array((rows, cols), density=density, format="csr", rng=rng)
    matrix.sort_indices()
    plan = build_plan(matrix, rng.integers(0, k, matrix.nnz), k)
    x = rng.random(cols)
    gpu = plan.multiply(x, CUDADevice(0))
    np.testing.assert_allclose(gpu, plan.multiply(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gpu, matrix @ x, rtol=1e-12, atol=1e-12)


def test_gpu_spmv_part_larger_than_shared_memory_falls_back_to_global_atomics():
    # one part, two rows, more distinct x entries than the shared buffer holds; only the odd columns are used,
    # so a column's place in the part's list differs from its global number
    cols = 2 * (SHARED_ENTRIES + 50)
    rng = np.random.default_rng(1)
    dense = rng.random((2, cols))
    dense[:, 0::2] = 0.0
    matrix = sp.csr_array(dense)
    plan = build_plan(matrix, np.zeros(matrix.nnz, dtype=np.int64), 1)
    assert plan.loads_per_part[0] > SHARED_ENTRIES
    x = rng.random(cols)
    np.testing.assert_allclose(plan.multiply(x, CUDADevice(0)), matrix @ x, rtol=1e-12)
