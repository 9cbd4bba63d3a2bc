"""Scatter by availability: the host cuts the input into segments and a router hands each to the first free
device (seed 003 §3, Figs. 5-6: predicate-based filtering's `h2gpus` router with `AnyDevicePolicy`; §5.1.4:
topology-driven connected components hand out edge segments the same way; §5.3: the faster device gets more).

`scatter(messages, devices, kernel, device_args, buffers=1)` sends every message (a tuple of equally long
arrays) from the host through a `Router` with the `any_device` policy, then shuts it down. Each device has one
worker thread that receives a segment, runs `kernel(*device_args[i], *segment.arrays)` on it through
`device.run` (so throttled devices are slower and take fewer segments), releases the buffer and asks for the
next; the empty segment after shutdown stops it. With one buffer per device, a device holds one segment at a
time: the next goes to whoever finishes first. `transport="ray"` runs the same scatter on one Ray actor per device
(`transports/ray_scatter.py`).

A device that dies (`DeviceFailure`) stops taking segments; what it computed is lost with it, so the segment it
held and every segment it had processed are sent again to the others (the router is shut down only after every
segment has been processed by a device still alive at the end).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from apportion.errors import InputError
from apportion.platform.device import Device, DeviceFailure
from apportion.runtime.endpoint import Endpoint
from apportion.runtime.policies import any_device
from apportion.runtime.router import Router
from apportion.runtime.transports.ray_scatter import scatter_ray
from apportion.schedule.trace import Trace


@dataclass
class ScatterRun:
    """Segments and items each device processed, router traffic, the trace, the failed devices (names and
    indices), wall time."""

    segments: list[int]
    items: list[int]
    messages: int
    bytes_moved: int
    trace: Trace = field(repr=False)
    failures: list[str] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    time_s: float = 0.0


def scatter(messages: list[tuple], devices: list[Device], kernel: Callable, device_args: list[tuple],
            buffers: int = 1, collect: Callable | None = None, transport: str = "threads",
            cluster: str | None = None) -> ScatterRun:
    """Process every message on the first available device; returns the per-device counts (see the module).

    `collect(i, arrays, result)`, when given, receives what device i's kernel returned for the segment `arrays`
    (the host's arrays, whatever copies the device made), on that device's thread.

    `transport`: "threads" (this module: one worker thread per device, kernels change `device_args` in place) or
    "ray" (`transports/ray_scatter.py`: one actor per device on the cluster `cluster`, else RAY_ADDRESS, else a
    local one; each actor changes its own copy of its `device_args`, and the survivors' NumPy arrays are copied
    back into the host's at the end, so the caller reads them the same way; `collect` runs on the driver).

    Raises DeviceFailure when every device died, or the first other exception a device hit."""
    k = len(devices)
    if k < 1 or len(device_args) != k:
        raise InputError("scatter needs at least one device and one argument tuple per device")
    if transport == "ray":
        return ScatterRun(**scatter_ray(messages, devices, kernel, device_args, buffers=buffers, collect=collect,
                                        cluster=cluster))
    if transport != "threads":
        raise InputError(f"unknown transport {transport!r} for scatter; choose threads or ray")
    packet_size = max([len(m[0]) for m in messages] + [1])
    endpoints = [Endpoint.device(i) for i in range(k)]
    router = Router([Endpoint.host()], endpoints, any_device(), packet_size=packet_size, buffers=buffers)
    trace = Trace([d.name for d in devices])
    segments, items = [0] * k, [0] * k
    failures: list[str] = []
    failed: list[int] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    remaining = [len(messages)]
    alive = [k]
    t0 = time.perf_counter()

    def finish_one() -> None:
        with lock:
            remaining[0] -= 1
            done = remaining[0] == 0
        if done:
            router.shutdown()

    def worker(i: int) -> None:
        processed_here = []  # lost if this device dies
        while True:
            segment = router.receive(i).result()
            if segment.empty:
                return
            try:
                execution = devices[i].run(kernel, *device_args[i], *segment.arrays)
            except DeviceFailure:
                with lock:
                    failures.append(devices[i].name)
                    failed.append(i)
                    alive[0] -= 1
                    last = alive[0] == 0
                    remaining[0] += len(processed_here)  # before anything could count down to zero
                trace.add(i, 0, "failed", time.perf_counter() - t0, time.perf_counter() - t0 + 1e-6)
                arrays = segment.arrays
                router.release(i, segment)
                if last:
                    errors.append(DeviceFailure("every device of the scatter failed"))
                    router.abort()
                    return
                # this device posts no more receives, so the router gives it nothing more; the lost segments go
                # to the others
                for lost in [arrays, *processed_here]:
                    router.send(-1, *lost)
                return
            except BaseException as exc:  # noqa: BLE001 - reported to the caller
                errors.append(exc)
                router.abort()
                return
            trace.add(i, 0, "compute", execution.started - t0, execution.finished - t0, chunks=len(segment))
            segments[i] += 1
            items[i] += len(segment)
            if collect is not None:
                collect(i, segment.arrays, execution.result)
            processed_here.append(segment.arrays)
            router.release(i, segment)
            finish_one()

    threads = [threading.Thread(target=worker, args=(i,), name=f"scatter{i}", daemon=True) for i in range(k)]
    for thread in threads:
        thread.start()
    if not messages:
        router.shutdown()
    for message in messages:
        router.send(-1, *message)
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return ScatterRun(segments=segments, items=items, messages=router.packets_sent, bytes_moved=router.bytes_sent,
                      trace=trace, failures=failures, failed=failed, time_s=time.perf_counter() - t0)

