"""The Device contract: anything that runs a kernel on a piece of work and says how long it took.

A *device* (seed 000 ch. 3.2: a "processor" of the heterogeneous system) is a CPU thread pool, a CUDA GPU, a
remote worker on Ray, a slowed-down real device, or a simulated device driven by a performance model. Every
runtime in apportion talks to devices only through this module:

    execution = device.run(kernels, *args)     # -> Execution(result, timing, started, finished)

`kernels` is a `KernelSet` (one implementation per device kind) or a plain callable (a CPU kernel); the device
picks the implementation it can run (`device.select(kernels)`), never the caller. `Timing` splits the time of
one run into transfer (host <-> device), launch and compute seconds, which is what a `Trace` records.

A device that dies raises `DeviceFailure` from `run`; schedulers then re-run its work elsewhere.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from apportion.errors import InputError, UnavailableError

#: device kinds; a kernel set has one implementation per *implementation kind* ("cpu" or "gpu")
KIND_CPU = "cpu"
KIND_GPU = "gpu"


@dataclass(frozen=True)
class KernelSet:
    """The implementations of one kernel: `cpu` (Numba/NumPy, required), `gpu` (CuPy, optional) and
    `cpu_parallel` (a Numba `parallel=True` variant a multi-thread CPUDevice uses when present).

    Every implementation takes the same positional arguments and returns the same kind of result (a GPU kernel
    receives host arrays and returns host arrays; the CUDA device handles the copies).
    """

    cpu: Callable[..., Any]
    gpu: Callable[..., Any] | None = None
    cpu_parallel: Callable[..., Any] | None = None
    name: str = "kernel"

    @staticmethod
    def coerce(kernels: "KernelSet | Callable | Mapping[str, Callable]") -> "KernelSet":
        """Accept a KernelSet, a callable (the CPU kernel) or a mapping {"cpu": f, "gpu": g, "cpu_parallel": h}."""
        if isinstance(kernels, KernelSet):
            return kernels
        if callable(kernels):
            return KernelSet(cpu=kernels, name=getattr(kernels, "__name__", "kernel"))
        if isinstance(kernels, Mapping):
            unknown = set(kernels) - {"cpu", "gpu", "cpu_parallel", "name"}
            if unknown or "cpu" not in kernels:
                raise InputError("kernels: a mapping needs a 'cpu' callable and may have 'gpu', 'cpu_parallel' "
                                 f"(got keys {sorted(kernels)})")
            return KernelSet(cpu=kernels["cpu"], gpu=kernels.get("gpu"), cpu_parallel=kernels.get("cpu_parallel"),
                             name=kernels.get("name", getattr(kernels["cpu"], "__name__", "kernel")))
        raise InputError(f"kernels: expected a callable, a mapping or a KernelSet, got {type(kernels).__name__}")


@dataclass(frozen=True)
class LinkCost:
    """A host <-> device connection: a message costs `latency_s + nbytes / bandwidth_Bps` seconds."""

    latency_s: float
    bandwidth_Bps: float

    def transfer_time(self, nbytes: float) -> float:
        """Seconds to move `nbytes` one way (0 bytes cost nothing: no message is sent)."""
        if nbytes <= 0:
            return 0.0
        return self.latency_s + float(nbytes) / self.bandwidth_Bps


@dataclass(frozen=True)
class Work:
    """The size of one run, for performance models: floating-point operations, bytes copied to the device and
    back, and how many equal chunks it bundles (each unbundled chunk pays its own launch)."""

    flops: float
    bytes_in: float = 0.0
    bytes_out: float = 0.0
    chunks: int = 1
    workload: str = "default"

    def __add__(self, other: "Work") -> "Work":
        return Work(self.flops + other.flops, self.bytes_in + other.bytes_in, self.bytes_out + other.bytes_out,
                    self.chunks + other.chunks, self.workload)

    def scaled(self, factor: float) -> "Work":
        return Work(self.flops * factor, self.bytes_in * factor, self.bytes_out * factor,
                    max(1, int(round(self.chunks * factor))), self.workload)


@dataclass(frozen=True)
class Timing:
    """Where the seconds of one run went: host->device and device->host copies, kernel launch, compute.

    `dedicated_s` (optional) is what the run would have taken on a device nobody else shares: a serial host
    kernel's thread CPU time (immune to pre-emption by other processes), times the factor of any throttling
    around it. None when the device cannot tell (GPUs, remote and multi-threaded devices); `ThrottledDevice`
    slows by it when present, else by the wall time.
    """

    transfer_s: float = 0.0
    launch_s: float = 0.0
    compute_s: float = 0.0
    transfer_in_s: float | None = None  # the part of transfer_s before the compute (None: all of it)
    dedicated_s: float | None = None

    @property
    def total_s(self) -> float:
        return self.transfer_s + self.launch_s + self.compute_s

    @property
    def before_compute_s(self) -> float:
        return self.transfer_s if self.transfer_in_s is None else self.transfer_in_s


@dataclass(frozen=True)
class Execution:
    """The outcome of `Device.run`: the kernel's result, its Timing, and wall-clock start/end (perf_counter)."""

    result: Any
    timing: Timing
    started: float
    finished: float


