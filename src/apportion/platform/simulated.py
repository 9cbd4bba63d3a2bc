"""SimulatedDevice: a device that follows a performance model instead of a clock (seed 000 ch. 3 hardware).

The model (`DeviceModel`) of one run of `Work(flops, bytes_in, bytes_out)`:

    transfer = link.latency + bytes_in / link.bandwidth  +  link.latency + bytes_out / link.bandwidth
    launch   = launch_latency
    compute  = max(flops / rate(flops), (bytes_in + bytes_out) / memory_bandwidth)
    rate(f)  = peak_flops * efficiency[workload] * (1 - exp(-f / saturation_flops))

`rate` is a saturating throughput curve: a GPU given a small piece of work leaves most of its cores idle (ch.
3.2.2, the reason for load bundling), and reaches its sustained rate only once the work is several times
`saturation_flops`. Host devices have no link (transfer = 0) and a launch latency of a function call.

Simulated devices run inside the deterministic discrete-event simulator (`apportion.schedule.simulate`); there
time is the model's, never the wall clock's. `run(..., work=...)` also works outside the simulator: it computes
the real result with the CPU kernel (when arguments are given) and reports the model's Timing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from apportion.errors import InputError
from apportion.platform.device import KIND_CPU, KIND_GPU, Device, KernelSet, LinkCost, Timing, Work


@dataclass(frozen=True)
class DeviceModel:
    """Performance model of one device (see the module docstring for the formulas).

    role: "cpu" (takes chunks one by one) or "gpu" (bundled: one transfer + one launch per bundle).
    peak_flops: nominal peak FLOP/s (what a static split "by peak FLOPS" uses).
    efficiency: fraction of peak a workload sustains, by workload name ("default" for the others).
    saturation_flops: work (FLOPs) at which the device reaches 1 - 1/e = 63 % of its sustained rate.
    saturation_by_workload: per-workload overrides of saturation_flops (a GPU fills its cores with a number of
        threads, and how many FLOPs that is depends on the work per thread of the workload).
    memory_bandwidth_Bps: device memory bandwidth (a run never beats bytes / bandwidth).
    launch_latency_s: fixed cost of one kernel launch (or function call on a CPU).
    link: host <-> device link (None for the host CPU).
    """

    role: str = KIND_CPU
    peak_flops: float = 1e10
    efficiency: Mapping[str, float] = field(default_factory=lambda: {"default": 1.0})
    saturation_flops: float = 0.0
    memory_bandwidth_Bps: float = 1e11
    launch_latency_s: float = 0.0
    link: LinkCost | None = None
    saturation_by_workload: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self):
        if self.role not in (KIND_CPU, KIND_GPU):
            raise InputError(f"device model: role must be 'cpu' or 'gpu', got {self.role!r}")
        for what, value in (("peak_flops", self.peak_flops), ("memory_bandwidth_Bps", self.memory_bandwidth_Bps)):
            if not value > 0:
                raise InputError(f"device model: {what} must be > 0, got {value}")
        if self.saturation_flops < 0 or self.launch_latency_s < 0 or any(
                v < 0 for v in self.saturation_by_workload.values()):
            raise InputError("device model: saturation_flops and launch_latency_s must be >= 0")
        if "default" not in self.efficiency:
            object.__setattr__(self, "efficiency", {"default": 1.0, **dict(self.efficiency)})
        for key, value in self.efficiency.items():
            if not 0 < value <= 1:
                raise InputError(f"device model: efficiency[{key!r}] must be in (0, 1], got {value}")

    def sustained_flops(self, workload: str = "default") -> float:
        """FLOP/s the device sustains on large runs of `workload`."""
        return self.peak_flops * self.efficiency.get(workload, self.efficiency["default"])

    def saturation_for(self, workload: str = "default") -> float:
        """FLOPs at which `workload` reaches 63 % of the sustained rate."""
        return float(self.saturation_by_workload.get(workload, self.saturation_flops))

    def compute_time(self, work: Work) -> float:
        """Seconds of compute for `work` (saturating throughput curve, memory-bandwidth floor)."""
        sustained = self.sustained_flops(work.workload)
        saturation = self.saturation_for(work.workload)
        if work.flops <= 0:
            flop_time = 0.0
        elif saturation > 0:
            # plain floats: a tiny saturation gives x = inf (full sustained speed) without a NumPy overflow warning
            x = float(work.flops) / saturation
            # flops / (F * (1 - e^-x)); -expm1(-x) keeps precision for tiny x
            flop_time = work.flops / (sustained * -math.expm1(-x))
        else:
            flop_time = work.flops / sustained
        return max(flop_time, (work.bytes_in + work.bytes_out) / self.memory_bandwidth_Bps)

    def timing(self, work: Work) -> Timing:
        """Timing of one run (one transfer each way, one launch, compute) of `work`."""
        transfer_in = self.link.transfer_time(work.bytes_in) if self.link is not None else 0.0
        transfer_out = self.link.transfer_time(work.bytes_out) if self.link is not None else 0.0
        return Timing(transfer_s=transfer_in + transfer_out, launch_s=self.launch_latency_s,
                      compute_s=self.compute_time(work), transfer_in_s=transfer_in)


class SimulatedDevice(Device):
    """A device whose time is `model.timing(work)`; used by the discrete-event simulator."""

    def __init__(self, model: DeviceModel, name: str = "sim"):
        super().__init__(name=name, kind="simulated-" + model.role, implementation=KIND_CPU,
                         bundles=model.role == KIND_GPU, peak_flops=model.peak_flops, link=model.link)
        self.model = model
        self.is_simulated = True

    @property
    def role(self) -> str:
        return self.model.role

    def estimate(self, work: Work) -> Timing:
        """The model's Timing for one run of `work` (no computation)."""
        return self.model.timing(work)

    def warm_up(self, kernels, *args) -> float:
        return 0.0  # a model has nothing to compile

    def _execute(self, kernels, args) -> tuple[Any, Timing]:
        raise InputError(f"simulated device {self.name}: run(...) needs work=Work(...) to know its time")

    def _execute_with_work(self, kernels, args, work: Work) -> tuple[Any, Timing]:
        result = KernelSet.coerce(kernels).cpu(*args) if args else None
        return result, self.model.timing(work)

    def describe(self) -> dict:
        m = self.model
        out = {**super().describe(), "role": m.role, "efficiency": dict(m.efficiency),
               "saturation_gflop": m.saturation_flops / 1e9,
               "saturation_gflop_by_workload": {k: v / 1e9 for k, v in m.saturation_by_workload.items()}, "memory_bandwidth_gbs": m.memory_bandwidth_Bps / 1e9,
               "launch_latency_us": m.launch_latency_s * 1e6}
        return out
