"""Termination by work counting: never early (property test over random schedules), exactly once, and the
checker catches the broken protocol (counting after the send)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.runtime.termination import TerminationError, WorkCounter


def play(schedule_seed: int, devices: int, seeds: int, budget: int, count_before_send: bool) -> list[str]:
    """A simulated system run step by step in an order drawn from `schedule_seed`. A device processes one item
    and makes 0-2 children for random devices (sent as messages); messages are delivered later. With
    `count_before_send` the device reports (produced, consumed) in one add before the children leave;
    otherwise it reports the consumed item, sends, and reports the children afterwards (a step another device
    may interleave with). Returns the violations seen: termination while items still existed."""
    rng = random.Random(schedule_seed)
    violations: list[str] = []
    queues = [[] for _ in range(devices)]
    in_flight: list[int] = []  # destination of each message (one item each)
    late_reports: list[int] = []  # children sent but not yet counted (broken protocol only)
    made = 0
    counter = WorkCounter()
    counter.start(seeds)
    for _ in range(seeds):
        queues[rng.randrange(devices)].append(1)

    def alive() -> int:
        return sum(map(len, queues)) + len(in_flight)

    while alive() or late_reports:
        choices = [("process", d) for d in range(devices) if queues[d]]
        choices += [("deliver", i) for i in range(len(in_flight))]
        choices += [("report", i) for i in range(len(late_reports))]
        action, which = rng.choice(choices)
        if action == "process":
            queues[which].pop()
            children = rng.randint(0, 2) if made < budget else 0
            made += children
            if count_before_send:
                counter.add(children, 1)
            else:
                counter.add(0, 1)
                late_reports.append(children)
            in_flight.extend(rng.randrange(devices) for _ in range(children))
        elif action == "deliver":
            queues[in_flight.pop(which)].append(1)
        else:
            counter.add(late_reports.pop(which), 0)
        if counter.finished and alive():
            violations.append(f"terminated with {alive()} items alive")
            break
    return violations


@settings(max_examples=200, deadline=None)
@given(schedule=st.integers(0, 2**32 - 1), devices=st.integers(1, 4), seeds=st.integers(1, 3),
       budget=st.integers(0, 60))
def test_counting_before_send_never_terminates_early_and_always_terminates(schedule, devices, seeds, budget):
    rng_state = play(schedule, devices, seeds, budget, count_before_send=True)
    assert rng_state == []


def test_the_schedule_checker_catches_counting_after_the_send():
    # the same simulator with the broken protocol terminates early on some schedule: the property test above
    # can fail
    assert any(play(seed, 2, 1, 30, count_before_send=False) for seed in range(200))


def test_on_zero_runs_once_when_the_count_returns_to_zero():
    calls = []
    counter = WorkCounter(on_zero=lambda: calls.append(1))
    counter.start(2)
    counter.add(3, 1)
    assert not counter.finished and counter.count == 4
    counter.add(0, 4)
    assert counter.finished and calls == [1] and counter.wait(0)
    assert counter.produced == 5 and counter.consumed == 5


def test_zero_seeds_terminate_at_once():
    calls = []
    WorkCounter(on_zero=lambda: calls.append(1)).start(0)
    assert calls == [1]


def test_protocol_violations_are_errors():
    counter = WorkCounter()
    with pytest.raises(TerminationError):
        counter.add(1, 0)  # before start
    counter.start(1)
    with pytest.raises(TerminationError):
        counter.add(0, 2)  # negative
    fresh = WorkCounter()
    fresh.start(1)
    fresh.add(0, 1)
    with pytest.raises(TerminationError):
        fresh.add(1, 0)  # after termination
