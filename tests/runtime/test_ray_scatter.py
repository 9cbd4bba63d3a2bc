"""Scatter by availability on Ray actors (transports/ray_scatter.py): PBF and topology-driven CC equal their
references and their threads results, the faster device takes more segments, dead devices (inside an actor, or an
actor whose process exits) leave the result exact, every device dead is a DeviceFailure, actors are pooled."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from apportion.apps.cc import cc_reference, connected_components
from apportion.apps.pbf import pbf_reference
from apportion.apps.pbf_runtime import pbf
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.generate import generate
from apportion.platform.cpu import CPUDevice
from apportion.platform.device import DeviceFailure
from apportion.platform.faulty import FaultyDevice
from apportion.platform.throttled import ThrottledDevice
from apportion.runtime.scatter import scatter

from _dying_device import DyingDevice

pytestmark = [pytest.mark.ray, pytest.mark.timeout(600)]


def _two_pieces() -> Graph:
    """A delaunay graph cut into two halves (several components), plus isolated vertices."""
    u, v, _ = generate("delaunay", 1500, seed=5).edges()
    keep = (u < 700) == (v < 700)
    return Graph.from_edges(u[keep], v[keep], n=1510)


GRAPH = _two_pieces()
VALUES = np.random.default_rng(3).integers(0, 1000, size=30_000)


@pytest.fixture
def pickled_here(local_ray):
    """Ray's workers cannot import this test module: its classes and functions travel by value."""
    local_ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    local_ray.cloudpickle.register_pickle_by_value(sys.modules[DyingDevice.__module__])
    return local_ray


