"""Scatter by availability: every segment processed exactly once by a device alive at the end; lost segments of
a dead device redone; errors reach the caller."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from apportion.errors import InputError
from apportion.platform.cpu import CPUDevice
from apportion.platform.device import DeviceFailure
from apportion.platform.faulty import FaultyDevice
from apportion.runtime.scatter import scatter

pytestmark = pytest.mark.timeout(120)


@njit(cache=True, nogil=True)
def count_into(totals, values):
    """totals[v] += 1 for every v of the segment."""
    for v in values:
        totals[v] += 1


def segments_of(count: int, size: int) -> list[tuple]:
    ids = np.arange(count, dtype=np.int64)
    return [(ids[s:s + size],) for s in range(0, count, size)]


@settings(max_examples=30, deadline=None)
@given(devices=st.integers(1, 4), count=st.integers(0, 300), size=st.integers(1, 40),
       fail_on=st.one_of(st.none(), st.integers(1, 6)))
def test_every_item_is_processed_once_by_the_survivors(devices, count, size, fail_on):
    machines = [CPUDevice(1, name=f"cpu{i}") for i in range(devices)]
    if fail_on is not None and devices > 1:
        machines[-1] = FaultyDevice(CPUDevice(1), fail_on, name="faulty")
    totals = [np.zeros(count, dtype=np.int64) for _ in machines]
    run = scatter(segments_of(count, size), machines, count_into, [(t,) for t in totals])
    survivors = [t for i, t in enumerate(totals) if i not in run.failed]
    assert np.array_equal(sum(survivors), np.ones(count, dtype=np.int64))
    assert sum(run.segments) >= len(segments_of(count, size)) and run.messages >= sum(run.segments)
    assert run.failures == (["faulty"] if run.failed else [])


def test_all_devices_dead_is_a_device_failure_and_a_bug_is_raised():
    with pytest.raises(DeviceFailure):
        scatter(segments_of(50, 10), [FaultyDevice(CPUDevice(1), 1)], count_into, [(np.zeros(50, np.int64),)])

    def broken(totals, values):
        raise ZeroDivisionError("bug")

    with pytest.raises(ZeroDivisionError):
        scatter(segments_of(50, 10), [CPUDevice(1), CPUDevice(1)], broken, [(None,), (None,)])
    with pytest.raises(InputError):
        scatter(segments_of(5, 1), [CPUDevice(1)], count_into, [])


def test_a_dead_devices_finished_segments_are_redone():
    """The faulty device filters two segments, then dies on its third; the healthy one waits until the second is
    done, so the dead device surely held finished work. Its finished segments (lost with it) and the one it died
    on must all be redone by the survivor, and the run must end (a lost segment never counts down)."""
    second_done = threading.Event()
    calls = []

    def count_after_gate(totals, gate, values):
        if gate is None:
            calls.append(len(values))
            if len(calls) == 2:
                second_done.set()
        else:
            gate.wait(30)
        totals[values] += 1

    machines = [FaultyDevice(CPUDevice(1), 3, name="faulty"), CPUDevice(1, name="healthy")]
    totals = [np.zeros(100, dtype=np.int64) for _ in machines]
    outcome = []
    runner = threading.Thread(target=lambda: outcome.append(
        scatter(segments_of(100, 10), machines, count_after_gate, [(totals[0], None), (totals[1], second_done)])),
        daemon=True)
    runner.start()
    runner.join(60)
    assert not runner.is_alive(), "the scatter never ended: a lost segment was not redone"
    run = outcome[0]
    assert run.failed == [0] and len(calls) == 2
    assert np.array_equal(totals[1], np.ones(100, dtype=np.int64))
