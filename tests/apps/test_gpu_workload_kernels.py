"""The numba-cuda kernels of the scheduler's workloads (PBF, text search) equal their CPU kernels on random small
inputs, run through a CUDADevice (under `NUMBA_ENABLE_CUDASIM=1` on the CUDA simulator: keep inputs small)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.apps.pbf import PBF_KERNELS, FilterWorkload
from apportion.apps.textsearch import TEXTSEARCH_KERNELS, TextSearchWorkload
from apportion.platform.cuda import CUDADevice

pytestmark = pytest.mark.gpu


@settings(max_examples=8)
@given(values=st.lists(st.integers(-50, 50), min_size=6, max_size=300), low=st.integers(-60, 60),
       width=st.integers(0, 80), n_chunks=st.integers(1, 6), first=st.integers(0, 5), data=st.data())
def test_gpu_pbf_equals_cpu_kernel(values, low, width, n_chunks, first, data):
    workload = FilterWorkload(np.array(values, dtype=np.int32), low, low + width, n_chunks)
    first = min(first, workload.n_chunks - 1)
    last = data.draw(st.integers(first, workload.n_chunks - 1))
    args = workload.payload(list(range(first, last + 1)))
    kept, per_chunk = CUDADevice(0).run(PBF_KERNELS, *args).result
    want_kept, want_per_chunk = PBF_KERNELS.cpu(*args)
    np.testing.assert_array_equal(kept, want_kept)
    assert kept.dtype == want_kept.dtype
    np.testing.assert_array_equal(per_chunk, want_per_chunk)


def test_gpu_pbf_keeps_nothing_from_an_empty_range():
    workload = FilterWorkload(np.arange(200, dtype=np.float64), 5.0, 5.0, 3)
    kept, per_chunk = CUDADevice(0).run(PBF_KERNELS, *workload.payload([0, 1, 2])).result
    assert kept.size == 0 and per_chunk.tolist() == [0, 0, 0]


@settings(max_examples=8)
@given(text=st.binary(min_size=5, max_size=200).map(lambda b: bytes(x % 3 + 97 for x in b)),
       patterns=st.lists(st.binary(min_size=1, max_size=3).map(lambda b: bytes(x % 3 + 97 for x in b)),
                         min_size=1, max_size=3, unique=True),
       n_chunks=st.integers(1, 5))
def test_gpu_textsearch_equals_cpu_kernel(text, patterns, n_chunks):
    workload = TextSearchWorkload(text, patterns, n_chunks)
    args = workload.payload(list(range(workload.n_chunks)))
    found = CUDADevice(0).run(TEXTSEARCH_KERNELS, *args).result
    want = TEXTSEARCH_KERNELS.cpu(*args)
    assert found.dtype == np.int64 and found.shape == want.shape
    np.testing.assert_array_equal(found, want)
