"""Seed 004's split algorithms (CC Algorithm 1, SpMM Algorithm 2, HH-CPU Algorithm 3): the result equals
SciPy's whatever the threshold, on the real two-device pair and on the simulated seed004 pair; the simulated
time follows the input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components

from apportion.apps.split_cc import split_connected_components
from apportion.apps.split_common import device_pair
from apportion.apps.split_hh import split_hh_spmm, threshold_candidates
from apportion.apps.split_spmm import race_spmm, split_row, split_spmm, work_per_row
from apportion.apps.threshold import run_split
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.generate import generate
from apportion.platform.cpu import CPUDevice
from apportion.platform.platform import Platform
from apportion.platform.throttled import ThrottledDevice

pytestmark = pytest.mark.timeout(300)

PAIRS = {"local-pair": device_pair("local-pair"), "seed004": device_pair("seed004")}
PERCENT = st.one_of(st.sampled_from([0.0, 100.0]), st.floats(0, 100, allow_nan=False))


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 40))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    src = np.array([a for a, b in pairs if a != b], dtype=np.int64)
    dst = np.array([b for a, b in pairs if a != b], dtype=np.int64)
    return Graph.from_edges(src, dst, n=n) if src.size else Graph.from_edges(src, dst, n=n)


@st.composite
def matrices(draw):
    n = draw(st.integers(1, 30))
    density = draw(st.floats(0.0, 0.5))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((n, n)) < density, rng.integers(-3, 4, (n, n)), 0).astype(float)
    if draw(st.booleans()) and n > 1:  # a scale-free touch: one long row
        dense[0, :] = rng.integers(1, 4, n)
    return sp.csr_matrix(dense)


def smallest_vertex_labels(graph: Graph) -> np.ndarray:
    """Each vertex's component's smallest vertex, from SciPy's labels."""
    _count, labels = connected_components(graph.to_scipy(), directed=False)
    first = np.full(labels.max() + 1, graph.n, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(graph.n))
    return first[labels]


@settings(max_examples=40, deadline=None)
@given(graph=graphs(), threshold=PERCENT, platform=st.sampled_from(sorted(PAIRS)))
def test_split_cc_equals_scipy_whatever_the_threshold(graph, threshold, platform):
    run = split_connected_components(graph, threshold, None, pair=PAIRS[platform])
    assert np.array_equal(run.result, smallest_vertex_labels(graph))
    assert run.details["cpu_vertices"] + run.details["gpu_vertices"] == graph.n
    assert run.time_s >= max(v for k, v in run.device_times_s.items() if k != "merge")


def test_split_cc_on_generated_graphs_and_many_cpu_parts():
    graph = generate("road", 3000, seed=2)
    reference = smallest_vertex_labels(graph)
    for t in (0, 13, 50, 87, 100):
        run = split_connected_components(graph, t, None, pair=PAIRS["seed004"])  # 20 CPU parts
        assert np.array_equal(run.result, reference)
        assert run.details["cpu_parts"] == (20 if t > 0 else 1)


@settings(max_examples=40, deadline=None)
@given(matrix=matrices(), threshold=PERCENT, platform=st.sampled_from(sorted(PAIRS)))
def test_split_spmm_equals_scipy_whatever_the_threshold(matrix, threshold, platform):
    run = split_spmm(matrix, threshold, None, pair=PAIRS[platform])
    expected = (matrix @ matrix).toarray()
    assert np.allclose(run.result.toarray(), expected)
    assert run.details["cpu_rows"] + run.details["gpu_rows"] == matrix.shape[0]


@settings(max_examples=40, deadline=None)
@given(matrix=matrices(), data=st.data(), platform=st.sampled_from(sorted(PAIRS)))
def test_split_hh_equals_scipy_whatever_the_threshold(matrix, data, platform):
    threshold = data.draw(st.one_of(st.sampled_from([0, matrix.shape[0] + 1]), st.integers(0, 40)))
    run = split_hh_spmm(matrix, threshold, None, pair=PAIRS[platform])
    assert np.allclose(run.result.toarray(), (matrix @ matrix).toarray())
    lengths = np.diff(matrix.indptr)
    assert run.details["high_rows"] == int((lengths > threshold).sum())


