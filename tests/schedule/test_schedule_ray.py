"""The same schedule over Ray actors (local cluster, 2 CPUs); a killed actor's chunks are re-run."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.ray


def test_schedule_ray_hass_and_killed_actor(local_ray):
    from apportion.apps.matmul import matmul_workload
    from apportion.platform.ray import RayDevice
    from apportion.schedule.api import run_schedule

    class KilledOnSecondRun(RayDevice):
        """A real actor that is really killed (ray.kill) just before its second run."""

        calls = 0

        def _execute(self, kernels, args):
            self.calls += 1
            if self.calls == 2:
                self.kill()
            return super()._execute(kernels, args)

    rng = np.random.default_rng(3)
    a, b = rng.random((160, 40)), rng.random((40, 8))
    devices = [RayDevice(name="r0"), KilledOnSecondRun(name="r1")]
    try:
        # kernels must be importable on the workers: the shipped matmul workload's are
        schedule = run_schedule(matmul_workload(a, b, 16), devices, "static-even", 2)
        np.testing.assert_allclose(schedule.result, a @ b)
        failures = schedule.to_dict()["failures"]
        assert [f["device"] for f in failures] == ["r1"]
        assert schedule.rounds[1].chunks == [16, 0]
        assert any("r1" in e for e in schedule.trace.events)
        # a healthy pair of actors runs HASS to the right result
        healthy = [devices[0], RayDevice(name="r2")]
        hass = run_schedule(matmul_workload(a, b, 16), healthy, "hass", 3)
        np.testing.assert_allclose(hass.result, a @ b)
        assert sum(hass.rounds[-1].chunks) == 16
    finally:
        for d in devices:
            d.close()
