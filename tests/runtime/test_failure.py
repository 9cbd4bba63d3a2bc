"""A device that dies mid-run (the platform's FaultyDevice) does not change BFS, SSSP or CC results; PageRank
restarts on the survivors; a run whose devices all die raises DeviceFailure."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.apps.bfs import bfs, bfs_reference
from apportion.apps.cc import cc_reference, connected_components
from apportion.apps.pagerank import pagerank, pagerank_reference
from apportion.apps.sssp import sssp, sssp_reference
from apportion.graph.generate import generate
from apportion.platform.cpu import CPUDevice
from apportion.platform.device import DeviceFailure
from apportion.platform.faulty import FaultyDevice
from apportion.runtime.endpoint import Endpoint
from apportion.runtime.router import Router

pytestmark = pytest.mark.timeout(300)

GRAPH = generate("delaunay", 1500, seed=9)


def devices_with_a_faulty_one(count: int, which: int, fail_on_call: int) -> list:
    devices = [CPUDevice(1, name=f"cpu{i}") for i in range(count)]
    devices[which] = FaultyDevice(CPUDevice(1), fail_on_call=fail_on_call, name=f"faulty{which}")
    return devices


@settings(max_examples=30, deadline=None)
@given(count=st.sampled_from([2, 4]), which=st.integers(0, 3), fail_on_call=st.integers(1, 40),
       routing=st.sampled_from(["ring", "direct"]), app=st.sampled_from(["bfs", "sssp", "cc"]),
       source=st.integers(0, GRAPH.n - 1))
def test_a_dead_device_does_not_change_monotone_results(count, which, fail_on_call, routing, app, source):
    devices = devices_with_a_faulty_one(count, which % count, fail_on_call)
    options = dict(devices=devices, routing=routing, placement="random", batch=16)
    if app == "bfs":
        result, expected = bfs(GRAPH, source, **options), bfs_reference(GRAPH, source)
    elif app == "sssp":
        result, expected = sssp(GRAPH, source, **options), sssp_reference(GRAPH, source)
    else:
        result, expected = connected_components(GRAPH, method="worklist", **options), cc_reference(GRAPH)
    np.testing.assert_array_equal(result.values, expected)
    if devices[which % count].dead:
        assert result.failures == [f"faulty{which % count}"] and result.recovery_s >= 0
        assert any(i.kind == "failed" for i in result.trace.intervals)


@pytest.mark.parametrize("fail_on_call", [1, 3, 10])
def test_pagerank_restarts_on_the_survivors(fail_on_call):
    devices = devices_with_a_faulty_one(3, 1, fail_on_call)
    result = pagerank(GRAPH, devices=devices, batch=32)
    assert result.failures == ["faulty1"]
    assert np.abs(result.values - pagerank_reference(GRAPH)).sum() <= 1e-3


def test_two_failures_in_a_row_leave_one_survivor():
    devices = [FaultyDevice(CPUDevice(1), 2, name="a"), FaultyDevice(CPUDevice(1), 5, name="b"), CPUDevice(1)]
    result = sssp(GRAPH, 0, devices=devices, batch=8, placement="ranges")
    np.testing.assert_array_equal(result.values, sssp_reference(GRAPH, 0))
    assert sorted(result.failures) == ["a", "b"]


def test_every_device_dead_is_a_device_failure():
    devices = [FaultyDevice(CPUDevice(1), 1), FaultyDevice(CPUDevice(1), 1)]
    with pytest.raises(DeviceFailure):
        bfs(GRAPH, 0, devices=devices)


def test_router_abort_drops_waiting_messages_and_ends_every_receive():
    devices = [Endpoint.device(0), Endpoint.device(1)]
    router = Router(devices, devices, "direct", packet_size=2, buffers=1)
    held = router.receive(0)
    sent = router.send(1, np.arange(6), dest=0)  # three packets, one buffer: two wait
    assert held.done() and not sent.done()
    router.abort()
    assert sent.done() and router.pending_messages == 0
    assert router.receive(0).result(timeout=1).empty and router.receive(1).result(timeout=1).empty
    assert router.send(0, np.arange(1), dest=1).done()  # dropped, not an error
