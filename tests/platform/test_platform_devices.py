"""Devices: CPU, throttled, simulated models, fault injection, CUDA absence."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from apportion.errors import InputError, UnavailableError
from apportion.platform import (CPUDevice, DeviceFailure, DeviceModel, FaultyDevice, KernelSet, LinkCost,
                                SimulatedDevice, ThrottledDevice, Timing, Work)
from apportion.platform.device import Device


def _square(x):
    return x * x


def test_platform_cpu_device_runs_kernel_and_times_it():
    device = CPUDevice(threads=1, name="c")
    execution = device.run(_square, np.arange(5.0))
    np.testing.assert_array_equal(execution.result, np.arange(5.0) ** 2)
    assert execution.timing.compute_s >= 0 and execution.finished >= execution.started
    with pytest.raises(InputError):
        CPUDevice(threads=0)


def test_platform_kernel_set_selection_by_device():
    calls = []
    kernels = KernelSet(cpu=lambda x: calls.append("cpu") or x, cpu_parallel=lambda x: calls.append("par") or x)
    CPUDevice(1).run(kernels, 1)
    CPUDevice(2).run(kernels, 1)
    assert calls == ["cpu", "par"]
    assert KernelSet.coerce({"cpu": _square}).cpu is _square
    with pytest.raises(InputError):
        KernelSet.coerce({"gpu": _square})


def test_platform_throttled_device_reports_factor_times_inner():
    inner = CPUDevice(1)
    device = ThrottledDevice(inner, 3.0)
    execution = device.run(lambda x: x.sum(), np.ones(100_000))
    assert execution.result == 100_000
    # the reported compute is exactly 3x the inner measurement; wall time covers at least that
    assert execution.finished - execution.started >= execution.timing.compute_s * 0.99
    with pytest.raises(InputError):
        ThrottledDevice(inner, 0.5)


def test_platform_simulated_model_saturates_and_bundling_pays():
    model = DeviceModel(role="gpu", peak_flops=1e12, efficiency={"default": 0.5}, saturation_flops=1e9,
                        memory_bandwidth_Bps=1e11, launch_latency_s=1e-5, link=LinkCost(1e-5, 5e9))
    device = SimulatedDevice(model, name="g")
    small = device.estimate(Work(1e8))
    large = device.estimate(Work(1e10))
    # throughput grows with size toward the sustained rate
    assert 1e8 / small.compute_s < 1e10 / large.compute_s <= 0.5e12
    assert math.isclose(1e10 / large.compute_s, 0.5e12 * -math.expm1(-10), rel_tol=1e-12)
    # one bundled run of 10 chunks beats 10 separate runs (launch + latency paid once)
    one = device.estimate(Work(1e9, 1e6, 1e6, chunks=10)).total_s
    ten = 10 * device.estimate(Work(1e8, 1e5, 1e5)).total_s
    assert one < ten
    # memory-bandwidth floor
    assert device.estimate(Work(1.0, 1e9, 0.0)).compute_s == pytest.approx(1e9 / 1e11)


def test_platform_simulated_run_needs_work_and_computes_result():
    device = SimulatedDevice(DeviceModel(), name="s")
    execution = device.run(_square, np.arange(3.0), work=Work(10.0))
    np.testing.assert_array_equal(execution.result, [0.0, 1.0, 4.0])
    assert execution.timing.compute_s == pytest.approx(10.0 / 1e10)
    with pytest.raises(InputError):
        device.run(_square, np.arange(3.0))


def test_platform_model_validation():
    with pytest.raises(InputError):
        DeviceModel(role="fpga")
    with pytest.raises(InputError):
        DeviceModel(peak_flops=0)
    with pytest.raises(InputError):
        DeviceModel(efficiency={"default": 1.5})


def test_platform_faulty_device_dies_and_stays_dead():
    device = FaultyDevice(CPUDevice(1, name="c"), fail_on_call=2)
    assert device.run(_square, 3).result == 9
    with pytest.raises(DeviceFailure):
        device.run(_square, 3)
    with pytest.raises(DeviceFailure):
        device.run(_square, 3)


def test_platform_devices_run_concurrently_from_threads():
    # two devices in two threads both finish and give correct results (GIL-free kernels in real use)
    devices = [CPUDevice(1, name="a"), ThrottledDevice(CPUDevice(1, name="b0"), 2.0, name="b")]
    results = {}

    def work(device, value):
        results[device.name] = device.run(_square, np.full(1000, value)).result

    threads = [threading.Thread(target=work, args=(d, i + 1.0)) for i, d in enumerate(devices)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["a"][0] == 1.0 and results["b"][0] == 4.0


def test_platform_cuda_device_unavailable_without_gpu_or_simulator():
    from apportion.platform.cuda import CUDADevice, cuda_device_count

    if cuda_device_count() > 0:
        pytest.skip("a CUDA device (GPU or simulator) is present: covered by the gpu-marked tests")
    with pytest.raises(UnavailableError, match="no CUDA device.*NUMBA_ENABLE_CUDASIM"):
        CUDADevice(0)


def test_cli_platform_cuda_without_gpu_or_simulator_is_one_line_exit_2():
    import os
    import subprocess
    import sys

    from apportion.platform.cuda import nvidia_gpus_present

    if nvidia_gpus_present():
        pytest.skip("this machine has a GPU")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    done = subprocess.run([sys.executable, "-m", "apportion.cli.main", "schedule", "pbf", "--platform", "cuda"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "no CUDA device" in done.stderr and "NUMBA_ENABLE_CUDASIM" in done.stderr


@pytest.mark.gpu
def test_platform_cuda_device_refuses_an_index_it_does_not_have():
    from apportion.platform.cuda import CUDADevice, cuda_device_count

    with pytest.raises(UnavailableError, match="does not exist"):
        CUDADevice(cuda_device_count())


@pytest.mark.gpu_hardware
def test_platform_cuda_device_runs_cupy_kernel():
    import cupy

    from apportion.platform import CUDADevice

    execution = CUDADevice(0).run(KernelSet(cpu=_square, gpu=lambda x: cupy.square(x)), np.arange(4.0))
    np.testing.assert_array_equal(execution.result, np.arange(4.0) ** 2)


class _FakeInner(Device):
    """A device whose Timing is given, to check what ThrottledDevice does with it (no real time involved)."""

    def __init__(self, timing):
        super().__init__(name="fake")
        self.timing = timing

    def _execute(self, kernels, args):
        return 7, self.timing


@pytest.mark.parametrize("dedicated", [0.001, None])
def test_platform_throttled_sleeps_by_dedicated_time_else_wall(monkeypatch, dedicated):
    import apportion.platform.throttled as throttled

    slept = []
    monkeypatch.setattr(throttled.time, "sleep", lambda s: slept.append(s))
    # a pre-empted inner run: 0.5 s of wall clock, 1 ms of CPU; throttling must not multiply the pre-emption
    device = ThrottledDevice(_FakeInner(Timing(compute_s=0.5, dedicated_s=dedicated)), 3.0)
    execution = device.run(_square, 1.0)
    assert execution.result == 7
    basis = 0.5 if dedicated is None else dedicated
    assert slept == [pytest.approx(2.0 * basis)]
    assert execution.timing.dedicated_s == (None if dedicated is None else pytest.approx(3.0 * dedicated))
    # nested throttles compose on the dedicated time: 2 x 3 x 1 ms
    if dedicated is not None:
        slept.clear()
        outer = ThrottledDevice(ThrottledDevice(_FakeInner(Timing(compute_s=0.5, dedicated_s=dedicated)), 3.0), 2.0)
        assert outer.run(_square, 1.0).timing.dedicated_s == pytest.approx(6.0 * dedicated)
        assert slept[-1] == pytest.approx(3.0 * dedicated)


def test_platform_cpu_device_reports_dedicated_time_for_serial_kernels_only():
    serial = CPUDevice(1).run(_square, np.arange(1000.0)).timing
    assert serial.dedicated_s is not None and 0.0 <= serial.dedicated_s <= serial.compute_s
    parallel = CPUDevice(2).run({"cpu": _square, "cpu_parallel": lambda x: x * x}, np.arange(10.0)).timing
    assert parallel.dedicated_s is None
    assert Timing(compute_s=1.0).dedicated_s is None  # the field is optional (old callers unchanged)


def test_platform_auto_warns_when_gpus_are_left_out_for_want_of_cupy(monkeypatch):
    import apportion.platform.platform as platform_module

    monkeypatch.setattr(platform_module, "cuda_device_count", lambda: 0)
    monkeypatch.setattr(platform_module, "cupy_available", lambda: False)
    monkeypatch.setattr(platform_module, "nvidia_gpus_present", lambda: 2)
    with pytest.warns(UserWarning, match="2 NVIDIA GPU.*CuPy"):
        platform = platform_module.Platform.detect()
    assert [d.kind for d in platform] == ["cpu"]


def test_platform_auto_is_silent_without_gpus(monkeypatch, recwarn):
    import apportion.platform.platform as platform_module

    monkeypatch.setattr(platform_module, "cuda_device_count", lambda: 0)
    monkeypatch.setattr(platform_module, "cupy_available", lambda: False)
    monkeypatch.setattr(platform_module, "nvidia_gpus_present", lambda: 0)
    platform_module.Platform.detect()
    assert not [w for w in recwarn if "CuPy" in str(w.message)]