def test_work_per_row_is_the_load_vector_and_the_split_row_is_the_closest():
    matrix = sp.random(50, 50, density=0.1, random_state=3, format="csr")
    work = work_per_row(sp.csr_matrix(matrix))
    pattern = (matrix != 0).astype(np.int64)
    assert np.array_equal(work, pattern @ np.asarray(pattern.sum(axis=1)).ravel())
    prefix = np.concatenate(([0], np.cumsum(work)))
    for percent in (0, 10, 33.3, 50, 99, 100):
        i = split_row(work, percent)
        target = prefix[-1] * percent / 100
        assert abs(prefix[i] - target) == np.abs(prefix - target).min() or percent in (0, 100)
    assert split_row(work, 0) == 0 and split_row(work, 100) == 50


def test_a_throttled_gpu_side_runs_the_same_result_and_is_slower():
    graph = generate("delaunay", 4000, seed=1)
    pair = device_pair(Platform([CPUDevice(1, name="cpu"), ThrottledDevice(CPUDevice(1, name="g"), 3.0, name="gpu")]))
    plain = split_connected_components(graph, 0, None, pair=PAIRS["local-pair"])
    slowed = split_connected_components(graph, 0, None, pair=pair)
    assert np.array_equal(plain.result, slowed.result)
    assert slowed.device_times_s["gpu"] > plain.device_times_s["gpu-side"]


def test_the_simulated_best_threshold_depends_on_the_input():
    """The seed004 model's times come from the operation counts, so two inputs have different best splits."""
    pair = PAIRS["seed004"]
    best = {}
    for kind in ("grid2d", "rmat"):
        matrix = generate(kind, 4096, seed=1).to_scipy()
        times = {t: split_spmm(matrix, t, None, pair=pair).time_s for t in range(0, 101, 5)}
        best[kind] = min(times, key=times.get)
    assert best["grid2d"] != best["rmat"]


def test_the_simulated_race_gives_the_cpu_share_of_speed():
    matrix = generate("grid2d", 4096, seed=1).to_scipy()
    pair = PAIRS["seed004"]
    share, seconds = race_spmm(matrix, pair)
    cpu = split_spmm(matrix, 100, None, pair=pair).time_s
    gpu = split_spmm(matrix, 0, None, pair=pair).time_s
    assert share == pytest.approx(100 * gpu / (cpu + gpu))
    assert seconds == pytest.approx(min(cpu, gpu))
    real_share, real_seconds = race_spmm(matrix, PAIRS["local-pair"])
    assert 0 < real_share < 100 and real_seconds > 0


def test_hh_candidates_are_zero_and_the_distinct_row_lengths():
    matrix = sp.csr_matrix(np.array([[1, 1, 0], [0, 0, 0], [1, 1, 1]], dtype=float))
    assert threshold_candidates(matrix).tolist() == [0, 2, 3]


@pytest.mark.parametrize("app, bad, message", [
    ("spmm", sp.csr_matrix(np.ones((2, 3))), "square"),
    ("hh", sp.csr_matrix((0, 0)), "empty"),
    ("cc", Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), n=0), "empty"),
])
def test_bad_inputs_are_input_errors(app, bad, message):
    with pytest.raises(InputError, match=message):
        run_split(app, bad, "local-pair", 50)


