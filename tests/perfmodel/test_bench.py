"""Table building: robust statistics against a device with known speed and injected outliers; clocks."""

from __future__ import annotations

import numpy as np
import pytest

from apportion.errors import InputError
from apportion.perfmodel.bench import BenchOptions, bench_options, build_table, build_tables, workload_grid
from apportion.perfmodel.clock import cpu_clock_applies, throttle_factor, timed_run
from apportion.platform import CPUDevice, Device, Platform, ThrottledDevice, Timing


class ScriptedDevice(Device):
    """Reports compute time w / speed for a kernel over w points; every `spike_every`-th run is `spike`× slower
    (a pre-emption). No wall clock involved."""

    def __init__(self, speed: float, spike_every: int = 0, spike: float = 10.0, name: str = "scripted"):
        super().__init__(name=name)
        self.speed, self.spike_every, self.spike, self.calls = speed, spike_every, spike, 0

    def _execute(self, kernels, args):
        self.calls += 1
        w, c = args[0], args[1]
        seconds = w / self.speed + 1e-9 * c
        if self.spike_every and self.calls % self.spike_every == 0:
            seconds *= self.spike
        return None, Timing(compute_s=seconds)


def case(w, c):
    return (lambda *a: None), (w, c), None


def test_median_of_long_samples_recovers_the_true_speed_despite_spikes():
    device = ScriptedDevice(1e6, spike_every=7)
    options = BenchOptions(warmup_runs=1, samples=9, min_sample_s=0.0, statistic="median")
    table = build_table(device, case, [1000, 4000], [0], options=options)
    assert table.table[:, 0] == pytest.approx([1e6, 1e6], rel=1e-6)
    # one run per sample with a single sample may hit a spike; the old way is at the mercy of the schedule
    noisy = build_table(ScriptedDevice(1e6, spike_every=2), case, [1000], [0],
                        options=BenchOptions(warmup_runs=1, samples=1, min_sample_s=0.0))
    assert noisy.table[0, 0] == pytest.approx(1e5)
    # samples that span many runs dilute a spike: speed within (1 − 1/runs·(spike − 1))
    long = build_table(ScriptedDevice(1e6, spike_every=50), case, [1000], [0],
                       options=BenchOptions(warmup_runs=0, samples=1, min_sample_s=0.1))
    assert long.table[0, 0] == pytest.approx(1e6, rel=0.2)
    assert long.meta["options"]["min_sample_s"] == 0.1


def test_min_statistic_takes_the_fastest_sample_and_tables_are_interleaved():
    devices = [ScriptedDevice(3e6, spike_every=3, name="a"), ScriptedDevice(1e6, spike_every=4, name="b")]
    options = BenchOptions(warmup_runs=0, samples=6, min_sample_s=0.0, statistic="min", concurrent=False)
    tables = build_tables(devices, case, [100, 1000], [0, 10], options=options)
    for table, speed in zip(tables, (3e6, 1e6)):
        truth = np.array([[w / (w / speed + 1e-9 * c) for c in (0, 10)] for w in (100, 1000)])
        np.testing.assert_allclose(table.table, truth, rtol=1e-9)
    assert [t.name for t in tables] == ["a", "b"]


def test_simulated_devices_answer_from_their_model():
    from apportion.apps.heat import benchmark_case

    device = Platform.load("seed002").devices[0]
    table = build_table(device, benchmark_case, [1024, 4096], [0, 256])
    work = benchmark_case(4096, 256)[2]
    assert table.table[1, 1] == pytest.approx(4096 / device.estimate(work).total_s)
    assert table.meta["simulated"]


def test_options_validation_and_presets():
    with pytest.raises(InputError):
        BenchOptions(samples=0)
    with pytest.raises(InputError):
        BenchOptions(statistic="mean")
    with pytest.raises(InputError):
        BenchOptions(clock="sundial")
    with pytest.raises(InputError):
        bench_options("turbo")
    assert bench_options("fast", samples=4).samples == 4
    sizes, comms = workload_grid(4096 * 4096, 3, points=5, halo_lines=(0, 2))
    assert sizes[0] == round(4096 * 4096 / 12) and sizes[-1] == 4096 * 4096 and len(sizes) == 5
    assert comms == (0, 8192)


def test_cpu_clock_scales_thread_time_by_the_throttle_factor():
    inner = CPUDevice(name="inner")
    slow = ThrottledDevice(ThrottledDevice(inner, 2.0), 1.5)
    assert throttle_factor(slow) == pytest.approx(3.0) and throttle_factor(inner) == 1.0

    def spin(n):
        total = 0
        for i in range(n):
            total += i
        return total

    execution, seconds = timed_run(slow, spin, (20000,), "cpu")
    assert execution.result == sum(range(20000))
    # 3 × the thread's CPU time, which can never exceed 3 × the elapsed time of the whole run
    assert 0 < seconds <= 3.0 * (execution.finished - execution.started) + 1e-6
    wall_execution, wall_seconds = timed_run(slow, spin, (20000,), "wall")
    assert wall_seconds == wall_execution.timing.total_s
    assert cpu_clock_applies(slow) and not cpu_clock_applies(Platform.load("seed002").devices[0])
    assert not cpu_clock_applies(CPUDevice(threads=2))


class RendezvousDevice(Device):
    """Every run waits at a barrier shared with the other devices of the table: it can only pass if the others
    run at the same time. Measured one at a time, the first run's wait times out (BrokenBarrierError)."""

    def __init__(self, barrier, log, name):
        super().__init__(name=name)
        self.barrier, self.log = barrier, log

    def _execute(self, kernels, args):
        self.barrier.wait()  # the barrier's own timeout
        self.log.append(self.name)
        return None, Timing(compute_s=args[0] * 1e-6)


@pytest.mark.parametrize("warmup_runs", [0, 2])
def test_tables_measure_the_devices_at_the_same_time(warmup_runs):
    import threading

    barrier, log = threading.Barrier(3, timeout=20), []
    devices = [RendezvousDevice(barrier, log, f"d{i}") for i in range(3)]
    options = BenchOptions(warmup_runs=warmup_runs, samples=2, min_sample_s=0.0)
    tables = build_tables(devices, case, [100, 400], [0, 8], options=options)
    # every run of every device met the others: equal counts, and the tables are complete
    assert sorted(set(log)) == ["d0", "d1", "d2"] and len({log.count(n) for n in ("d0", "d1", "d2")}) == 1
    assert log.count("d0") == 2 * 2 * (2 + warmup_runs)
    assert all(np.all(t.table > 0) for t in tables)
    with pytest.raises(threading.BrokenBarrierError):  # the sequential mode cannot pass the barrier
        build_tables([RendezvousDevice(threading.Barrier(2, timeout=0.2), [], f"s{i}") for i in range(2)], case,
                     [100], [0], options=BenchOptions(warmup_runs=0, samples=1, min_sample_s=0.0, concurrent=False))
