"""The numba-cuda elimination update equals the CPU kernel bit for bit, and a stencil platform with a CUDA device
LU-factorises to the NumPy reference (under `NUMBA_ENABLE_CUDASIM=1`: small matrices)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from apportion.apps._gauss_kernels import eliminate_block
from apportion.apps.gauss import GAUSS_KERNELS, benchmark_case, lu_reference, random_matrix, run_gauss
from apportion.platform.cpu import CPUDevice
from apportion.platform.cuda import CUDADevice

pytestmark = pytest.mark.gpu


@settings(max_examples=6, deadline=None)
@example(h=6, w=7, row0=0, col0=0, k=2, seed=1)  # column k inside the block, rows below it: multipliers stored
@example(h=5, w=5, row0=4, col0=3, k=5, seed=2)
@given(h=st.integers(1, 20), w=st.integers(1, 20), row0=st.integers(0, 10), col0=st.integers(0, 10),
       k=st.integers(-1, 25), seed=st.integers(0, 99))
def test_gpu_elimination_update_equals_cpu_kernel(h, w, row0, col0, k, seed):
    rng = np.random.default_rng(seed)
    block = rng.standard_normal((h, w))
    multipliers, pivot_row = rng.standard_normal(row0 + h), rng.standard_normal(col0 + w)
    out = CUDADevice(0).run(GAUSS_KERNELS, block, row0, col0, k, multipliers, pivot_row).result
    want = eliminate_block(block.copy(), row0, col0, k, multipliers, pivot_row)
    np.testing.assert_array_equal(out, want)
    assert not np.array_equal(out, block) or k >= row0 + h - 1 or k >= col0 + w  # some element changed


def test_gpu_gauss_on_a_cpu_and_a_cuda_device_equals_the_reference():
    a = random_matrix(14, seed=3)
    result = run_gauss(14, [CPUDevice(1, name="cpu"), CUDADevice(0)], model="cpm", matrix=a)
    lu, perm = lu_reference(a)
    np.testing.assert_array_equal(result.permutation, perm)
    np.testing.assert_allclose(result.lu, lu, rtol=1e-12, atol=1e-12)
    assert (result.trace.compute_s[:, 1] > 0).any()


def test_gpu_gauss_benchmark_case_runs_on_a_cuda_device():
    kernels, args, work = benchmark_case(300, 20)
    want = kernels.cpu(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    np.testing.assert_array_equal(CUDADevice(0).run(kernels, *args, work=work).result, want)
