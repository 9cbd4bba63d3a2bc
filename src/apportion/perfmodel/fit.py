"""A simulated twin of a real platform: measure each device on the workloads, fit its model, write the platform.

`apportion perfmodel fit` measures every device of a real platform (CPU, throttled, CUDA, Ray devices) on
*cases* — one run of a workload's kernel on a bundle of chunks, at a few bundle sizes — and fits, per device
and workload, the line the simulator's model draws for a host device (`apportion.platform.simulated`):

    seconds(run) = launch_latency + flops / sustained_rate[workload]

by least squares over the sizes (a negative intercept, which noise can give, is refitted through the origin).
The device's model then has `peak_flops` = its fastest workload's rate, `efficiency[workload]` = rate / peak,
`launch_latency_s` = the median intercept over workloads, and no saturation. A bundling device (a GPU, a Ray
worker) keeps its link: the link's modelled transfer time is subtracted from each run before the fit, so the
twin does not pay it twice. Memory bandwidth is not fitted (the measured rates already include it); the twin's
is set high enough never to bind. The result is a `Platform` of `SimulatedDevice`s, saved as TOML that
`--platform FILE` reads, whose devices keep the real devices' names.

A case is `(workload, kernels, args, work)`: `device.run(kernels, *args)` does the run and `work` (a `Work`)
is what the simulator would price; the CLI builds them from the shipped workloads. Every device is warmed on
every kernel before the first timed run, and runs are interleaved (repeat after repeat, case after case,
device after device) so a change of the machine's load hits all devices alike. Times by `clock` (see
`apportion.perfmodel.clock`: "cpu" is immune to pre-emption by other processes on host devices).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from apportion.errors import InputError
from apportion.perfmodel.clock import check_clock, timed_run
from apportion.platform.device import KIND_CPU, KIND_GPU, Work
from apportion.platform.platform import Platform
from apportion.platform.simulated import DeviceModel, SimulatedDevice

#: memory bandwidth of a fitted device: high enough never to be the bound (the rates already include it)
UNBOUND_MEMORY_BANDWIDTH_BPS = 1e15


@dataclass(frozen=True)
class Sample:
    """One case measured on one device: its work and the seconds (by the fit's clock) of each repeat."""

    device: str
    workload: str
    work: Work
    seconds: tuple


@dataclass(frozen=True)
class LineFit:
    """seconds = latency_s + flops / rate_flops for one device and workload; `residual` is the largest relative
    gap between a measured time and the line."""

    rate_flops: float
    latency_s: float
    residual: float


def fit_line(flops: Sequence[float], seconds: Sequence[float]) -> LineFit:
    """Least-squares `seconds = latency + flops / rate` with latency ≥ 0 (through the origin when the free
    intercept comes out negative). Needs two or more distinct FLOP counts, or one (then latency = 0)."""
    x = np.asarray(flops, dtype=np.float64)
    y = np.asarray(seconds, dtype=np.float64)
    if x.size == 0 or x.shape != y.shape or np.any(x <= 0) or np.any(~np.isfinite(y)) or np.any(y <= 0):
        raise InputError("fit: need positive FLOP counts and positive times, as many of one as of the other")
    if np.unique(x).size >= 2:
        slope, intercept = np.polyfit(x, y, 1)
    else:
        slope, intercept = 0.0, -1.0
    if intercept < 0 or slope <= 0:
        slope, intercept = float(np.dot(x, y) / np.dot(x, x)), 0.0
    predicted = intercept + slope * x
    return LineFit(rate_flops=float(1.0 / slope), latency_s=float(intercept),
                   residual=float(np.max(np.abs(predicted - y) / y)))


def measure_cases(devices, cases, *, repeats: int = 5, clock: str = "cpu") -> list[Sample]:
    """Time every case on every device `repeats` times (warm first, interleaved; module docstring)."""
    check_clock(clock)
    if repeats < 1:
        raise InputError(f"fit: repeats must be ≥ 1, got {repeats}")
    devices, cases = list(devices), list(cases)
    if not devices or not cases:
        raise InputError("fit: need at least one device and one case")
    warmed = set()
    for workload, kernels, args, _ in cases:
        if (workload, id(kernels)) in warmed:
            continue
        warmed.add((workload, id(kernels)))
        for device in devices:
            device.warm_up(kernels, *args)
    seconds = np.zeros((len(devices), len(cases), repeats))
    for r in range(repeats):
        for c, (_, kernels, args, _) in enumerate(cases):
            for d, device in enumerate(devices):
                seconds[d, c, r] = timed_run(device, kernels, args, clock)[1]
    return [Sample(device.name, workload, work, tuple(seconds[d, c]))
            for d, device in enumerate(devices) for c, (workload, _, _, work) in enumerate(cases)]


def _role(device) -> str:
    return KIND_GPU if getattr(device, "bundles", False) else KIND_CPU


def fit_device(device, samples: Sequence[Sample]) -> tuple[SimulatedDevice, dict[str, LineFit]]:
    """The simulated twin of `device` from its samples (median time of each case), and the line of each
    workload."""
    link = getattr(device, "link", None)
    by_workload: dict[str, list[tuple[float, float]]] = {}
    for sample in samples:
        t = float(np.median(sample.seconds))
        if link is not None:
            t -= link.transfer_time(sample.work.bytes_in) + link.transfer_time(sample.work.bytes_out)
        by_workload.setdefault(sample.workload, []).append((sample.work.flops, max(t, 1e-12)))
    if not by_workload:
        raise InputError(f"fit: no samples for device {device.name}")
    lines = {w: fit_line(*zip(*points)) for w, points in by_workload.items()}
    peak = float(max(line.rate_flops for line in lines.values()))
    efficiency = {w: float(min(1.0, line.rate_flops / peak)) for w, line in lines.items()}
    first = next(iter(lines))
    model = DeviceModel(role=_role(device), peak_flops=peak, efficiency={"default": efficiency[first], **efficiency},
                        saturation_flops=0.0, memory_bandwidth_Bps=UNBOUND_MEMORY_BANDWIDTH_BPS,
                        launch_latency_s=float(np.median([line.latency_s for line in lines.values()])), link=link)
    return SimulatedDevice(model, name=device.name), lines


def fit_platform(devices, samples: Sequence[Sample], *, name: str = "twin",
                 description: str | None = None) -> tuple[Platform, dict[str, dict[str, LineFit]]]:
    """The simulated twin of `devices` from `measure_cases`' samples: a Platform (same device names and order)
    and, per device, the fitted line of each workload."""
    devices = list(devices)
    twins, lines = [], {}
    for device in devices:
        twin, fitted = fit_device(device, [s for s in samples if s.device == device.name])
        twins.append(twin)
        lines[device.name] = fitted
    text = description or f"simulated twin of {', '.join(d.name for d in devices)} (apportion perfmodel fit)"
    return Platform(twins, name=name, description=text), lines
