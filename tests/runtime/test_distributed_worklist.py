"""The distributed worklist's device checks and error propagation (the apps' tests cover the results)."""

from __future__ import annotations

import pytest

from apportion.apps.bfs import bfs
from apportion.errors import InputError
from apportion.graph.generate import generate
from apportion.platform.cpu import CPUDevice
from apportion.runtime.distributed_worklist import resolve_devices

pytestmark = pytest.mark.timeout(120)


class BrokenDevice(CPUDevice):
    """A device whose third run hits a bug (not a device failure)."""

    def __init__(self):
        super().__init__(1, name="broken")
        self.calls = 0

    def _execute(self, kernels, args):
        self.calls += 1
        if self.calls == 3:
            raise ZeroDivisionError("a bug in a kernel")
        return super()._execute(kernels, args)


def test_a_bug_in_a_device_reaches_the_caller_and_stops_every_thread():
    graph = generate("delaunay", 800, seed=1)
    with pytest.raises(ZeroDivisionError):
        bfs(graph, 0, devices=[CPUDevice(1), BrokenDevice()], placement="random", batch=4)


def test_devices_from_a_count_a_list_or_a_platform():
    assert [d.name for d in resolve_devices(3)] == ["cpu0", "cpu1", "cpu2"]
    mine = [CPUDevice(1), CPUDevice(1)]
    assert resolve_devices(mine) == mine
    with pytest.raises(InputError, match="simulated"):
        resolve_devices("seed000")
    for bad in (0, True, [], ["cpu"], 2.5):
        with pytest.raises(InputError):
            resolve_devices(bad)