def test_thresholds_out_of_range_and_one_device_platforms_are_refused():
    matrix = sp.identity(4, format="csr")
    with pytest.raises(InputError, match="0 to 100"):
        run_split("spmm", matrix, "local-pair", 101)
    with pytest.raises(InputError, match="at least 0"):
        run_split("hh", matrix, "local-pair", -1)
    with pytest.raises(InputError, match="two devices"):
        run_split("spmm", matrix, Platform([CPUDevice(1)]), 50)
    for threshold in (None, "abc", True, float("nan")):  # TypeError / ValueError before
        with pytest.raises(InputError, match="threshold"):
            run_split("spmm", matrix, "local-pair", threshold)
        with pytest.raises(InputError, match="threshold"):
            run_split("cc", Graph.from_edges(np.array([0]), np.array([1]), n=2), "local-pair", threshold)
    with pytest.raises(InputError, match="CPU side needs a CPU device"):  # seed002: GPU nodes only
        run_split("spmm", matrix, "seed002", 50)
    with pytest.raises(InputError, match="unknown threshold application"):
        run_split("lu", matrix, "local-pair", 50)


def test_a_simulated_run_reports_the_fixed_part_of_each_side():
    """The fixed part (launches, link latencies, saturation floor) is below each part's time, and the GPU's
    grows with its Shiloach-Vishkin rounds (two launches a round) while its share of the vertices does not."""
    pair = PAIRS["seed004"]
    graph = generate("road", 4000, seed=3)
    run = split_connected_components(graph, 40, None, pair=pair)
    cpu_fixed, gpu_fixed, merge_fixed = run.details["fixed_s"]
    assert 0 < cpu_fixed < run.device_times_s[pair.cpu.name]
    assert 0 < gpu_fixed < run.device_times_s[pair.gpu.name]
    assert 0 < merge_fixed < run.device_times_s["merge"]
    rounds = run.details["gpu_rounds"]
    launch = pair.gpu.model.launch_latency_s
    assert gpu_fixed >= 2 * rounds * launch
    idle = split_connected_components(graph, 100, None, pair=pair)
    assert idle.details["fixed_s"][1] == 0.0 and idle.device_times_s[pair.gpu.name] == 0.0


def test_a_simulated_spmm_run_reports_the_gpus_transfers_which_grow_with_its_bytes():
    """The GPU side copies B and its rows of A in and its rows of the product out: the transfer part (less the
    latencies) is the link's time for those bytes; the CPU side and the merge move nothing."""
    pair = PAIRS["seed004"]
    matrix = generate("delaunay", 3000, seed=1).to_scipy()
    run = split_spmm(matrix, 60, None, pair=pair)
    cpu_moved, gpu_moved, merge_moved = run.details["transfer_s"]
    assert cpu_moved == 0.0 and merge_moved == 0.0
    link = pair.gpu.link
    assert 0 < gpu_moved < run.device_times_s[pair.gpu.name] - run.details["fixed_s"][1] + 1e-12
    assert gpu_moved >= 16.0 * matrix.nnz / link.bandwidth_Bps * 0.99  # at least all of B came over


def test_small_inputs_run_their_sides_in_the_calling_thread_and_large_ones_at_the_same_time(monkeypatch):
    """Below SERIAL_BELOW entries a real pair of one-thread CPU devices skips the helper thread (its hand-off
    costs more than a sample's run); each side still reports its own thread CPU time, and the result is the
    same as with the helper."""
    import apportion.apps.split_common as common

    pair = PAIRS["local-pair"]
    small = generate("delaunay", 500, seed=1)
    expected = split_connected_components(small, 40, None, pair=pair)
    monkeypatch.setattr(common, "_helper", lambda: (_ for _ in ()).throw(AssertionError("helper used")))
    run = split_connected_components(small, 40, None, pair=pair)
    assert np.array_equal(run.result, expected.result)
    assert run.device_times_s["cpu-side"] > 0 and run.device_times_s["gpu-side"] > 0
    monkeypatch.setattr(common, "SERIAL_BELOW", 10)
    with pytest.raises(AssertionError, match="helper used"):
        split_connected_components(small, 40, None, pair=pair)
