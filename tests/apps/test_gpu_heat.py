"""The numba-cuda heat step equals the CPU kernel bit for bit, and a stencil platform with a CUDA device runs
the heat transfer to the single-device reference (under `NUMBA_ENABLE_CUDASIM=1`: small grids)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.apps._heat_kernels import heat_step
from apportion.apps.heat import HEAT_KERNELS, heat_reference, initial_condition, run_heat
from apportion.platform.cpu import CPUDevice
from apportion.platform.cuda import CUDADevice

pytestmark = pytest.mark.gpu


@settings(max_examples=6)
@given(h=st.integers(1, 20), w=st.integers(1, 20), r=st.floats(0.01, 0.25), seed=st.integers(0, 99))
def test_gpu_heat_step_equals_cpu_kernel(h, w, r, seed):
    current = np.random.default_rng(seed).random((h + 2, w + 2))
    out = CUDADevice(0).run(HEAT_KERNELS, current, np.empty((h, w)), r).result
    np.testing.assert_array_equal(out, heat_step(current, np.empty((h, w)), r))


def test_gpu_heat_on_a_cpu_and_a_cuda_device_equals_the_reference():
    result = run_heat(18, 22, 3, [CPUDevice(1, name="cpu"), CUDADevice(0)], model="cpm")
    np.testing.assert_array_equal(result.values, heat_reference(initial_condition(18, 22, 0), 3))
    assert result.trace.compute_s.shape == (3, 2) and (result.trace.compute_s[:, 1] > 0).all()


def test_gpu_heat_benchmark_case_runs_on_a_cuda_device():
    from apportion.apps.heat import benchmark_case

    kernels, args, work = benchmark_case(300, 20)
    want = kernels.cpu(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    np.testing.assert_array_equal(CUDADevice(0).run(kernels, *args, work=work).result, want)


def test_gpu_perfmodel_build_measures_a_cuda_device(tmp_path):
    import json
    import subprocess
    import sys

    table = tmp_path / "cuda.json"
    done = subprocess.run([sys.executable, "-m", "apportion.cli.main", "perfmodel", "build", "--device", "0",
                           "--platform", "cuda", "-o", str(table), "--sizes", "64,256", "--comms", "0,16"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(table.read_text())["meta"]["device"] == "cuda0"
