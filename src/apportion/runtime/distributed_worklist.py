"""The distributed worklist (seed 003 §4.3, Figs. 9-10): one router joining all devices, a local worklist per
device, work counting on the host and soft priority — what BFS, SSSP and the other worklist apps run on.

An application gives a `WorklistProgram`: the paper's five callbacks in batched form (a batch of items crosses
a thread boundary, never a single item) and the compiled kernel that does the work:

- `pack(vertices, values) -> arrays` and `unpack(arrays) -> (vertices, values)`: items to and from messages;
- `on_send(out_v, out_d, out_dest, count, k) -> (vertices, values, bounds)`: SplitSend (split.py); the default
  `split_send` groups a batch's remote items by owner for `direct` routing (on the `ring` they all go to the
  next device in one message);
- `on_receive(me, owner, values, vertices, values_in) -> (own items, forwarded items, dropped)`: SplitReceive
  (split.py); the default `split_receive_min` keeps owned items, drops an item this device already sent
  something as good for (the halo copy filter of §4.5) and passes the rest on;
- `priority`: True when an item's value is its priority (BFS's level, SSSP's distance) so soft priority can
  defer it (the kernels read the value directly: no per-item call);
- `kernel`: one batch of work with the signature of `apps/_bfs_kernels.bfs_step` (documented there);
- `arc_targets(graph, owner)`: the arc targets the kernel reads instead of the graph's (made per run, so a recovery
  with new owners gets its own);
- `make_extra(n)`: per-device state beyond the values (PageRank's ranks), passed to the kernel last;
  `output(state)` the array whose owned entries are the result (default: the values);
- `gpu_worker`: how a CUDA device runs the program, or None (CUDA devices refused): a factory
  `(device, indptr, indices, weights, owner, me, values, extra) -> state` whose `step(in_v, in_d, budget,
  counts)` does one batch with the graph, the values and the worklist resident on the GPU and `download()`
  brings the values (and the extra state) back (apps/_worklist_cuda.py: BFS, SSSP, CC, PageRank); on threads
  and on Ray alike.

Every device holds a copy of every vertex's value (the paper's layout); owners hold the true values, the others
halo copies. `DistributedWorklist.run()` starts a transport (transports/threads.py) and gathers the owners'
values into one array.

Failures: a device whose run raises `DeviceFailure` (a dead actor, the platform's FaultyDevice) aborts the
attempt; its vertices go to the survivors and the run goes on there (`DistributedWorklist._recover`): from the
survivors' values for monotone apps, from the start for PageRank. Groute has no such thing.
"""

from __future__ import annotations

import time
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from numba import njit

from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.platform.cpu import CPUDevice
from apportion.platform.device import KIND_CPU, Device, DeviceFailure
from apportion.platform.platform import resolve_platform
from apportion.runtime.placement import Placement
from apportion.runtime.policies import Policy, resolve_policy
from apportion.runtime.priority import SoftPriority
from apportion.runtime.router import Router
from apportion.runtime.split import split_receive_min, split_send
from apportion.runtime.endpoint import Endpoint
from apportion.runtime.termination import WorkCounter
from apportion.runtime.transports.ray import run_ray
from apportion.runtime.transports.threads import run_threads
from apportion.runtime.worklist import Inbox, LocalWorklist
from apportion.schedule.trace import Trace

#: items a worker processes per kernel call before it returns to send and receive
DEFAULT_BATCH = 4096
TRANSPORTS = ("threads", "ray")
#: an item must reach its owner: the ring passes it on, direct sends it there ("any" is for scatter)
WORKLIST_ROUTINGS = ("ring", "direct")


@dataclass
class WorklistProgram:
    """What an application gives the distributed worklist (module docstring)."""

    name: str
    kernel: Callable
    weights: np.ndarray  # per-arc weights the kernel reads (ones for BFS)
    initial_value: Any  # "unreached" (inf or a large integer)
    dtype: np.dtype
    priority: bool = False
    on_send: Callable = split_send
    on_receive: Callable = split_receive_min
    make_extra: Callable = lambda n: np.empty(0, dtype=np.float64)
    output: Callable = lambda state: state.values
    recovery: str = "monotone"  # or "restart" (module docstring, "Failures")
    gpu_worker: Callable | None = None  # a CudaKernel naming the GPU worker factory (module docstring)
    #: `arc_targets(graph, owner) -> indices`: the arc targets the kernel reads, made for the run's owners (PageRank
    #: marks other devices' neighbours by a negative id so that its inner loop reads no owner); None: the graph's
    arc_targets: Callable | None = None
    #: `out_capacity(n, batch, max_degree) -> items` of each device's out buffers; None: 2 batch + max degree + 1
    out_capacity: Callable | None = None

    @staticmethod
    def pack(vertices: np.ndarray, values: np.ndarray) -> tuple:
        return vertices, values

    @staticmethod
    def unpack(arrays: tuple) -> tuple:
        return arrays[0], arrays[1]


