"""Multi-device SSSP equals scipy's Dijkstra with and without soft priority, on every device count, routing and
placement; weights are checked."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import apportion
from apportion.apps.sssp import arc_weights, sssp, sssp_reference
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.generate import generate
from apportion.platform.cpu import CPUDevice
from apportion.platform.throttled import ThrottledDevice
from apportion.runtime import distributed_worklist
from apportion.runtime.priority import AUTO_DELTA_MEAN_WEIGHTS

from _runtime_graphs import run_options, small_graphs

pytestmark = pytest.mark.timeout(300)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=small_graphs(weighted=True), options=run_options, data=st.data(),
       priority=st.sampled_from(["auto", "off", 1, 7.5]))
def test_sssp_equals_dijkstra(graph, options, data, priority):
    source = data.draw(st.integers(0, graph.n - 1))
    expected = sssp_reference(graph, source)  # integer weights: every distance is exact in float64
    result = sssp(graph, source, priority_delta=priority, **options)
    np.testing.assert_array_equal(result.values, expected)
    assert result.work_items >= int(np.count_nonzero(np.isfinite(expected)))
    if priority == "off":
        assert result.delta is None and result.priority_raises == 0


@settings(max_examples=25, deadline=None)
@given(graph=small_graphs(max_n=30), seed=st.integers(0, 2**31 - 1), devices=st.sampled_from([2, 4]),
       routing=st.sampled_from(["ring", "direct"]))
def test_sssp_with_real_weights(graph, seed, devices, routing):
    weights = np.random.default_rng(seed).uniform(0.0, 5.0, size=len(graph.indices))
    expected = sssp_reference(graph, 0, weights=weights)
    result = sssp(graph, 0, weights=weights, devices=devices, routing=routing, placement="random")
    np.testing.assert_allclose(result.values, expected, rtol=1e-12)
    assert np.array_equal(np.isinf(result.values), np.isinf(expected))


def test_soft_priority_raises_the_threshold_on_a_long_graph():
    graph = generate("delaunay", 2000, seed=4)
    weights = np.random.default_rng(1).integers(1, 100, size=len(graph.indices)).astype(float)
    result = sssp(graph, 0, weights=weights, devices=2, priority_delta=50.0)
    np.testing.assert_array_equal(result.values, sssp_reference(graph, 0, weights=weights))
    assert result.delta == 50.0
    # every distance under the final threshold was reached by raising it step by step
    assert result.priority_raises >= int(np.max(result.values[np.isfinite(result.values)]) // 50.0) // 2


def test_auto_delta_follows_the_weights():
    graph = Graph.from_edges([0, 1], [1, 2], [2, 4], n=3)
    result = sssp(graph, 0, devices=2)
    assert result.delta == pytest.approx(AUTO_DELTA_MEAN_WEIGHTS * 3.0)
    assert result.values.tolist() == [0.0, 2.0, 6.0]


@pytest.mark.parametrize("devices", [1, 2, 4])
def test_sssp_on_a_disconnected_graph_and_zero_weights(devices):
    graph = Graph.from_edges([0, 1, 3], [1, 2, 4], n=6)
    weights = np.zeros(len(graph.indices))
    result = sssp(graph, 0, weights=weights, devices=devices, placement="random")
    assert result.values.tolist() == [0.0, 0.0, 0.0, math.inf, math.inf, math.inf]


def test_unequal_devices_give_the_same_distances():
    graph = generate("delaunay", 2000, seed=5)
    devices = [CPUDevice(1), ThrottledDevice(CPUDevice(1), 3.0)]
    result = sssp(graph, 3, devices=devices, routing="direct")
    np.testing.assert_array_equal(result.values, sssp_reference(graph, 3))


def test_sssp_is_exported_lazily():
    assert apportion.sssp is sssp


def test_bad_weights_and_arguments_are_input_errors():
    graph = Graph.from_edges([0, 1], [1, 2], n=3)
    arcs = len(graph.indices)
    for weights in (np.full(arcs, -1.0), np.ones(arcs - 1), np.full(arcs, np.nan), ["a"] * arcs):
        with pytest.raises(InputError):
            sssp(graph, 0, weights=weights)
    with pytest.raises(InputError):
        sssp(graph, 3)
    with pytest.raises(InputError):
        sssp(graph, 0, priority_delta=0)
    with pytest.raises(InputError):
        sssp(graph, 0, priority_delta="fast")
    with pytest.raises(InputError):
        sssp(graph, 0, priority_delta=True)
    with pytest.raises(InputError, match="real numbers"):
        sssp(graph, 0, weights=np.full(arcs, 2 + 5j))
    with pytest.raises(InputError):
        sssp(graph, 0, weights=[[1.0]] + [[1.0, 2.0]] * (arcs - 1))
    assert arc_weights(graph).tolist() == [1.0] * arcs


@pytest.mark.parametrize("routing", ["ring", "direct"])
def test_delta_of_the_least_weight_processes_every_vertex_once(routing):
    # integer weights >= 1 and Δ = 1: a vertex is processed only once its distance is final (Dijkstra's
    # buckets); a threshold raised too early would show as a vertex processed twice
    graph = generate("delaunay", 1500, seed=7)
    weights = np.random.default_rng(2).integers(1, 6, size=len(graph.indices)).astype(float)
    result = sssp(graph, 0, weights=weights, devices=4, placement="random", routing=routing, priority_delta=1,
                  batch=5)
    np.testing.assert_array_equal(result.values, sssp_reference(graph, 0, weights=weights))
    assert result.work_items == graph.n


@pytest.mark.parametrize("priority_delta, run_ahead", [("auto", True), (40.0, False)])
def test_only_the_automatic_delta_lets_a_device_run_ahead(monkeypatch, priority_delta, run_ahead):
    """The automatic Δ lets an idle device raise its own threshold (fewer barriers); a given Δ is strict."""
    made = []

    class Recording(distributed_worklist.SoftPriority):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(distributed_worklist, "SoftPriority", Recording)
    graph = generate("road", 3000, seed=3)
    slow = ThrottledDevice(CPUDevice(1, name="cpu"), 3.0, name="cpu/x3")
    result = sssp(graph, 0, devices=[CPUDevice(1, name="cpu"), slow], priority_delta=priority_delta, batch=16)
    np.testing.assert_array_equal(result.values, sssp_reference(graph, 0))
    assert [p.run_ahead for p in made] == [run_ahead]
    assert result.priority_run_aheads == made[0].run_aheads and (run_ahead or made[0].run_aheads == 0)