@pytest.mark.parametrize("devices", [1, 2])
def test_pbf_and_topology_cc_on_ray_equal_the_references_and_threads(local_ray, devices):
    on_ray = pbf(VALUES, 100, 300, devices=devices, transport="ray", segment=2000)
    np.testing.assert_array_equal(on_ray.values, pbf_reference(VALUES, 100, 300))
    np.testing.assert_array_equal(on_ray.values, pbf(VALUES, 100, 300, devices=devices, segment=2000).values)
    assert on_ray.transport == "ray" and on_ray.work_items == VALUES.size
    assert sum(on_ray.segments) == on_ray.messages == 15 and len(on_ray.segments) == devices
    floats = np.random.default_rng(4).standard_normal(5000).astype(np.float32)
    np.testing.assert_array_equal(pbf(floats, -0.5, 0.25, devices=devices, transport="ray", segment=999).values,
                                  pbf_reference(floats, -0.5, 0.25))
    labels = connected_components(GRAPH, devices=devices, transport="ray", segment=300)
    np.testing.assert_array_equal(labels.values, cc_reference(GRAPH))
    assert labels.transport == "ray" and labels.work_items == GRAPH.m
    assert labels.messages == -(-GRAPH.m // 300) == sum(labels.segments)
    assert {i.kind for i in labels.trace.intervals} <= {"compute", "idle"}


def test_empty_input_on_ray(local_ray):
    assert pbf(np.array([], dtype=np.int16), 0, 1, transport="ray").values.dtype == np.int16
    lonely = Graph.from_edges([], [], n=4)
    assert connected_components(lonely, transport="ray").values.tolist() == [0, 1, 2, 3]


#: sorts per segment in `sort_segment`: about 13 ms of one thread here (a sort of 65,536 floats takes 0.2-0.5 ms),
#: so that the throttle's 3 x outweighs a segment's round trip through Ray: 18 / 6 and 17 / 7 segments in two runs.
#: With three sorts (1.5 ms) a CI run on 2 shared cores split them 12 / 12. The throttle stretches a run by its
#: CPU time, so a machine loaded far beyond its cores (two busy loops beside Ray on 2 cores: 400 ms a segment on
#: both devices) still hides it.
SORTS = 60


def sort_segment(ids, values):
    """A CPU-bound kernel (sorting the segment SORTS times): returns its ids."""
    for _ in range(SORTS):
        np.sort(values)
    return ids


def test_a_device_throttled_three_times_gets_fewer_segments(pickled_here):
    """A kernel of tens of milliseconds per segment, so that compute, which the throttle slows, outweighs each
    call's round trip through Ray, which it does not (PBF's filter takes well under a millisecond per segment)."""
    count, size = 24 * 65536, 65536
    ids, values = np.arange(count), np.random.default_rng(5).random(count)
    messages = [(ids[s:s + size], values[s:s + size]) for s in range(0, count, size)]
    seen = np.zeros(count, dtype=np.int64)

    def collect(device, arrays, result):
        np.testing.assert_array_equal(result, arrays[0])
        seen[result] += 1

    devices = [CPUDevice(1, name="fast"), ThrottledDevice(CPUDevice(1), 3.0, name="slow")]
    run = scatter(messages, devices, sort_segment, [(), ()], collect=collect, transport="ray")
    assert seen.tolist() == [1] * count
    fast, slow = run.segments
    assert fast + slow == 24 and fast > slow, run.segments


def test_a_device_dying_in_an_actor_and_an_actor_exiting_leave_the_results_exact(pickled_here):
    def devices():  # the healthy device is slow, so that the doomed ones take segments until they die
        return [ThrottledDevice(CPUDevice(1), 3.0, name="healthy"), FaultyDevice(CPUDevice(1), 3, name="faulty"),
                DyingDevice(4, name="dying")]

    kept = pbf(VALUES, 100, 300, devices=devices(), transport="ray", segment=500)
    np.testing.assert_array_equal(kept.values, pbf_reference(VALUES, 100, 300))
    assert sorted(kept.failures) == ["dying", "faulty"]
    # the faulty device finished two segments before dying on its third: both were redone
    assert sum(kept.segments) >= 60 + 2 and kept.work_items > VALUES.size
    assert sum(i.kind == "failed" for i in kept.trace.intervals) == 2
    labels = connected_components(GRAPH, devices=devices(), transport="ray", segment=60)
    np.testing.assert_array_equal(labels.values, cc_reference(GRAPH))
    assert sorted(labels.failures) == ["dying", "faulty"]


def test_every_device_dead_is_a_device_failure_and_a_bug_keeps_its_type(pickled_here):
    with pytest.raises(DeviceFailure):
        pbf(np.arange(100), 0, 50, devices=[FaultyDevice(CPUDevice(1), 1)], transport="ray", segment=10)
    with pytest.raises(DeviceFailure):
        connected_components(GRAPH, devices=[FaultyDevice(CPUDevice(1), 2), DyingDevice(1, name="dying")],
                             transport="ray", segment=100)

    def broken(values):
        raise ZeroDivisionError("bug")

    with pytest.raises(ZeroDivisionError):
        scatter([(np.arange(5),)], [CPUDevice(1)], broken, [()], transport="ray")
    with pytest.raises(InputError):
        scatter([(np.arange(5),)], [CPUDevice(1)], broken, [()], transport="mpi")


def test_actors_are_pooled_and_dead_ones_are_not(local_ray):
    from apportion.runtime.transports import ray as transport
    from apportion.runtime.transports.ray_scatter import ScatterActor

    transport.release_actors()
    pbf(VALUES, 0, 10, devices=2, transport="ray")
    pooled = [actor._actor_id for actor in transport.pooled_actors(local_ray, ScatterActor)]
    assert len(pooled) == 2 and transport.pooled_actors(local_ray) == []  # the worklist apps' pool is apart
    connected_components(GRAPH, devices=2, transport="ray")  # another app, the same actors
    assert [actor._actor_id for actor in transport.pooled_actors(local_ray, ScatterActor)] == pooled
    devices = [CPUDevice(1, name="a"), FaultyDevice(CPUDevice(1), 2, name="faulty")]
    result = pbf(VALUES, 100, 300, devices=devices, transport="ray", segment=500)
    np.testing.assert_array_equal(result.values, pbf_reference(VALUES, 100, 300))
    now = [actor._actor_id for actor in transport.pooled_actors(local_ray, ScatterActor)]
    assert len(now) == 1 and now[0] in pooled  # the survivor went back, the faulty device's actor was killed
    transport.release_actors()
    assert transport.pooled_actors(local_ray, ScatterActor) == []


@pytest.mark.gpu
def test_pbf_with_a_cuda_device_on_ray_and_topology_cc_refuses_one(local_ray):
    from apportion.platform.cuda import CUDADevice

    values = np.random.default_rng(6).integers(0, 100, 3000)
    result = pbf(values, 10, 50, devices=[CPUDevice(1), CUDADevice(0)], transport="ray", segment=500)
    np.testing.assert_array_equal(result.values, pbf_reference(values, 10, 50))
    with pytest.raises(InputError, match="CPU devices only"):
        connected_components(GRAPH, devices=[CUDADevice(0)], transport="ray")
