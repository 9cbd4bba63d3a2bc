"""The deterministic discrete-event simulator that runs a round on simulated devices (seed 000 ch. 3.4 set-ups).

Time is the performance models' (`SimulatedDevice.estimate`), never the wall clock: the same plan on the same
platform gives the same trace bit for bit. Events are (time, sequence number) ordered; at equal times devices
are served in index order. A device asks its plan for work when the round starts, after each of its runs, and
(if it got nothing) again after any other device's run completes or fails — the same protocol as the real
thread executor. A `FaultyDevice` around a simulated device dies half-way through the run it fails on; the
chunks of that run go back to the plan and the trace shows a `failed` interval.

When the workload is materialized and `compute=True`, every completed run's kernel is executed on the host (CPU
implementation) and its result stored, so simulated schedules produce real, checkable results.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

from apportion.errors import ApportionError
from apportion.schedule.policies.base import RoundPlan
from apportion.schedule.trace import Trace


@dataclass
class RoundOutcome:
    """What an executor reports for one round: makespan (s), scheduler overhead (real s, and decisions), the
    failures (device index, chunks handed back), and every completed (device, chunks) run."""

    makespan: float
    overhead_s: float = 0.0
    decisions: int = 0
    failures: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    runs: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    #: per device, the summed `Timing.dedicated_s` of its runs (NaN once a run did not report one)
    dedicated_s: dict[int, float] = field(default_factory=dict)


def simulate_round(plan: RoundPlan, devices, workload, trace: Trace, round_index: int, offset: float = 0.0,
                   compute: bool = False) -> RoundOutcome:
    """Run one round of `plan` on simulated `devices`; intervals go to `trace` shifted by `offset`."""
    events: list[tuple[float, int, str, int, tuple[int, ...], object]] = []
    sequence = 0
    waiting: set[int] = set()
    outcome = RoundOutcome(makespan=0.0)
    dead = set()

    def poll(d: int, now: float) -> None:
        nonlocal sequence
        if d in dead:
            return
        t0 = time.perf_counter()
        chunks = plan.next_assignment(d, now)
        outcome.overhead_s += time.perf_counter() - t0
        outcome.decisions += 1
        if not chunks:
            waiting.add(d)
            return
        waiting.discard(d)
        device = devices[d]
        timing = device.estimate(workload.work_on(device, chunks))
        fails = getattr(device, "will_fail_next", None)
        if fails is not None:
            dies = fails()  # asked before this run is counted: run k of FaultyDevice(fail_on_call=k) dies
            device.note_call()
            if dies:
                sequence += 1
                heapq.heappush(events, (now + timing.total_s / 2, sequence, "fail", d, tuple(chunks), timing))
                trace.add(d, round_index, "failed", offset + now, offset + now + timing.total_s / 2, len(chunks),
                          note=f"{devices[d].name} died; {len(chunks)} chunk(s) handed back")
                return
        end = trace.add_run(d, round_index, offset + now, timing, len(chunks),
                            profile=plan.is_profile_run(d, chunks)) - offset
        sequence += 1
        heapq.heappush(events, (end, sequence, "done", d, tuple(chunks), timing))

    for d in range(len(devices)):
        poll(d, 0.0)
    now = 0.0
    while events:
        now, _, kind, d, chunks, timing = heapq.heappop(events)
        if kind == "done":
            if compute and workload.materialized:
                workload.store(chunks, workload.kernels.cpu(*workload.payload(chunks)))
            t0 = time.perf_counter()
            plan.completed(d, chunks, timing, now)
            outcome.overhead_s += time.perf_counter() - t0
            outcome.runs.append((d, chunks))
            outcome.makespan = max(outcome.makespan, now)
            poll(d, now)
        else:
            dead.add(d)
            waiting.discard(d)
            plan.failed(d, chunks)
            outcome.failures.append((d, chunks))
            trace.events.append(f"round {round_index}: {devices[d].name} failed at {offset + now:.6g} s; "
                                f"{len(chunks)} chunk(s) re-queued")
        for w in sorted(waiting):
            poll(w, now)
    if not plan.done:
        raise ApportionError(f"round {round_index}: {plan.remaining} chunk(s) left and no live device can take "
                             "them (every device failed)")
    return outcome
