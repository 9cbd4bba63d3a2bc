"""The real executor: one Python thread per device (CPU, throttled, CUDA, or Ray devices) driving a round plan.

Same protocol as the simulator (seed 003's one host thread per device): each thread asks the plan for chunks,
builds the kernel arguments (`workload.payload`), calls `device.run`, stores the result and reports completion;
a thread that got nothing waits on a condition variable until another device completes or fails. Plan calls
and result stores happen under one lock; kernels run outside it (Numba kernels release the GIL, Ray and CUDA
calls wait without it). A `DeviceFailure` (killed Ray actor, injected fault) hands the run's chunks back to the
plan; the trace gets a `failed` interval and an event line. Any other exception aborts the round and is
re-raised in the caller.
"""

from __future__ import annotations

import threading
import time

from apportion.errors import ApportionError
from apportion.platform.device import DeviceFailure
from apportion.schedule.policies.base import RoundPlan
from apportion.schedule.simulate import RoundOutcome
from apportion.schedule.trace import Trace


def execute_round(plan: RoundPlan, devices, workload, trace: Trace, round_index: int, offset: float = 0.0,
                  clock_zero: float | None = None) -> RoundOutcome:
    """Run one round on real devices; times in the trace are seconds since `clock_zero` (perf_counter)."""
    lock = threading.Condition()
    outcome = RoundOutcome(makespan=0.0)
    start = time.perf_counter()
    zero = start - offset if clock_zero is None else clock_zero
    errors: list[BaseException] = []
    live = [True] * len(devices)

    def worker(d: int) -> None:
        device = devices[d]
        while True:
            with lock:
                while True:
                    if plan.done or errors:
                        return
                    now = time.perf_counter() - start
                    t0 = time.perf_counter()
                    chunks = plan.next_assignment(d, now)
                    outcome.overhead_s += time.perf_counter() - t0
                    outcome.decisions += 1
                    if chunks:
                        break
                    if not any(live):
                        return
                    lock.wait(timeout=0.05)
                profile = plan.is_profile_run(d, chunks)
            run_start = time.perf_counter()
            try:
                args = workload.payload(chunks)
                execution = device.run(workload.kernels, *args)
            except DeviceFailure as exc:
                with lock:
                    live[d] = False
                    plan.failed(d, chunks)
                    outcome.failures.append((d, tuple(chunks)))
                    trace.add(d, round_index, "failed", run_start - zero, time.perf_counter() - zero, len(chunks),
                              note=str(exc))
                    trace.events.append(f"round {round_index}: {device.name} failed ({exc}); "
                                        f"{len(chunks)} chunk(s) re-queued")
                    lock.notify_all()
                return
            except BaseException as exc:  # a kernel bug: stop everyone, re-raise in the caller
                with lock:
                    errors.append(exc)
                    live[d] = False
                    lock.notify_all()
                return
            with lock:
                now = time.perf_counter() - start
                workload.store(chunks, execution.result)
                t0 = time.perf_counter()
                plan.completed(d, chunks, execution.timing, now)
                outcome.overhead_s += time.perf_counter() - t0
                outcome.runs.append((d, tuple(chunks)))
                dedicated = execution.timing.dedicated_s
                outcome.dedicated_s[d] = outcome.dedicated_s.get(d, 0.0) + (
                    float("nan") if dedicated is None else dedicated)
                outcome.makespan = max(outcome.makespan, now)
                # lay the run out ending when it really ended
                trace.add_run(d, round_index, execution.finished - execution.timing.total_s - zero,
                              execution.timing, len(chunks), profile=profile)
                lock.notify_all()

    threads = [threading.Thread(target=worker, args=(d,), name=f"apportion-{devices[d].name}", daemon=True)
               for d in range(len(devices))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    if not plan.done:
        raise ApportionError(f"round {round_index}: {plan.remaining} chunk(s) left and every device failed")
    return outcome
