"""What the three split algorithms of seed 004 share: the device pair, running both sides at once, timings.

A *split algorithm* (seed 004 §II) divides its input by a threshold between a "CPU side" and a "GPU side" that
run at the same time, then merges. Here the two sides are two devices of a platform:

- real devices (the shipped `local-pair`: two one-thread CPU devices; `ThrottledDevice`s for other ratios):
  each side runs on its own device, in its own thread, at the same time (the compiled kernels release the
  GIL). A side's time is its device's `Timing.dedicated_s` where the device reports it (a serial kernel's
  thread CPU time, immune to other processes' pre-emptions), else its wall time; the run's time is the slower
  side plus the merge.
- simulated devices (the shipped `seed004`: Xeon E5-2650 ×2 + Tesla K40c): the kernels run for real (the
  result is the real one), and each side's time comes from its device's model applied to the operation
  counts the kernels report (`simulated_seconds`), so the best threshold still depends on the input.

The first device of a real platform runs the CPU algorithm, the second the GPU algorithm; on a simulated
platform the devices' roles decide. A CUDA device as the second device runs the GPU sides' numba-cuda kernels
(apps/_split_cc_cuda.py, apps/_split_spmm_cuda.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from apportion.errors import InputError
from apportion.platform.cpu import CPUDevice
from apportion.platform.device import KIND_GPU, Device, KernelSet, Work
from apportion.platform.platform import Platform, resolve_platform
from apportion.platform.simulated import SimulatedDevice
from apportion.platform.throttled import ThrottledDevice

#: CPU threads of a simulated CPU side: seed 004's machine has 2 × 10 cores (§III-B.1)
SIMULATED_CPU_THREADS = 20
#: threads that run in lock-step on a simulated GPU (a warp, §III-B.1)
WARP = 32


@dataclass(frozen=True)
class DevicePair:
    """The device that runs the CPU algorithm and the one that runs the GPU algorithm."""

    cpu: Device
    gpu: Device
    simulated: bool
    platform_name: str

    @property
    def cpu_threads(self) -> int:
        """How many parts the CPU side divides its share into (Algorithm 1 line 6): one per thread."""
        if self.simulated:
            return SIMULATED_CPU_THREADS
        device = self.cpu
        while isinstance(device, ThrottledDevice):
            device = device.inner
        return device.threads if isinstance(device, CPUDevice) else 1

    def speed_ratio(self) -> float:
        """The CPU side's share of the two devices' nominal speed (peak FLOP/s), for NaiveStatic."""
        cpu, gpu = self.cpu.peak_flops, self.gpu.peak_flops
        if not cpu or not gpu:
            raise InputError(f"platform {self.platform_name}: the devices' speeds are unknown")
        return float(cpu) / (float(cpu) + float(gpu))


def device_pair(platform: Any) -> DevicePair:
    """The CPU side and the GPU side of `platform` (a Platform, a shipped name or a file; module docstring)."""
    platform = platform if isinstance(platform, Platform) else resolve_platform(platform)
    devices = list(platform.devices)
    if len(devices) < 2:
        raise InputError(f"platform {platform.name}: a split algorithm needs two devices, it has {len(devices)}")
    if platform.simulated:
        cpus = [d for d in devices if isinstance(d, SimulatedDevice) and d.role != KIND_GPU]
        gpus = [d for d in devices if isinstance(d, SimulatedDevice) and d.role == KIND_GPU]
        if not cpus:  # seed002's GPU nodes: the CPU side was the GPU side itself
            raise InputError(f"platform {platform.name}: a split algorithm's CPU side needs a CPU device (its "
                             "devices are all GPUs)")
        cpu = cpus[0]
        gpu = gpus[0] if gpus else next(d for d in devices if d is not cpu)
        return DevicePair(cpu, gpu, True, platform.name)
    cpus = [d for d in devices if d.implementation != KIND_GPU]
    if not cpus:
        raise InputError(f"platform {platform.name}: a split algorithm's CPU side needs a CPU device")
    cpu = cpus[0]
    gpus = [d for d in devices if d.implementation == KIND_GPU]
    return DevicePair(cpu, gpus[0] if gpus else next(d for d in devices if d is not cpu), False, platform.name)


@dataclass
class SplitRun:
    """One run of a split algorithm at one threshold.

    result: the product (SciPy CSR) or the component labels (smallest vertex of each vertex's component).
    time_s: the run's time: the slower side plus the merge (model seconds on a simulated platform).
    device_times_s: each side's time by device name ("merge" for the merge). wall_s: this machine's wall time.
    details: the split (rows or vertices per side), operation counts, rounds, sample statistics.
    """

    result: Any
    threshold: float
    time_s: float
    device_times_s: dict[str, float]
    wall_s: float
    simulated: bool
    details: dict = field(default_factory=dict)


@dataclass
class PartCosts:
    """What `simulated_seconds` says of each part of a run (CPU side, GPU side, merge), in call order.

    fixed: the part that does not grow with the work (the launches, the link latencies, the floor of the
    saturation curve: the time of one operation and one byte each way). transfer: the part that grows with the
    bytes moved over the link (the transfers less their latencies), which grows with the input's size at
    another pace than the operations. The scaled timing of the threshold estimators uses both."""

    fixed: list = field(default_factory=list)
    transfer: list = field(default_factory=list)

    def details(self) -> dict:
        return {"fixed_s": tuple(self.fixed), "transfer_s": tuple(self.transfer)}


def simulated_seconds(device: Device, operations: float, workload: str, *, bytes_in: float = 0.0,
                      bytes_out: float = 0.0, launches: int = 1, costs: PartCosts | None = None) -> float:
    """Seconds `device`'s model needs for `operations` of `workload` (one FLOP each in the model; the platform
    file's efficiency for the workload turns them into a rate), its transfers, and `launches` launches;
    `costs` (optional) receives this part's fixed and transfer seconds (`PartCosts`)."""
    if not isinstance(device, SimulatedDevice):
        raise InputError(f"device {device.name} is not simulated")
    if operations <= 0 and bytes_in <= 0 and bytes_out <= 0:
        if costs is not None:
            costs.fixed.append(0.0)
            costs.transfer.append(0.0)
        return 0.0
    extra_launches = max(0, launches - 1) * device.model.launch_latency_s
    timing = device.estimate(Work(flops=float(operations), bytes_in=float(bytes_in), bytes_out=float(bytes_out),
                                  workload=workload))
    if costs is not None:
        least = device.estimate(Work(flops=1.0 if operations > 0 else 0.0, bytes_in=1.0 if bytes_in > 0 else 0.0,
                                     bytes_out=1.0 if bytes_out > 0 else 0.0, workload=workload))
        costs.fixed.append(least.total_s + extra_launches)
        costs.transfer.append(max(0.0, timing.transfer_s - least.transfer_s))
    return timing.total_s + extra_launches


def _side_seconds(execution) -> float:
    timing = execution.timing
    return timing.dedicated_s if timing.dedicated_s is not None else timing.total_s


#: a real pair of one-thread CPU devices runs the two sides of an input with fewer entries (vertices + edges,
#: rows + nonzeros) one after the other in the calling thread: each side's time is its own thread CPU time
#: either way, and handing a side to the helper thread and waiting for it cost about 100 µs of wall time on a
#: shared 2-core machine, where the sides of a √n-vertex sample run for a few µs (half of a sample run's
#: wall time, which the estimators' overhead counts)
SERIAL_BELOW = 1 << 15


def _times_itself(device: Device) -> bool:
    """Whether `device` reports a run's own thread CPU time (a one-thread CPU device, throttled or not)."""
    while isinstance(device, ThrottledDevice):
        device = device.inner
    return isinstance(device, CPUDevice) and device.threads == 1


def run_both(pair: DevicePair, cpu_job: tuple[Callable, tuple], gpu_job: tuple[Callable, tuple], *,
             entries: int | None = None):
    """Run the CPU side's and the GPU side's (kernel, args) at the same time, each on its own device and thread.

    Returns (cpu_result, gpu_result, cpu_seconds, gpu_seconds, wall_seconds). On a simulated pair the kernels
    run one after the other in this thread and the seconds are None (the caller makes them from the counts).
    An input of fewer than SERIAL_BELOW `entries` on two one-thread CPU devices runs its sides one after the
    other in this thread too, each timed by its own thread CPU time (`SERIAL_BELOW`).
    """
    started = time.perf_counter()
    if pair.simulated:
        cpu_result = KernelSet.coerce(cpu_job[0]).cpu(*cpu_job[1])
        gpu_result = KernelSet.coerce(gpu_job[0]).cpu(*gpu_job[1])
        return cpu_result, gpu_result, None, None, time.perf_counter() - started
    if entries is not None and entries < SERIAL_BELOW and _times_itself(pair.cpu) and _times_itself(pair.gpu):
        cpu, gpu = pair.cpu.run(cpu_job[0], *cpu_job[1]), pair.gpu.run(gpu_job[0], *gpu_job[1])
        return cpu.result, gpu.result, _side_seconds(cpu), _side_seconds(gpu), time.perf_counter() - started
    # the GPU side runs on one long-lived helper thread: starting a thread per run would cost more than a
    # run on a small sample (the estimators make dozens of them)
    gpu_future = _helper().submit(pair.gpu.run, gpu_job[0], *gpu_job[1])
    try:
        cpu_execution = pair.cpu.run(cpu_job[0], *cpu_job[1])
    finally:
        gpu_execution = gpu_future.result()
    outcome = {"cpu": cpu_execution, "gpu": gpu_execution}
    cpu, gpu = outcome["cpu"], outcome["gpu"]
    return cpu.result, gpu.result, _side_seconds(cpu), _side_seconds(gpu), time.perf_counter() - started


_HELPER: list = []


def _helper():
    """The one thread that runs the GPU sides of real pairs (created on first use, a daemon)."""
    if not _HELPER:
        from concurrent.futures import ThreadPoolExecutor

        _HELPER.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="split-gpu-side"))
    return _HELPER[0]


def run_on(device: Device, simulated: bool, kernel: Callable, *args):
    """Run one step (a merge) on `device`: (result, seconds); seconds None on a simulated device."""
    if simulated:
        return KernelSet.coerce(kernel).cpu(*args), None
    execution = device.run(kernel, *args)
    return execution.result, _side_seconds(execution)


def check_percent(threshold: Any, name: str = "threshold") -> float:
    """A percentage threshold 0 ≤ t ≤ 100 as a float."""
    try:
        value = float(threshold)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number from 0 to 100, got {threshold!r}") from None
    if not 0.0 <= value <= 100.0:
        raise InputError(f"{name} must be from 0 to 100 (the CPU's share in percent), got {threshold!r}")
    return value
