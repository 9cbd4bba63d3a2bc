"""CUDADevice on a CUDA device, real or simulated (`NUMBA_ENABLE_CUDASIM=1`, the second run of `make test`):
copies in, a launch on the device's stream, copies out, the timing split, and discovery of every CUDA device."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from apportion.errors import UnavailableError
from apportion.platform.cuda import CUDADevice, CudaKernel, cuda_device_count, simulator_enabled
from apportion.platform.device import KernelSet
from apportion.platform.platform import Platform, resolve_platform

pytestmark = pytest.mark.gpu

# a launcher for the tests: out[i] = 2 * a[i] + b (a numba-cuda kernel in tests/platform/_cuda_double.py)
DOUBLE = CudaKernel("_cuda_double", "double_plus")


def _double_cpu(a, b):
    return 2 * a + b


@pytest.fixture(autouse=True)
def _importable_launcher(monkeypatch):
    import pathlib

    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).parent))


def test_cuda_device_runs_a_numba_cuda_kernel_and_copies_back():
    device = CUDADevice(0)
    a = np.arange(300, dtype=np.int64)
    execution = device.run(KernelSet(cpu=_double_cpu, gpu=DOUBLE), a, 5)
    assert isinstance(execution.result, np.ndarray)  # copied back to the host, not a device array
    np.testing.assert_array_equal(execution.result, 2 * a + 5)
    timing = execution.timing
    assert timing.compute_s > 0 and timing.transfer_s >= timing.before_compute_s >= 0
    assert execution.started <= execution.finished


def test_cuda_device_leaves_the_host_arguments_alone():
    a = np.arange(10, dtype=np.int64)
    CUDADevice(0).run(KernelSet(cpu=_double_cpu, gpu=DOUBLE), a, 1)
    np.testing.assert_array_equal(a, np.arange(10))


def test_cuda_device_refuses_a_kernel_without_gpu_implementation():
    with pytest.raises(UnavailableError, match="no GPU implementation"):
        CUDADevice(0).run(_double_cpu, np.arange(3), 1)


def test_cuda_device_under_the_simulator_refuses_cupy_library_calls_in_one_line():
    if not simulator_enabled():
        pytest.skip("a real GPU runs CuPy calls")
    with pytest.raises(UnavailableError, match="simulator cannot run CuPy"):
        CUDADevice(0).run(KernelSet(cpu=_double_cpu, gpu=_double_cpu), np.arange(3), 1)


def test_platform_detect_finds_every_cuda_device():
    platform = Platform.detect(cpu_threads=1)
    gpus = [d for d in platform if d.kind == "gpu"]
    assert len(gpus) == cuda_device_count() >= 1
    assert [d.index for d in gpus] == list(range(len(gpus)))
    assert {d.describe()["simulator"] for d in gpus} == {simulator_enabled()}


def test_resolve_platform_cuda_is_every_cuda_device_and_nothing_else():
    platform = resolve_platform("cuda")
    assert [d.kind for d in platform] == ["gpu"] * cuda_device_count()
    assert platform.name == "cuda" and not platform.simulated


def test_cli_schedule_runs_pbf_on_platform_cuda():
    done = subprocess.run([sys.executable, "-m", "apportion.cli.main", "schedule", "pbf", "--platform", "cuda",
                           "--rounds", "1", "--size", "0.0005", "--chunks", "3", "--policy", "dynamic", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["devices"] == [f"cuda{i}" for i in range(cuda_device_count())]
    assert out["result_matches_reference"] is True