class DeviceFailure(RuntimeError):
    """The device died (a killed Ray actor, an injected fault): the work it held must be re-run elsewhere."""


@dataclass
class Device:
    """Base class of every device.

    Attributes: `name` (unique in a platform), `kind` ("cpu", "gpu", "remote", "simulated" ...), `implementation`
    (which KernelSet member it runs: "cpu" or "gpu"), `bundles` (True when work sent to it should be merged into
    one transfer + one launch, as seed 000's load bundler does for GPUs), `peak_flops` (the device's speed in
    FLOP/s, for static splits by FLOPS, CPM and placement: measured for CPU devices (`platform.calibrate`), the
    inner device's ÷ factor for throttled ones, nominal for GPUs and simulated models; None when unknown), `link` (host <-> device LinkCost, None for host devices).

    Subclasses implement `_execute(kernel, args) -> (result, Timing)`; `run` adds the wall-clock stamps.
    """

    name: str
    kind: str = KIND_CPU
    implementation: str = KIND_CPU
    bundles: bool = False
    peak_flops: float | None = None
    link: LinkCost | None = None
    is_simulated: bool = field(default=False, init=False)

    def select(self, kernels: KernelSet | Callable | Mapping) -> Callable[..., Any]:
        """The implementation of `kernels` this device runs (its `implementation` member, else the CPU one)."""
        kernel_set = KernelSet.coerce(kernels)
        if self.implementation == KIND_GPU:
            if kernel_set.gpu is None:
                raise UnavailableError(f"kernel {kernel_set.name!r} has no GPU implementation for device {self.name}")
            return kernel_set.gpu
        return kernel_set.cpu

    def run(self, kernels: KernelSet | Callable | Mapping, *args: Any, work: "Work | None" = None) -> Execution:
        """Run the device's implementation of `kernels` on `args`; raise DeviceFailure if the device died.

        `work` (FLOPs and bytes of this run) is needed only by simulated devices, whose Timing comes from their
        model; real devices measure and ignore it.
        """
        started = time.perf_counter()
        result, timing = self._execute(kernels, args) if work is None or not self.is_simulated \
            else self._execute_with_work(kernels, args, work)
        return Execution(result=result, timing=timing, started=started, finished=time.perf_counter())

    def warm_up(self, kernels: KernelSet | Callable | Mapping, *args: Any) -> float:
        """Run `kernels` once, untimed, so that no timed run pays for compilation (Numba's first call, CuPy's
        kernel build, a Ray worker's import); returns the seconds it took. Wrappers warm the device they wrap
        (a throttled device does not sleep through its inner device's compilation; a faulty one does not count
        the warm-up as a run); simulated devices have nothing to warm."""
        started = time.perf_counter()
        self._execute(kernels, args)
        return time.perf_counter() - started

    def _execute(self, kernels, args) -> tuple[Any, Timing]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _execute_with_work(self, kernels, args, work: "Work") -> tuple[Any, Timing]:
        return self._execute(kernels, args)

    def describe(self) -> dict:
        """A JSON-ready description (name, kind, peak FLOP/s, link)."""
        out = {"name": self.name, "kind": self.kind, "bundles": self.bundles}
        if self.peak_flops is not None:
            out["peak_gflops"] = self.peak_flops / 1e9
        if self.link is not None:
            out["link"] = {"latency_us": self.link.latency_s * 1e6, "bandwidth_gbs": self.link.bandwidth_Bps / 1e9}
        return out

    def close(self) -> None:
        """Release what the device holds (threads, actors). Safe to call twice."""

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other
