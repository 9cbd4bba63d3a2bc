"""The Ray transport: the same results as the references on a local 2-CPU cluster (one actor per device)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from apportion.apps.bfs import bfs, bfs_reference
from apportion.apps.cc import cc_reference, connected_components
from apportion.apps.pagerank import pagerank, pagerank_reference
from apportion.apps.sssp import sssp, sssp_reference
from apportion.graph.generate import generate
from apportion.platform.cpu import CPUDevice
from apportion.platform.faulty import FaultyDevice
from apportion.platform.throttled import ThrottledDevice

from _dying_device import DyingDevice

pytestmark = [pytest.mark.ray, pytest.mark.timeout(600)]

GRAPH = generate("delaunay", 1200, seed=4)


def test_bfs_and_sssp_on_ray_equal_the_references(local_ray):
    levels = bfs(GRAPH, 5, devices=2, routing="ring", transport="ray", batch=64)
    np.testing.assert_array_equal(levels.values, bfs_reference(GRAPH, 5))
    assert levels.messages > 2 and levels.transport == "ray"
    devices = [CPUDevice(1), ThrottledDevice(CPUDevice(1), 2.0)]
    distances = sssp(GRAPH, 5, devices=devices, routing="direct", placement="random", transport="ray", batch=64)
    np.testing.assert_array_equal(distances.values, sssp_reference(GRAPH, 5))
    assert distances.priority_raises + distances.priority_run_aheads > 0


def test_pagerank_and_worklist_cc_on_ray(local_ray):
    ranks = pagerank(GRAPH, devices=3, routing="direct", transport="ray")
    assert np.abs(ranks.values - pagerank_reference(GRAPH)).sum() <= 1e-3
    labels = connected_components(GRAPH, devices=2, method="worklist", transport="ray", placement="ranges")
    np.testing.assert_array_equal(labels.values, cc_reference(GRAPH))


def test_a_device_dying_in_an_actor_and_a_killed_actor_do_not_change_results(local_ray):
    # workers cannot import test modules: the dying device's class travels by value
    local_ray.cloudpickle.register_pickle_by_value(sys.modules[DyingDevice.__module__])
    devices = [CPUDevice(1, name="a"), FaultyDevice(CPUDevice(1), 3, name="faulty"), DyingDevice(4, name="dying")]
    result = sssp(GRAPH, 0, devices=devices, transport="ray", placement="random", batch=16)
    np.testing.assert_array_equal(result.values, sssp_reference(GRAPH, 0))
    assert sorted(result.failures) == ["dying", "faulty"]


def test_actors_are_reused_across_queries_and_a_failed_query_pools_none(local_ray):
    from apportion.runtime.transports import ray as transport

    transport.release_actors()
    first = bfs(GRAPH, 0, devices=2, transport="ray")
    pooled = [actor._actor_id for actor in transport.pooled_actors(local_ray)]
    assert len(pooled) == 2
    second = sssp(GRAPH, 0, devices=2, transport="ray")  # another app, same actors
    assert [actor._actor_id for actor in transport.pooled_actors(local_ray)] == pooled
    np.testing.assert_array_equal(first.values, bfs_reference(GRAPH, 0))
    np.testing.assert_array_equal(second.values, sssp_reference(GRAPH, 0))
    devices = [CPUDevice(1, name="a"), FaultyDevice(CPUDevice(1), 2, name="faulty")]
    third = bfs(GRAPH, 0, devices=devices, transport="ray", batch=16)
    np.testing.assert_array_equal(third.values, bfs_reference(GRAPH, 0))
    assert third.failures == ["faulty"]
    # the failed attempt's two actors were killed, never pooled; the recovery's new one went back to the pool
    now = [actor._actor_id for actor in transport.pooled_actors(local_ray)]
    assert len(now) == 1 and now[0] not in pooled
    transport.release_actors()
    assert not transport._POOL