@dataclass
class DeviceState:
    """One device's part of a run: its vertex values (all n), worklist, inbox and counters."""

    index: int
    device: Device
    values: np.ndarray
    worklist: LocalWorklist
    inbox: Inbox = field(default_factory=Inbox)
    out_v: np.ndarray | None = None
    out_d: np.ndarray | None = None
    out_dest: np.ndarray | None = None
    extra: np.ndarray | None = None
    work_items: int = 0
    edges: int = 0
    batches: int = 0
    dropped: int = 0
    failed: bool = False
    gathered: np.ndarray | None = None  # the output a remote transport sent back


@dataclass
class RunResult:
    """The outcome of one worklist run (every app returns one).

    `values` one entry per vertex; `time_s` the run from the seeds to the last device stopping (placement
    excluded: `placement.time_s`); `work_items` items taken off the worklists and processed, over all devices;
    `messages` / `bytes_moved` router traffic (packets and their bytes); `trace` per-device intervals (compute =
    busy, transfer = sending, idle = waiting, failed = the device died); `per_device` work items per device;
    `priority_raises` how often the system-wide soft-priority threshold rose (each one waits for every device
    to be idle), `priority_run_aheads` how often one idle device raised its own threshold while others worked
    (priority.py, `SoftPriority._try_run_ahead`); `delta` the Δ used (None: no priority);
    `failures` the devices that died, `recovery_s` the seconds from the first failure to the restarted run;
    `segments` the segments each device processed (apps that scatter segments by availability: topology-driven
    CC, PBF; empty for worklist runs).
    """

    values: np.ndarray
    time_s: float
    work_items: int
    messages: int
    bytes_moved: int
    trace: Trace = field(repr=False)  # thousands of intervals
    placement: Placement | None = field(repr=False)  # None for apps without one (topology-driven CC)
    devices: list[str] = field(default_factory=list)
    per_device: list[int] = field(default_factory=list)
    routing: str = "ring"
    transport: str = "threads"
    delta: float | None = None
    priority_raises: int = 0
    priority_run_aheads: int = 0
    edges_relaxed: int = 0
    failures: list[str] = field(default_factory=list)
    recovery_s: float = 0.0
    segments: list[int] = field(default_factory=list)
    phases: int = 1  # worklist runs of the query (PageRank's a-posteriori test may ask for more than one)

    def summary(self) -> dict:
        """JSON-ready figures (no per-vertex values)."""
        placed = self.placement is not None
        return {"time_s": self.time_s, "placement_s": self.placement.time_s if placed else 0.0,
                "placement": self.placement.method if placed else None,
                "work_items": self.work_items, "messages": self.messages, "bytes_moved": self.bytes_moved,
                "devices": self.devices, "per_device_work_items": self.per_device, "routing": self.routing,
                "transport": self.transport, "delta": self.delta, "priority_raises": self.priority_raises,
                "priority_run_aheads": self.priority_run_aheads,
                "edges_relaxed": self.edges_relaxed, "failures": self.failures, "recovery_s": self.recovery_s,
                "per_device_segments": self.segments, "phases": self.phases}


@njit(cache=True, nogil=True)
def take_owned(values, output, owner, me):
    """values[v] = output[v] for every v that `me` owns (a select per entry: no branch to mispredict)."""
    for v in range(values.shape[0]):
        values[v] = output[v] if owner[v] == me else values[v]


#: devices of one run at most: each is two threads and its own n-entry values and worklist (a count of 10^20 was
#: taken, and ate memory until the machine ran out)
MAX_DEVICES = 256


def resolve_devices(devices) -> list[Device]:
    """Devices for a run: a count (that many one-thread CPU devices), a list of devices, or a platform (a name or
    file). Simulated devices (they have no real time) are refused; whether a CUDA device can run the program is
    checked by `DistributedWorklist` (the program's `gpu_worker`)."""
    if isinstance(devices, bool):
        raise InputError(f"devices must be a count, a list of devices or a platform, got {devices!r}")
    if isinstance(devices, (int, np.integer)):
        if not 1 <= devices <= MAX_DEVICES:
            raise InputError(f"devices must be between 1 and {MAX_DEVICES}, got {devices}")
        return [CPUDevice(1, name=f"cpu{i}") for i in range(int(devices))]
    if isinstance(devices, (list, tuple)):
        if not devices or not all(isinstance(d, Device) for d in devices):
            raise InputError("devices: a list needs at least one apportion.platform Device and only devices")
        chosen = list(devices)
    elif isinstance(devices, (str, Path)):
        chosen = list(resolve_platform(devices).devices)
    else:
        raise InputError(f"devices must be a count, a list of devices or a platform, got {devices!r}")
    if len(chosen) > MAX_DEVICES:
        raise InputError(f"devices: at most {MAX_DEVICES}, got {len(chosen)}")
    for device in chosen:
        if device.is_simulated:
            raise InputError(f"device {device.name} is simulated: the runtime needs real devices (CPU, throttled, "
                             "faulty)")
    return chosen


