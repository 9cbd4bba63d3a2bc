"""The GPU sides of the heterogeneous algorithms (seed 004) on a CUDA device equal their CPU kernels: Shiloach–
Vishkin on a vertex range (the same labels and cross edges) and the row-by-row product (the same rows, bit for
bit), under `NUMBA_ENABLE_CUDASIM=1` on small inputs."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

import apportion
from apportion.apps._split_cc_kernels import shiloach_vishkin
from apportion.apps._split_spmm_kernels import gustavson_rows
from apportion.apps.split_cc import SV_KERNELS
from apportion.apps.split_spmm import GUSTAVSON_KERNELS
from apportion.platform.cuda import CUDADevice

pytestmark = pytest.mark.gpu


@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 50), degree=st.floats(0.2, 3.0), seed=st.integers(0, 99), cut=st.floats(0.0, 1.0))
@example(n=1, degree=1.0, seed=0, cut=1.0)  # an empty GPU range (CI 2026-11-26): no round, no arc
def test_gpu_shiloach_vishkin_equals_the_cpu_kernel(n, degree, seed, cut):
    graph = apportion.generate("er", n=n, avg_degree=min(degree, n - 1), seed=seed)
    lo = int(n * cut)
    cpu_parent, cpu_cross, cpu_counters = np.full(n, -7, np.int64), np.empty((max(2 * graph.m, 1), 2), np.int64), \
        np.zeros(2, np.int64)
    cpu_count = shiloach_vishkin(graph.indptr, graph.indices, lo, n, cpu_parent, cpu_cross, cpu_counters)
    count, parent, cross, counters = CUDADevice(0).run(SV_KERNELS, graph.indptr, graph.indices, lo, n,
                                                        np.full(n, -7, np.int64),
                                                        np.empty((max(2 * graph.m, 1), 2), np.int64),
                                                        np.zeros(2, np.int64)).result
    np.testing.assert_array_equal(parent, cpu_parent)  # the prefix untouched (-7), the range labelled alike
    assert count == cpu_count
    assert sorted(map(tuple, cross[:count].tolist())) == sorted(map(tuple, cpu_cross[:cpu_count].tolist()))
    # rounds: at least one when the GPU's range holds a vertex; arcs: at least the range's own
    assert counters[1] >= (1 if lo < n else 0) and counters[0] >= graph.indptr[n] - graph.indptr[lo]


@settings(max_examples=6, deadline=None)
@given(rows=st.integers(1, 25), inner=st.integers(1, 25), cols=st.integers(1, 25), density=st.floats(0.05, 0.5),
       seed=st.integers(0, 99), cut=st.floats(0.0, 1.0), keep_fraction=st.floats(0.0, 1.0))
def test_gpu_row_product_equals_the_cpu_kernel(rows, inner, cols, density, seed, cut, keep_fraction):
    rng = np.random.default_rng(seed)
    a = sp.random_array((rows, inner), density=density, format="csr", rng=rng)
    b = sp.random_array((inner, cols), density=density, format="csr", rng=rng)
    keep = (rng.random(inner) < keep_fraction).astype(np.int8)
    lo = int(rows * cut)
    args = (a.indptr.astype(np.int64), a.indices.astype(np.int64), a.data, b.indptr.astype(np.int64),
            b.indices.astype(np.int64), b.data, cols, lo, rows, keep)
    ptr, idx, val, products = CUDADevice(0).run(GUSTAVSON_KERNELS, *args).result
    cpu_ptr, cpu_idx, cpu_val, cpu_products = gustavson_rows(*args)
    np.testing.assert_array_equal(ptr, cpu_ptr)
    np.testing.assert_array_equal(products, cpu_products)
    for r in range(rows - lo):  # the same columns and values, sorted on the GPU
        order = np.argsort(cpu_idx[cpu_ptr[r]:cpu_ptr[r + 1]], kind="stable")
        np.testing.assert_array_equal(idx[ptr[r]:ptr[r + 1]], cpu_idx[cpu_ptr[r]:cpu_ptr[r + 1]][order])
        np.testing.assert_array_equal(val[ptr[r]:ptr[r + 1]], cpu_val[cpu_ptr[r]:cpu_ptr[r + 1]][order])


@settings(max_examples=4, deadline=None)
@given(n=st.integers(1, 60), degree=st.floats(0.2, 3.0), seed=st.integers(0, 99), threshold=st.sampled_from([0, 37, 100]))
def test_split_algorithms_on_a_cpu_and_a_cuda_device_equal_scipy(n, degree, seed, threshold):
    from apportion.apps.cc import cc_reference
    from apportion.apps.split_cc import split_connected_components
    from apportion.apps.split_common import device_pair
    from apportion.apps.split_hh import split_hh_spmm
    from apportion.apps.split_spmm import split_spmm
    from apportion.platform.cpu import CPUDevice
    from apportion.platform.platform import Platform

    pair = device_pair(Platform([CPUDevice(1, name="cpu"), CUDADevice(0)]))
    assert pair.gpu.name == "cuda0" and not pair.simulated
    graph = apportion.generate("er", n=n, avg_degree=min(degree, n - 1), seed=seed)
    labels = split_connected_components(graph, threshold, None, pair=pair)
    np.testing.assert_array_equal(labels.result, cc_reference(graph))
    matrix = graph.to_scipy(weighted=False).tocsr().astype(np.float64)
    want = (matrix @ matrix).toarray()
    np.testing.assert_allclose(split_spmm(matrix, threshold, None, pair=pair).result.toarray(), want)
    np.testing.assert_allclose(split_hh_spmm(matrix, threshold // 20, None, pair=pair).result.toarray(), want)
