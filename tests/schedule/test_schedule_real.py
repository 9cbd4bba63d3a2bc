"""Real devices (threads): results equal the reference, failures re-run, run_divisible API, Gantt output."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import apportion
from apportion.errors import InputError
from apportion.platform import CPUDevice, FaultyDevice, ThrottledDevice
from apportion.schedule.policies import POLICIES


def _rows_times_b(block, b):
    return block @ b


def _two_devices():
    return [CPUDevice(1, name="fast"), ThrottledDevice(CPUDevice(1, name="slow-inner"), 3.0, name="slow")]


@pytest.mark.parametrize("policy", POLICIES)
def test_schedule_real_every_policy_matches_reference(policy):
    rng = np.random.default_rng(1)
    a, b = rng.random((120, 30)), rng.random((30, 10))
    schedule = apportion.run_divisible(a, _rows_times_b, _two_devices(), policy=policy, rounds=2, chunks=12,
                                       extra_args=(b,))
    np.testing.assert_allclose(schedule.result, a @ b)
    for record in schedule.rounds:
        counts = Counter(c for _, chunks in record.runs for c in chunks)
        assert sorted(counts) == list(range(12)) and set(counts.values()) == {1}
    assert schedule.oracle_makespan is None and not schedule.simulated


def test_schedule_real_injected_failure_reruns_chunks(tmp_path):
    rng = np.random.default_rng(2)
    a, b = rng.random((200, 20)), rng.random((20, 5))
    devices = [CPUDevice(1, name="ok"), FaultyDevice(CPUDevice(1, name="dies"), fail_on_call=2)]
    schedule = apportion.run_divisible(a, _rows_times_b, devices, policy="static-even", rounds=2, chunks=20,
                                       extra_args=(b,))
    np.testing.assert_allclose(schedule.result, a @ b)
    failures = schedule.to_dict()["failures"]
    assert failures and failures[0]["device"] == "dies"
    assert any(i.kind == "failed" for i in schedule.trace.intervals)
    assert schedule.rounds[1].chunks == [20, 0]
    path = schedule.trace.gantt(tmp_path / "g.png", title="failure")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_schedule_run_divisible_accepts_kernel_mapping_and_checks_input():
    data = np.arange(50.0).reshape(25, 2)
    schedule = apportion.run_divisible(data, {"cpu": lambda x: x * 2}, [CPUDevice(1)], rounds=1, chunks=5)
    np.testing.assert_array_equal(schedule.result, data * 2)
    with pytest.raises(InputError):
        apportion.run_divisible(np.float64(3.0), lambda x: x, [CPUDevice(1)])
    with pytest.raises(InputError):
        apportion.run_divisible(data, lambda x: x, [CPUDevice(1)], chunks=26)


def test_schedule_simulated_with_compute_gives_real_result():
    data = np.arange(40.0).reshape(20, 2)
    schedule = apportion.run_divisible(data, lambda x: x + 1, "seed000", policy="hass", rounds=3, chunks=10)
    np.testing.assert_array_equal(schedule.result, data + 1)
    assert schedule.simulated and schedule.oracle_makespan > 0


def test_schedule_real_rounds_record_dedicated_time():
    rng = np.random.default_rng(3)
    a, b = rng.random((96, 16)).astype(np.float32), rng.random((16, 8)).astype(np.float32)
    from apportion.apps.matmul import matmul_workload
    from apportion.schedule.api import run_schedule

    schedule = run_schedule(matmul_workload(a, b, 12), _two_devices(), "hass", 2)
    np.testing.assert_allclose(schedule.result, a @ b, rtol=1e-5)
    for record in schedule.rounds:
        used = [t for t, c in zip(record.dedicated_s, record.chunks) if c > 0]
        assert all(t is not None and t >= 0 for t in used)
        assert record.dedicated_makespan == max(used)
    # a device that cannot tell (a plain Python kernel on a 2-thread CPU device with a parallel variant) -> None
    two = apportion.run_divisible(a, {"cpu": _rows_times_b, "cpu_parallel": lambda x, y: x @ y}, [CPUDevice(2)],
                                  rounds=1, chunks=4, extra_args=(b,))
    assert two.rounds[0].dedicated_s == [None] and two.rounds[0].dedicated_makespan is None
    simulated = apportion.run_divisible(np.ones((20, 2)), lambda x: x, "seed000", rounds=1, chunks=10)
    assert simulated.rounds[0].dedicated_makespan is None
