"""Real platforms warm every kernel on every device before the first timed run, and trained policies probe
their devices at the same time.

The devices here report a scripted time (a cold first call costs 100x a warm one), so what the policies learn
does not depend on the machine's clock.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from apportion.platform import CPUDevice, FaultyDevice, Platform
from apportion.platform.device import Device, Timing
from apportion.schedule.api import run_schedule
from apportion.schedule.policies.minmin import TRAINING_RUNS
from apportion.schedule.pool import RowWorkload


class ColdStartDevice(Device):
    """Runs the CPU kernel; reports `steady_s` per chunk, except its first call ever (a compilation) reports
    100 x that. `before_run(call_number)` is called before each call (1-based)."""

    def __init__(self, name: str, steady_s: float, before_run=None):
        super().__init__(name=name)
        self.steady_s = steady_s
        self.calls = 0
        self.before_run = before_run

    def _execute(self, kernels, args):
        self.calls += 1
        if self.before_run is not None:
            self.before_run(self.calls)
        result = self.select(kernels)(*args)
        per_chunk = self.steady_s * (100.0 if self.calls == 1 else 1.0)
        return result, Timing(compute_s=per_chunk * len(args[0]) / 10)  # 10 rows per chunk


def _workload(n_chunks: int = 24) -> RowWorkload:
    return RowWorkload(np.arange(10.0 * n_chunks).reshape(-1, 1), lambda block: block * 2, n_chunks)


def test_minmin_table_is_measured_on_warm_kernels():
    # without the warm-up both ETC entries were the cold 100x time and min-min split the chunks evenly
    devices = [ColdStartDevice("fast", 0.01), ColdStartDevice("slow", 0.03)]
    schedule = run_schedule(_workload(), Platform(devices), "minmin", 1)
    assert schedule.policy_state["etc_s"] == pytest.approx([0.01, 0.03])
    assert schedule.rounds[0].chunks == [18, 6]
    assert any(event.startswith("warm-up:") for event in schedule.trace.events)
    # one warm-up call, TRAINING_RUNS training runs, then one run per chunk
    assert all(device.calls == 1 + TRAINING_RUNS + chunks
               for device, chunks in zip(devices, schedule.rounds[0].chunks))


class ContendedOnceDevice(ColdStartDevice):
    """A warm device whose first training run (call 2) reports `factor` x its steady time, as a run that shared
    its core with the other devices' first runs does."""

    def __init__(self, name: str, steady_s: float, factor: float):
        super().__init__(name, steady_s)
        self.factor = factor

    def _execute(self, kernels, args):
        result, timing = super()._execute(kernels, args)
        return result, Timing(compute_s=timing.compute_s * (self.factor if self.calls == 2 else 1.0))


def test_minmin_table_is_not_set_by_one_contended_run():
    # the fast device's first training run reports 2x (on the 2-core machine, 3 device threads' first runs
    # overlap): one run gave ETC 0.02 : 0.03 and a 15/9 split; the median of three runs gives 0.01 : 0.03
    devices = [ContendedOnceDevice("fast", 0.01, 2.0), ColdStartDevice("slow", 0.03)]
    schedule = run_schedule(_workload(), Platform(devices), "minmin", 1)
    assert schedule.policy_state["etc_s"] == pytest.approx([0.01, 0.03])
    assert schedule.rounds[0].chunks == [18, 6]


def test_hass_profiles_warm_kernels():
    devices = [ColdStartDevice("fast", 0.01), ColdStartDevice("slow", 0.03)]
    schedule = run_schedule(_workload(), Platform(devices), "hass", 1)
    # profile speeds 1/0.01 and 1/0.03 chunks per second: ratio 3:1 (cold: 1:1)
    assert schedule.policy_state["ratios"] == pytest.approx([0.75, 0.25])


def test_qilin_lines_fit_warm_kernels():
    devices = [ColdStartDevice("fast", 0.01), ColdStartDevice("slow", 0.03)]
    schedule = run_schedule(_workload(40), Platform(devices), "qilin", 1)
    lines = schedule.policy_state["lines"]
    assert lines[0]["a_s"] == pytest.approx(0.0, abs=1e-9) and lines[1]["a_s"] == pytest.approx(0.0, abs=1e-9)
    assert lines[0]["b_s_per_chunk"] == pytest.approx(0.01) and lines[1]["b_s_per_chunk"] == pytest.approx(0.03)


@pytest.mark.parametrize("policy", ["minmin", "qilin"])
def test_training_probes_devices_at_the_same_time(policy):
    # the warm-up (call 1) and the first training run (call 2) of each device wait for the other device's:
    # a device probed alone breaks the barrier (timeout) and the schedule raises
    barrier = threading.Barrier(2, timeout=10)

    def meet(call_number):
        if call_number <= 2:
            barrier.wait()

    devices = [ColdStartDevice("a", 0.01, meet), ColdStartDevice("b", 0.02, meet)]
    schedule = run_schedule(_workload(), Platform(devices), policy, 1)
    assert not barrier.broken and schedule.training_s > 0


def test_warm_up_is_not_a_run_of_a_faulty_device():
    # dies on its 2nd run: chunk 0 of its share runs, the next run fails; the warm-up is not counted
    faulty = FaultyDevice(CPUDevice(1, name="dies-inner"), fail_on_call=2, name="dies")
    schedule = run_schedule(_workload(10), Platform([CPUDevice(1, name="ok"), faulty]), "static-even", 1)
    runs_of_faulty = [chunks for d, chunks in schedule.rounds[0].runs if d == 1]
    assert len(runs_of_faulty) == 1
    assert schedule.rounds[0].failures[0]["device"] == "dies"


def test_simulated_platforms_have_nothing_to_warm():
    schedule = run_schedule(RowWorkload(None, None, 8, n_rows=80), "seed000", "hass", 1, compute=False)
    assert schedule.warmup_s == 0.0
    assert not any(event.startswith("warm-up:") for event in schedule.trace.events)
