"""Soft priority: the system-wide threshold rises by Δ only when nothing is left under it anywhere; an idle
device may run ahead of the devices still working by at most LAG_BUCKETS · Δ."""

from __future__ import annotations

import math

import numpy as np
import pytest

from apportion.errors import InputError
from apportion.runtime.priority import (AUTO_DELTA_MEAN_WEIGHTS, LAG_BUCKETS, SoftPriority, auto_delta,
                                       check_delta)
from apportion.runtime.termination import WorkCounter


def setup(delta=1.0, devices=2, live=3, run_ahead=False):
    counter = WorkCounter()
    counter.start(live)
    return SoftPriority(delta, devices, counter, run_ahead=run_ahead), counter


def test_raise_needs_every_device_idle_and_no_item_in_flight():
    priority, counter = setup(live=3)
    woken = []
    for device in range(2):
        priority.listen(lambda device=device: woken.append(device))
    assert priority.threshold == 1.0
    assert not priority.idle(1, 1, 5.5)  # device 0 not idle yet (and 5.5 is beyond the run-ahead lag)
    assert not priority.idle(0, 1, 5.2)  # 3 live items, 2 deferred: one is in flight
    assert priority.threshold == 1.0 and priority.raises == 0
    counter.add(0, 1)  # the item in flight is consumed
    assert priority.recheck()
    assert priority.threshold == 6.0 and priority.raises == 1 and woken == [0, 1]
    assert priority.threshold_of(0) == priority.threshold_of(1) == 6.0


def test_an_idle_device_runs_ahead_of_a_working_one_by_at_most_the_lag():
    priority, _ = setup(live=6, run_ahead=True)  # one item in flight: no system-wide raise
    woken = []
    for device in range(2):
        priority.listen(lambda device=device: woken.append(device))
    assert priority.idle(0, 2, 1.5)  # device 1 still works at threshold 1: device 0 need not wait for it
    assert priority.threshold_of(0) == 2.0 and priority.threshold_of(1) == 1.0 and priority.threshold == 1.0
    assert priority.run_aheads == 1 and priority.raises == 0 and woken == []  # the caller is awake
    assert not priority.idle(0, 2, 10.5)  # its next items lie beyond LAG_BUCKETS · Δ above device 1's threshold
    assert priority.threshold_of(0) == 2.0 and LAG_BUCKETS * 1.0 < 10.5 - 1.0
    priority.busy(1)
    assert priority.idle(1, 3, 1.2)  # device 1 runs ahead too, to its bucket: no further than device 0 + lag
    assert priority.threshold_of(1) == 2.0 and priority.run_aheads == 2 and woken == [0]


def test_a_strict_threshold_never_runs_ahead():
    priority, _ = setup(live=6)
    assert not priority.idle(0, 2, 1.5)
    assert priority.threshold_of(0) == 1.0 and priority.run_aheads == 0


def test_a_device_with_nothing_deferred_stays_idle_through_a_raise():
    """A raise wakes only the devices with deferred items; the others' idle reports must keep holding, or the
    next raise waits for a report that never comes (both workers asleep: the hang of the first version)."""
    priority, counter = setup(devices=3, live=2, run_ahead=True)
    priority.idle(2, 0, math.inf)
    priority.idle(1, 1, 7.0)
    assert priority.idle(0, 1, 3.0)  # every device idle, nothing in flight
    assert priority.threshold == 4.0
    counter.add(0, 1)  # device 0 processed its item; device 1 reports again, then device 0
    assert not priority.idle(1, 1, 7.0)  # device 0 still works: it may not run ahead that far
    assert priority.idle(0, 0, math.inf)
    assert priority.threshold == 8.0 and priority.raises == 2


def test_busy_withdraws_an_idle_report():
    priority, counter = setup(live=2)
    priority.idle(0, 1, 5.2)  # beyond the lag: no run-ahead
    priority.busy(0)
    assert not priority.idle(1, 1, 5.7)
    assert priority.threshold == 1.0
    assert priority.idle(0, 1, 5.2)
    assert priority.threshold == 6.0


def test_empty_buckets_are_skipped():
    priority, _ = setup(delta=1.0, live=1)
    priority.idle(1, 0, math.inf)
    assert priority.idle(0, 1, 10.5)
    assert priority.threshold == 11.0


@pytest.mark.parametrize("delta", [1e-16, 1e-300, 5e-324])
def test_a_delta_below_the_values_spacing_still_lets_the_lowest_item_through(delta):
    """threshold + Δ rounded back to the threshold and the run raised forever (a hang at Δ = 1e-16)."""
    priority, _ = setup(delta=delta, live=1)
    priority.idle(1, 0, math.inf)
    assert priority.idle(0, 1, 3.0)
    assert priority.threshold > 3.0


def test_nothing_rises_when_nothing_is_deferred():
    priority, counter = setup(live=0)
    assert not priority.idle(0, 0, math.inf) and not priority.idle(1, 0, math.inf)
    assert priority.threshold == 1.0


def test_off_has_an_infinite_threshold():
    counter = WorkCounter()
    counter.start(1)
    priority = SoftPriority.off(2, counter)
    assert not priority.enabled and priority.threshold == math.inf
    assert not priority.idle(0, 1, 5.0)


def test_auto_delta_and_checks():
    assert auto_delta(np.array([1.0, 3.0])) == pytest.approx(2.0 * AUTO_DELTA_MEAN_WEIGHTS)
    assert auto_delta(None) == AUTO_DELTA_MEAN_WEIGHTS
    assert check_delta("off") is None and check_delta(None) is None and check_delta(2) == 2.0
    for bad in (0, -1, "x", float("inf")):
        with pytest.raises(InputError):
            check_delta(bad)


def test_a_device_whose_threshold_a_raise_leaves_alone_keeps_its_idle_report():
    """A device that ran ahead may already sit at the raised threshold: the raise gives it nothing to promote,
    so nobody steps it again (the Ray driver steps a device only for work or a higher threshold) — its idle
    report must keep holding, or no later raise can happen ("work remains but no device can take it")."""
    priority, counter = setup(live=3, run_ahead=True)
    assert priority.idle(0, 1, 1.5)  # device 1 still works: device 0 runs ahead to 2
    counter.add(1, 1)  # device 0 processed its item and deferred a new one at 2.5
    assert not priority.idle(0, 1, 2.5)  # 3 lies beyond the lag
    counter.add(0, 1)  # device 1 processed one item, deferred another at 1.2
    assert priority.idle(1, 1, 1.2)  # system-wide raise to 2: device 1's threshold rose, device 0's did not
    assert priority.thresholds == [2.0, 2.0]
    counter.add(0, 1)  # device 1 processed its item; device 0 does not report again
    assert priority.idle(1, 0, math.inf)
    assert priority.threshold == 3.0 and priority.raises == 2
