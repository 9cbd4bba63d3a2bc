"""Heat runtime: multi-device result equals the single-device NumPy reference; trace shape; simulated platform."""

from __future__ import annotations

import numpy as np
import pytest

from apportion.apps.heat import heat_steps_numpy, initial_condition, run_heat
from apportion.perfmodel import CommunicationSpeed
from apportion.platform import CPUDevice, Platform, ThrottledDevice


def devices(k):
    return [CPUDevice(name=f"cpu{i}") for i in range(k)]


@pytest.mark.parametrize("method, k", [("nphp", 3), ("php", 4), ("points", 3), ("rows", 2), ("best", 5)])
def test_heat_matches_numpy_reference(method, k):
    rows, cols, steps = 23, 31, 7
    result = run_heat(rows, cols, steps, devices(k), model="cpm", method=method, boundary=0.5, seed=3)
    expected = heat_steps_numpy(initial_condition(rows, cols, 3), 0.5, 0.2, steps)
    np.testing.assert_allclose(result.values, expected, rtol=1e-12, atol=1e-12)
    assert result.trace.compute_s.shape == (steps, k) and result.trace.communication_s.shape == (steps, k)
    assert result.trace.halo_items.sum() == result.plan.rectangles.metrics.data_items


def test_heat_with_fpmc_tables_and_throttled_device():
    sizes, comms = np.array([10.0, 1000.0]), np.array([0.0, 100.0])
    fast = CommunicationSpeed(sizes, comms, [[3.0, 2.5], [3.0, 2.9]])
    slow = CommunicationSpeed(sizes, comms, [[1.0, 0.9], [1.0, 0.99]])
    devs = [CPUDevice(name="fast"), ThrottledDevice(CPUDevice(name="s"), 1.5, name="slow")]
    result = run_heat(20, 20, 3, devs, model="fpmc", tables=[fast, slow])
    np.testing.assert_allclose(result.values, heat_steps_numpy(initial_condition(20, 20), 0.0, 0.2, 3), atol=1e-12)
    areas = result.plan.rectangles.areas()
    assert areas[0] > 2 * areas[1]


def test_heat_on_simulated_platform_values_and_model_times():
    platform = Platform.load("seed002")
    result = run_heat(24, 24, 4, platform, model="cpm")
    np.testing.assert_allclose(result.values, heat_steps_numpy(initial_condition(24, 24), 0.0, 0.2, 4), atol=1e-12)
    assert result.trace.simulated and result.trace.makespan_s() > 0
    only_times = run_heat(24, 24, 4, platform, model="cpm", compute_values=False)
    assert only_times.values is None
    assert only_times.trace.makespan_s() == pytest.approx(result.trace.makespan_s())


def test_heat_bad_input():
    from apportion.errors import InputError

    with pytest.raises(InputError):
        run_heat(10, 10, 1, devices(2), r=0.3)
    with pytest.raises(InputError):
        run_heat(10, 10, 1, devices(2), model="xyz")


def test_stencil_devices_adapter_makes_heat_time_grow_with_work():
    from apportion.apps.heat import HEAT_FLOPS_PER_POINT
    from apportion.apps.stencil_simulated import stencil_devices
    from apportion.errors import InputError
    from apportion.platform import Work

    platform = Platform.load("seed002")
    cpu = CPUDevice(name="host")
    adapted = stencil_devices([*platform.devices, cpu], HEAT_FLOPS_PER_POINT, resident_points=1 << 15)
    assert adapted[-1] is cpu
    for original, new in zip(platform.devices, adapted):
        assert new.name == original.name and new.link == original.link
        assert new.model.saturation_flops == (1 << 15) * HEAT_FLOPS_PER_POINT
        assert new.model.sustained_flops("heat") == original.model.sustained_flops("heat")

        def step_time(device, points):
            return device.estimate(Work(flops=HEAT_FLOPS_PER_POINT * points, workload="heat")).compute_s

        # as shipped, 4× the points costs far less than 4× the time (below saturation); adapted, nearly 4×
        assert step_time(original, 4e6) / step_time(original, 1e6) < 2.0
        assert step_time(new, 4e6) / step_time(new, 1e6) == pytest.approx(4.0, rel=0.01)
    kept = stencil_devices(platform.devices, HEAT_FLOPS_PER_POINT, resident_points={"c2050-node0": 100})
    assert kept[0].model.saturation_flops == 100 * HEAT_FLOPS_PER_POINT and kept[1] is platform.devices[1]
    with pytest.raises(InputError):
        stencil_devices(platform.devices, HEAT_FLOPS_PER_POINT, resident_points=0)


def test_run_heat_uses_the_stencil_scale_gpu_models_by_default():
    """run_heat (and so `apportion stencil heat`) applies the stencil-scale adapter itself: as shipped, the
    GPUs' time per step hardly depends on the share and FPM's split is far from the sustained 2.5 : 1."""
    platform = Platform.load("seed002")
    adapted = run_heat(1024, 1024, 1, platform, model="fpm", compute_values=False).plan.rectangles.areas()
    shipped = run_heat(1024, 1024, 1, platform, model="fpm", compute_values=False,
                       resident_points=None).plan.rectangles.areas()
    ratio = lambda areas: areas[0] / areas[1]  # c2050-node0 : gtx650-node0
    assert abs(ratio(adapted) - 2.5) < 0.5
    assert abs(ratio(shipped) - 2.5) > 0.5
