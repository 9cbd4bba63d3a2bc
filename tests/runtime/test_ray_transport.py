"""The Ray transport: the same results as the references on a local 2-CPU cluster (one actor per device)."""

from __future__ import annotations

import numpy as np
import pytest

from apportion.apps.bfs import bfs, bfs_reference
from apportion.apps.cc import cc_reference, connected_components
from apportion.apps.pagerank import pagerank, pagerank_reference
from apportion.apps.sssp import sssp, sssp_reference
from apportion.errors import InputError
from apportion.graph.generate import generate
from apportion.platform.cpu import CPUDevice
from apportion.platform.throttled import ThrottledDevice

pytestmark = [pytest.mark.ray, pytest.mark.timeout(600)]

GRAPH = generate("delaunay", 1200, seed=4)


def test_bfs_and_sssp_on_ray_equal_the_references(local_ray):
    levels = bfs(GRAPH, 5, devices=2, routing="ring", transport="ray", batch=64)
    np.testing.assert_array_equal(levels.values, bfs_reference(GRAPH, 5))
    assert levels.messages > 2 and levels.transport == "ray"
    devices = [CPUDevice(1), ThrottledDevice(CPUDevice(1), 2.0)]
    distances = sssp(GRAPH, 5, devices=devices, routing="direct", placement="random", transport="ray", batch=64)
    np.testing.assert_array_equal(distances.values, sssp_reference(GRAPH, 5))
    assert distances.priority_raises > 0


def test_pagerank_and_worklist_cc_on_ray(local_ray):
    ranks = pagerank(GRAPH, devices=3, routing="direct", transport="ray")
    assert np.abs(ranks.values - pagerank_reference(GRAPH)).sum() <= 1e-3
    labels = connected_components(GRAPH, devices=2, method="worklist", transport="ray", placement="ranges")
    np.testing.assert_array_equal(labels.values, cc_reference(GRAPH))


def test_topology_cc_has_no_ray_transport_yet():
    with pytest.raises(InputError):
        connected_components(GRAPH, transport="ray")
