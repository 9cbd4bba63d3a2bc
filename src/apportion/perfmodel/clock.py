"""Clocks for timing device runs in benchmarks and the stencil runtime (seed 002 §4.2, §6).

- "wall": the seconds the device reports (`Execution.timing.total_s`): wall-clock on real devices, including
  every pre-emption by other processes; a `ThrottledDevice` multiplies its inner wall time by its factor.
- "cpu": the calling thread's CPU time during `device.run` (`time.thread_time`), multiplied by the throttle
  factor of the device (the product over nested `ThrottledDevice`s). This is the time the run would take on a
  dedicated core with the emulated slowdown; it is immune to pre-emption by other processes (which, on a
  shared 2-core machine, can stretch a run by 2–5× at random) but still sees cache and memory-bandwidth
  interference. It applies to host devices running serial kernels in the calling thread; for other devices
  (simulated, remote, multi-threaded CPU devices) the "cpu" clock falls back to "wall".
"""

from __future__ import annotations

import time

from apportion.errors import InputError

CLOCKS = ("wall", "cpu")


def check_clock(clock: str) -> str:
    if clock not in CLOCKS:
        raise InputError(f"unknown clock {clock!r}; choose one of {', '.join(CLOCKS)}")
    return clock


def throttle_factor(device) -> float:
    """Product of the `factor`s of nested throttled devices (1 for an unthrottled one)."""
    factor = 1.0
    while getattr(device, "factor", None) is not None and hasattr(device, "inner"):
        factor *= float(device.factor)
        device = device.inner
    return factor


def _innermost(device):
    while hasattr(device, "inner"):
        device = device.inner
    return device


def cpu_clock_applies(device) -> bool:
    """True when the "cpu" clock measures `device` faithfully: a host CPU device with one thread."""
    inner = _innermost(device)
    return (not getattr(inner, "is_simulated", False) and getattr(inner, "kind", "") == "cpu"
            and int(getattr(inner, "threads", 1)) == 1)


def timed_run(device, kernels, args, clock: str = "wall"):
    """Run `kernels(*args)` on `device`; return (Execution, seconds by `clock`)."""
    if clock == "cpu" and cpu_clock_applies(device):
        start = time.thread_time()
        execution = device.run(kernels, *args)
        return execution, (time.thread_time() - start) * throttle_factor(device)
    execution = device.run(kernels, *args)
    return execution, execution.timing.total_s
