"""Hand-derived expected splits for the static policies, min-min, Qilin and the pool helpers (not the code's
own helpers), and where a failing device dies."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from apportion.platform import DeviceModel, FaultyDevice, LinkCost, Platform, SimulatedDevice
from apportion.schedule.api import run_schedule
from apportion.schedule.policies.qilin import QilinPolicy
from apportion.schedule.pool import RowWorkload, contiguous_runs, makespan_counts


def size_only(n_chunks: int, rows: int) -> RowWorkload:
    return RowWorkload(None, None, n_chunks, name="matmul", n_rows=rows, flops_per_row=2e7,
                       bytes_in_per_row=4e3, bytes_out_per_row=4e3)


def hosts(*peaks: float) -> Platform:
    return Platform([SimulatedDevice(DeviceModel(role="cpu", peak_flops=p), name=f"cpu{i}")
                     for i, p in enumerate(peaks)])


@pytest.mark.parametrize("speeds, total, expected", [
    ([3, 1, 1], 12, [8, 2, 2]),    # exact 7.2, 2.4, 2.4: largest remainder's 7/3/2 ends at 15, this at 13.3
    ([1, 1, 2], 10, [3, 2, 5]),    # floors 2, 2, 5; the leftover ends at 3 on every device -> lower index
    ([1, 2, 4], 10, [1, 3, 6]),    # floors 1, 2, 5; leftovers: 1.5 ties on devices 1 and 2 -> 1, then 2
    ([3, 1], 10, [8, 2]),          # floors 7, 2; the leftover ends at 2.67 on device 0, 3 on device 1
    ([0, 5, 0], 7, [0, 7, 0]),     # zero speeds get nothing
    ([1, 1, 1], 2, [1, 1, 0]),     # fewer chunks than parts: lower indices first
])
def test_makespan_counts_by_hand(speeds, total, expected):
    assert makespan_counts(speeds, total).tolist() == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=4), st.integers(0, 14))
def test_makespan_counts_is_the_best_integer_split(speeds, total):
    counts = makespan_counts(speeds, total)
    assert counts.sum() == total and (counts >= 0).all()
    s = np.asarray(speeds, dtype=np.float64)
    if s.sum() == 0:
        s = np.ones_like(s)
    assert not counts[s == 0].any()

    def makespan(c):
        return max(c[d] / s[d] for d in range(len(s)) if s[d] > 0)

    best = min(makespan(c) for c in itertools.product(range(total + 1), repeat=len(s))
               if sum(c) == total and all(c[d] == 0 for d in range(len(s)) if s[d] == 0))
    assert makespan(counts) == pytest.approx(best)


def test_contiguous_runs_by_hand():
    assert contiguous_runs([9, 3, 4, 5, 0]) == [(0, 1), (3, 6), (9, 10)]
    assert contiguous_runs([2, 3]) == [(2, 4)]


def test_static_peak_splits_by_peak_flops_by_hand():
    # peaks 1 : 2 : 5 of 10 chunks: exact 1.25, 2.5, 6.25 -> floors 1, 2, 6; the leftover ends first on the
    # fastest device (7/5 = 1.4 against 3/2 = 1.5), so 1/2/7, not largest remainder's 1/3/6
    schedule = run_schedule(size_only(10, 1000), hosts(1e9, 2e9, 5e9), "static-peak", 1, compute=False)
    assert schedule.rounds[0].chunks == [1, 2, 7]
    even = run_schedule(size_only(10, 1000), hosts(1e9, 2e9, 5e9), "static-even", 1, compute=False)
    assert even.rounds[0].chunks == [4, 3, 3]


def test_minmin_assigns_by_earliest_completion_by_hand():
    # one chunk (100 rows x 2e7 FLOP) takes 1 s on cpu0 (2 GFLOP/s) and 2 s on cpu1 (1 GFLOP/s); min-min, ties
    # to the lower index: completions 1,2 -> cpu0; 2,2 -> cpu0; 3,2 -> cpu1; 3,4 -> cpu0; 4,4 -> cpu0;
    # 5,4 -> cpu1; ... 9 chunks: cpu0 gets 6, cpu1 3, makespan 6 s
    schedule = run_schedule(size_only(9, 900), hosts(2e9, 1e9), "minmin", 1, compute=False)
    assert schedule.rounds[0].chunks == [6, 3]
    assert schedule.makespans[0] == pytest.approx(6.0)


def test_qilin_split_equalises_its_fitted_lines():
    """Qilin fits t_d(x) = a_d + b_d·x per device and gives the CPU the x0 where a0 + b0·x0 = a1 + b1·(n − x0).
    A GPU with a 50 ms launch makes the fixed costs differ, so the two lines cross where the hand formula says."""
    gpu = DeviceModel(role="gpu", peak_flops=8e9, launch_latency_s=0.05, link=LinkCost(0.0, 1e12))
    platform = Platform([SimulatedDevice(DeviceModel(role="cpu", peak_flops=2e9), name="cpu"),
                         SimulatedDevice(gpu, name="gpu")])
    policy = QilinPolicy(fraction=0.4)
    n = 100
    run_schedule(size_only(n, 1000), platform, policy, 1, compute=False)
    (a0, b0), (a1, b1) = policy.lines
    # per chunk of 10 rows: CPU 0.1 s, GPU 0.025 s (+ transfers of 80 kB at 1 TB/s), GPU fixed cost 0.05 s
    assert b0 == pytest.approx(0.1, rel=1e-6) and a0 == pytest.approx(0.0, abs=1e-9)
    assert b1 == pytest.approx(0.025 + 8e4 / 1e12, rel=1e-6) and a1 == pytest.approx(0.05, rel=1e-6)
    x0 = policy.beta * n
    assert a0 + b0 * x0 == pytest.approx(a1 + b1 * (n - x0), rel=1e-9)


@settings(max_examples=30)
@given(fail_on=st.integers(1, 6), n_chunks=st.integers(4, 40), policy=st.sampled_from(
    ["hass", "greedy", "minmin", "static-even", "static-peak"]), speeds=st.lists(st.floats(1e9, 8e9), min_size=2,
                                                                                  max_size=3))
def test_faulty_device_dies_on_its_nth_run(fail_on, n_chunks, policy, speeds):
    """FaultyDevice(fail_on_call=k) completes exactly k − 1 runs and dies on run k, in the simulator as on
    real devices; a device that never reaches run k never fails."""
    devices = [SimulatedDevice(DeviceModel(role="cpu", peak_flops=s), name=f"d{i}") for i, s in enumerate(speeds)]
    devices[0] = FaultyDevice(devices[0], fail_on_call=fail_on)
    schedule = run_schedule(size_only(n_chunks, 10 * n_chunks), Platform(devices), policy, 2, compute=False)
    completed = sum(1 for r in schedule.rounds for d, _ in r.runs if d == 0)
    failures = [f for r in schedule.rounds for f in r.failures]
    assert [f["device"] for f in failures] in ([], ["d0"])
    if failures:
        assert completed == fail_on - 1
    else:
        assert completed < fail_on
    assume(failures)  # the examples where the device dies are the interesting ones; hypothesis finds enough
