"""The distributed stencil runtime: Ray actors hold their rectangles, exchange halos every step; the result
equals the single-device NumPy reference (local Ray cluster, 2 CPUs)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.ray


def test_heat_on_ray_actors_matches_numpy_reference(local_ray):
    from apportion.apps.heat import heat_steps_numpy, initial_condition, run_heat
    from apportion.platform import CPUDevice, ThrottledDevice

    rows, cols, steps = 19, 26, 5
    devices = [CPUDevice(name="a"), ThrottledDevice(CPUDevice(name="b"), 2.0, name="b2")]
    # "points" gives processors several pieces: halos inside one actor and between actors are both exercised
    result = run_heat(rows, cols, steps, devices, model="cpm", method="points", boundary=0.25, seed=4,
                      cluster="local")
    assert result.plan.rectangles.pieces > len(devices)
    expected = heat_steps_numpy(initial_condition(rows, cols, 4), 0.25, 0.2, steps)
    np.testing.assert_allclose(result.values, expected, rtol=1e-12, atol=1e-12)
    trace = result.trace
    assert trace.compute_s.shape == (steps, 2) and (trace.compute_s > 0).all()
    assert trace.halo_items.sum() == result.plan.rectangles.metrics.data_items


def test_ray_runtime_rejects_simulated_devices(local_ray):
    from apportion.apps.heat import run_heat
    from apportion.errors import InputError
    from apportion.platform import Platform

    with pytest.raises(InputError, match="real devices"):
        run_heat(12, 12, 1, Platform.load("seed002"), model="cpm", cluster="local")
