"""Soft priority: the threshold rises by Δ only when nothing is left under it anywhere."""

from __future__ import annotations

import math

import numpy as np
import pytest

from apportion.errors import InputError
from apportion.runtime.priority import AUTO_DELTA_MEAN_WEIGHTS, SoftPriority, auto_delta, check_delta
from apportion.runtime.termination import WorkCounter


def setup(delta=1.0, devices=2, live=3):
    counter = WorkCounter()
    counter.start(live)
    return SoftPriority(delta, devices, counter), counter


def test_raise_needs_every_device_idle_and_no_item_in_flight():
    priority, counter = setup(live=3)
    woken = []
    priority.listen(lambda: woken.append(1))
    assert priority.threshold == 1.0
    assert not priority.idle(0, 2, 1.5)  # device 1 not idle yet
    assert not priority.idle(1, 0, math.inf)  # 3 live items, 2 deferred: one is in flight
    counter.add(0, 1)  # the item in flight is consumed
    assert priority.recheck()
    assert priority.threshold == 2.0 and priority.raises == 1 and woken == [1]


def test_busy_withdraws_an_idle_report():
    priority, counter = setup(live=2)
    priority.idle(0, 1, 1.2)
    priority.busy(0)
    assert not priority.idle(1, 1, 1.7)
    assert priority.threshold == 1.0
    assert priority.idle(0, 1, 1.2)


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