def check_source(graph: Graph, source) -> int:
    """The source vertex as an int, or InputError when it is not a vertex of `graph`."""
    if isinstance(source, bool) or not isinstance(source, (int, np.integer)):
        raise InputError(f"source must be a vertex id (an integer), got {source!r}")
    if graph.n == 0:
        raise InputError("the graph has no vertices: there is no source")
    if not 0 <= int(source) < graph.n:
        raise InputError(f"source {int(source)} is out of range: the graph has {graph.n} vertices (0..{graph.n - 1})")
    return int(source)


class DistributedWorklist:
    """The devices, router, counter and priority of one run of `program` on `graph`."""

    def __init__(self, graph: Graph, program: WorklistProgram, devices: list[Device], placement: Placement,
                 routing: "str | Policy" = "ring", delta: float | None = None, batch: int = DEFAULT_BATCH,
                 packet_size: int = 1 << 16, buffers: int = 4, run_ahead: bool = False):
        self.graph = graph
        self.program = program
        self.devices = devices
        self.k = len(devices)
        self.placement = placement.check(graph, self.k)
        for device in devices:
            if device.implementation != KIND_CPU and program.gpu_worker is None:
                raise InputError(f"device {device.name} is a CUDA device: {program.name} has no GPU worker kernels "
                                 "yet (BFS, SSSP, CC and PageRank have)")
        self.owner = np.ascontiguousarray(placement.owner, dtype=np.int32)
        self.indices = graph.indices if program.arc_targets is None else program.arc_targets(graph, self.owner)
        if isinstance(routing, str) and routing not in WORKLIST_ROUTINGS:
            raise InputError(f"unknown routing {routing!r} for a distributed worklist; choose one of "
                             f"{', '.join(WORKLIST_ROUTINGS)}")
        self.routing_name = routing if isinstance(routing, str) else getattr(routing, "__name__", "custom")
        self.policy = resolve_policy(routing)
        if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
            raise InputError(f"batch must be a whole number of items >= 1, got {batch!r}")  # 0 never progressed
        self.batch = int(batch)
        endpoints = [Endpoint.device(i) for i in range(self.k)]
        self.router = Router([Endpoint.host(), *endpoints], endpoints, self.policy, packet_size, buffers)
        self.counter = WorkCounter(on_zero=self.router.shutdown)
        self.priority = SoftPriority(delta if program.priority else None, self.k, self.counter, run_ahead)
        self.states = []
        n = graph.n
        max_degree = int(np.max(np.diff(graph.indptr))) if n else 0
        out_capacity = (2 * self.batch + max_degree + 1 if program.out_capacity is None
                        else int(program.out_capacity(n, self.batch, max_degree)))
        for i, device in enumerate(devices):
            state = DeviceState(i, device, np.full(n, program.initial_value, dtype=program.dtype), LocalWorklist(n))
            state.out_v = np.empty(out_capacity, dtype=np.int64)
            state.out_d = np.empty(out_capacity, dtype=program.dtype)
            state.out_dest = np.empty(out_capacity, dtype=np.int32)
            state.extra = program.make_extra(n)
            self.priority.listen(state.inbox.wake)
            self.states.append(state)
        self.trace = Trace([d.name for d in devices])
        self.trace_index = list(range(self.k))
        self.t0 = 0.0
        self.t0_wall = 0.0
        self.t_started = 0.0
        self.aborted = False
        self.delta = delta

    def run(self, seeds: np.ndarray, seed_values: np.ndarray, transport: str = "threads",
            cluster: str | None = None) -> RunResult:
        """Send the seed items from the host, run until the count is zero, gather the owners' values.

        `transport`: "threads" (this process) or "ray" (one actor per device on the cluster `cluster`, else
        RAY_ADDRESS, else a local one). On threads a device that dies (DeviceFailure) is dropped and the run goes
        on on the survivors (see `_recover`); when every device died, or on Ray, the DeviceFailure is raised."""
        if transport not in TRANSPORTS:
            raise InputError(f"unknown transport {transport!r}; choose one of {', '.join(TRANSPORTS)}")
        seeds = np.asarray(seeds, dtype=np.int64)
        seed_values = np.asarray(seed_values, dtype=self.program.dtype)
        started = time.perf_counter()
        attempt = self
        attempt.t0 = started
        attempt.t0_wall = time.time()  # remote actors stamp their intervals with the wall clock
        attempts = [attempt]
        failures: list[str] = []
        recovery_started = None
        while True:
            if transport == "ray":
                run_ray(attempt, seeds, seed_values, cluster)
            else:
                run_threads(attempt, seeds, seed_values)
            dead = [state for state in attempt.states if state.failed]
            if not dead:
                break
            failures += [state.device.name for state in dead]
            if recovery_started is None:
                recovery_started = time.perf_counter()
            attempt, seeds, seed_values = attempt._recover(seeds, seed_values)
            attempts.append(attempt)
        elapsed = time.perf_counter() - started
        values = None
        for state in attempt.states:
            output = state.gathered if state.gathered is not None else self.program.output(state)
            if values is None:  # the first device's array, then every other owner's entries over it
                values = np.array(output, copy=True)
            else:  # compiled and branch-free (boolean indexing with a scattered mask took ~20 ms at n = 2^20)
                take_owned(values, np.ascontiguousarray(output), attempt.owner, state.index)
        per_device = [0] * self.k
        for each in attempts:
            for state in each.states:
                per_device[each.trace_index[state.index]] += state.work_items
        return RunResult(values=values, time_s=elapsed, work_items=sum(per_device),
                         messages=sum(a.router.packets_sent for a in attempts),
                         bytes_moved=sum(a.router.bytes_sent for a in attempts), trace=self.trace,
                         placement=self.placement, devices=[d.name for d in self.devices], per_device=per_device,
                         routing=self.routing_name, transport=transport, delta=self.priority.delta,
                         priority_raises=sum(a.priority.raises for a in attempts),
                         priority_run_aheads=sum(a.priority.run_aheads for a in attempts),
                         edges_relaxed=sum(s.edges for a in attempts for s in a.states), failures=failures,
                         recovery_s=0.0 if recovery_started is None else attempt.t_started - recovery_started)

    def _recover(self, seeds: np.ndarray, seed_values: np.ndarray):
        """A new run on the surviving devices after some died: (run, seeds, seed values).

        The dead devices' vertices go to the survivors (equal shares, in vertex order). With "monotone" recovery
        (BFS, SSSP, CC: values only decrease and every value ever written is achievable — a real path length,
        a real label) each vertex restarts from the least value any survivor holds for it (its owner's value
        or a halo copy; an original seed's value when lower), and every vertex with a value is a seed: a label-correcting run from valid upper
        bounds reaches the same fixpoint. The dead device's own progress is lost, not its correctness. With
        "restart" (PageRank, whose residuals are not monotone) the survivors rerun from the original seeds.
        """
        survivors = [state for state in self.states if not state.failed]
        if not survivors:
            raise DeviceFailure("every device of the run failed")
        new_index = {state.index: position for position, state in enumerate(survivors)}
        owner = self.owner.copy()
        orphans = np.flatnonzero(np.isin(owner, [s.index for s in self.states if s.failed]))
        remap = np.full(self.k, -1, dtype=np.int32)
        for old, new in new_index.items():
            remap[old] = new
        owner = remap[owner]
        owner[orphans] = (np.arange(len(orphans)) * len(survivors) // max(len(orphans), 1)).astype(np.int32)
        placement = Placement(owner=owner, k=len(survivors), method=self.placement.method + "+recovered",
                              seed=self.placement.seed, time_s=0.0, cut=self.placement.cut)
        run = DistributedWorklist(self.graph, self.program, [s.device for s in survivors], placement,
                                  routing=self.policy, delta=self.delta, batch=self.batch,
                                  packet_size=self.router.packet_size, buffers=self.router.buffers,
                                  run_ahead=self.priority.run_ahead)
        run.routing_name = self.routing_name
        run.trace = self.trace
        run.trace_index = [self.trace_index[s.index] for s in survivors]
        run.t0 = self.t0
        run.t0_wall = self.t0_wall
        run.t_started = time.perf_counter()
        if self.program.recovery == "restart":
            return run, seeds, seed_values
        recovered = np.minimum.reduce([state.values for state in survivors])
        np.minimum.at(recovered, seeds, seed_values)  # the original seeds are valid too (a dead source owner)
        reached = np.flatnonzero(recovered != self.program.initial_value)
        run.t_started = time.perf_counter()
        return run, reached.astype(np.int64), recovered[reached]
