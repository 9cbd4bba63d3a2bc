"""Workloads (matmul, textsearch, pbf): chunked kernels equal the sequential references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.apps.matmul import MATMUL_KERNELS, matmul_reference, matmul_workload, random_matrices
from apportion.apps.pbf import FilterWorkload, pbf_reference
from apportion.apps.textsearch import TextSearchWorkload, textsearch_reference
from apportion.platform import CPUDevice
from apportion.schedule.api import run_schedule


def run_all_chunks(workload, bundles):
    """Run the workload's CPU kernel over the given bundles (each a list of chunk ids), store, assemble."""
    workload.reset()
    for chunks in bundles:
        workload.store(chunks, workload.kernels.cpu(*workload.payload(chunks)))
    return workload.result()


def random_bundles(n_chunks, seed):
    rng = np.random.default_rng(seed)
    order = rng.permutation(n_chunks).tolist()
    bundles = []
    while order:
        take = int(rng.integers(1, 4))
        bundles.append(order[:take])
        order = order[take:]
    return bundles


def test_workloads_matmul_matches_numpy():
    a, b = random_matrices(37, seed=4, dtype=np.float64)
    workload = matmul_workload(a, b, 6)
    np.testing.assert_allclose(run_all_chunks(workload, random_bundles(6, 0)), matmul_reference(a, b))
    np.testing.assert_allclose(MATMUL_KERNELS.cpu_parallel(a, b), a @ b)
    assert workload.work(range(6)).flops == pytest.approx(2 * 37 ** 3)


@settings(max_examples=40, deadline=None)
@given(text=st.text(alphabet="ab", min_size=1, max_size=120),
       patterns=st.lists(st.text(alphabet="ab", min_size=1, max_size=5), min_size=1, max_size=4),
       n_chunks=st.integers(1, 30), seed=st.integers(0, 5))
def test_workloads_textsearch_boundary_matches_found_exactly_once(text, patterns, n_chunks, seed):
    data = text.encode()
    n_chunks = min(n_chunks, len(data))
    workload = TextSearchWorkload(data, patterns, n_chunks)
    found = run_all_chunks(workload, random_bundles(n_chunks, seed))
    np.testing.assert_array_equal(found, textsearch_reference(data, patterns))


def test_workloads_textsearch_match_across_boundary():
    text = b"xxxxgattacaxxxx"
    workload = TextSearchWorkload(text, ["gattaca", "x"], 3)  # boundaries at 5 and 10 cut "gattaca"
    found = run_all_chunks(workload, [[0], [1], [2]])
    assert [tuple(r) for r in found if r[1] == 0] == [(4, 0)]
    np.testing.assert_array_equal(found, textsearch_reference(text, ["gattaca", "x"]))


@settings(max_examples=30, deadline=None)
@given(size=st.integers(1, 300), n_chunks=st.integers(1, 20), low=st.floats(0, 1), width=st.floats(0, 1),
       seed=st.integers(0, 5))
def test_workloads_pbf_matches_mask(size, n_chunks, low, width, seed):
    values = np.random.default_rng(seed).random(size).astype(np.float32)
    n_chunks = min(n_chunks, size)
    workload = FilterWorkload(values, low, low + width, n_chunks)
    np.testing.assert_array_equal(run_all_chunks(workload, random_bundles(n_chunks, seed)),
                                  pbf_reference(values, np.float32(low), np.float32(low + width)))


def test_workloads_scheduled_on_real_devices_match_references():
    devices = [CPUDevice(1, name="a"), CPUDevice(1, name="b")]
    text = np.random.default_rng(0).choice(np.frombuffer(b"acgt", np.uint8), 3000).tobytes()
    schedule = run_schedule(TextSearchWorkload(text, ["acg", "tt", "gattaca"], 17), devices, "hass", 2)
    np.testing.assert_array_equal(schedule.result, textsearch_reference(text, ["acg", "tt", "gattaca"]))
    values = np.random.default_rng(1).random(5000).astype(np.float32)
    schedule = run_schedule(FilterWorkload(values, 0.1, 0.3, 11), devices, "dynamic", 2)
    np.testing.assert_array_equal(schedule.result, pbf_reference(values, np.float32(0.1), np.float32(0.3)))


@pytest.mark.gpu
def test_workloads_gpu_kernels_match_references():
    # small loads: under NUMBA_ENABLE_CUDASIM=1 every CUDA thread is a Python thread
    from apportion.platform import CUDADevice

    gpu = CUDADevice(0)
    text = np.random.default_rng(0).choice(np.frombuffer(b"acgt", np.uint8), 600).tobytes()
    schedule = run_schedule(TextSearchWorkload(text, ["acg", "tt"], 9), [CPUDevice(1), gpu], "hass", 2)
    np.testing.assert_array_equal(schedule.result, textsearch_reference(text, ["acg", "tt"]))
    values = np.random.default_rng(1).random(700).astype(np.float32)
    schedule = run_schedule(FilterWorkload(values, 0.1, 0.3, 7), [gpu], "greedy", 1)
    np.testing.assert_array_equal(schedule.result, pbf_reference(values, np.float32(0.1), np.float32(0.3)))


@pytest.mark.gpu_hardware
def test_workloads_gpu_matmul_by_cublas_matches_numpy():
    from apportion.platform import CUDADevice

    a, b = random_matrices(64, seed=1)
    schedule = run_schedule(matmul_workload(a, b, 8), [CPUDevice(1), CUDADevice(0)], "hass", 2)
    np.testing.assert_allclose(schedule.result, a @ b, rtol=1e-3)


@pytest.mark.parametrize("name, size, materialize, problem", [
    ("matmul", 100.7, False, "whole number"),
    ("matmul", float("inf"), False, "finite"),
    ("pbf", float("nan"), False, "finite"),
    ("matmul", 1e6, True, "too large, would need at least 24.0 TB"),  # 3 float64 matrices of 10^12 entries
    ("textsearch", 1e9, True, "too large"),
    ("pbf", 1e300, False, "than the"),  # a size-only workload still cuts its items into chunk bounds
    ("matmul", 1e300, False, "than the"),
])
def test_workload_sizes_that_cannot_be_made_are_input_errors(name, size, materialize, problem):
    """A size is refused in one line before anything is allocated: never a MemoryError or OverflowError."""
    from apportion.apps.workloads import build_workload
    from apportion.errors import InputError

    with pytest.raises(InputError, match=problem):
        build_workload(name, size, materialize=materialize)


def test_workload_default_chunks_are_bounded_and_a_huge_simulated_load_still_schedules():
    from apportion.apps.workloads import MAX_CHUNKS, build_workload

    workload = build_workload("matmul", 1e10, materialize=False)  # 10^10 rows, size only
    assert workload.n_chunks == MAX_CHUNKS
