"""Scatter by availability on Ray actors (seed 003 §3, Figs. 5-6: the host's segments go to whichever device is
free, the `AnyDevicePolicy` router; §5.1.4: topology-driven connected components hand out edge segments that
way; §5.3: the faster device takes more).

The Ray counterpart of `runtime.scatter` (threads), which calls it for `transport="ray"`: the same arguments and
the same counts (`scatter` builds its `ScatterRun` from them), so an app runs on either transport unchanged.
Every device becomes a `ScatterActor` that holds the device itself (a `CPUDevice`, `ThrottledDevice`, ...
shipped to the actor) and its own copy of the device's kernel arguments. The driver puts
every segment into the object store once, keeps `buffers` calls in flight per actor (one by default: a device
holds one segment at a time) and waits on whichever call finishes first (`ray.wait`); that actor gets the next
segment, so a device that finishes sooner asks sooner and processes more. The actor runs the kernel through
its `device.run`, as a worker thread does, so a throttled device is slower there too.

A device's kernel arguments are its state (CC's union-find forest): the kernel changes the actor's copy, and
when every segment is done the driver fetches the survivors' copies and writes their NumPy arrays back into the
host's arrays, where the threads transport's kernels wrote them all along. A dead device's arrays on the host
stay as they were.

A device dies when its actor does (`RayActorError`, e.g. its process exited) or when its device raises
`DeviceFailure` inside the actor. What it computed dies with it: the segments it held and every segment it had
finished go back to the queue for the survivors (the same rule as on threads), and a survivor's state is only
taken once nothing is left to redo. Every device dead: DeviceFailure. Any other error in an actor is raised
with its own type.

Actors are pooled as the Ray transport pools its own (`transports/ray.py`, one pool per actor class: reused by
the next scatter of the Ray session, num_cpus=0; `setup` gives them the scatter's device, kernel and arguments);
a dead device's actor is killed, and every actor is killed when the scatter ends with an error. A CUDA device
gets an actor of its own that reserves its GPU (none under the CUDA simulator) and ends with the scatter; its
kernel arguments must be plain host values (topology-driven CC's GPU-resident forest is not, so CC refuses CUDA
devices on Ray).
"""

from __future__ import annotations

import copy
import time
from collections import deque
from typing import Callable

import numpy as np

from apportion.errors import InputError
from apportion.platform.device import KIND_CPU, Device, DeviceFailure
from apportion.platform.ray import actor_class, connect, kill_actors, ray_module
from apportion.runtime.transports.ray import _device_failed, _raise_cause, _return_actors, _take_actors
from apportion.schedule.trace import Trace


class ScatterActor:
    """One device of a scatter on a Ray actor: the device, the kernel and the device's own kernel arguments."""

    def __init__(self):
        self.device = None

    def setup(self, device, kernel, args, sample):
        """Take one scatter's device, kernel and arguments (writable copies: they are this device's state).

        `sample` (a segment, or None) warms a CPU device up on an empty slice of it and a scratch copy of the
        arguments, so that compiling the kernel in this process is not charged to the first segment."""
        self.device, self.kernel = device, kernel
        self.args = tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in args)
        if sample is not None and device.implementation == KIND_CPU:
            try:
                device.warm_up(kernel, *copy.deepcopy(self.args), *(a[:0] for a in sample))
            except Exception:  # noqa: BLE001 - a kernel that refuses an empty segment compiles on its first one
                pass
        return True

    def process(self, segment):
        """Run the kernel on one segment; returns (its result, wall-clock start, wall-clock end)."""
        started = time.time()
        execution = self.device.run(self.kernel, *self.args, *segment)
        return execution.result, started, time.time()

    def state(self):
        """The device's kernel arguments as its segments left them."""
        return self.args

    def ready(self):
        return True


def scatter_ray(messages: list[tuple], devices: list[Device], kernel: Callable, device_args: list[tuple],
                buffers: int = 1, collect: Callable | None = None, cluster: str | None = None) -> dict:
    """`runtime.scatter` with one Ray actor per device (see the module); `cluster` as in `platform.ray.connect`.

    `collect(i, arrays, result)` runs on the driver with the host's own arrays of the segment. Returns the fields
    of a `runtime.scatter.ScatterRun` (segments, items, messages, bytes_moved, trace, failures, failed, time_s)."""
    if isinstance(buffers, bool) or not isinstance(buffers, int) or buffers < 1:
        raise InputError(f"buffers must be an integer >= 1 (calls in flight per actor), got {buffers!r}")
    ray = ray_module()
    k = len(devices)
    connect(cluster, local_cpus=max(2, k) if cluster is None else None)
    t0, t0_wall = time.perf_counter(), time.time()
    trace = Trace([d.name for d in devices])
    refs = [ray.put(tuple(message)) for message in messages]  # once each, even when a segment is redone
    on_gpu = [d.implementation != KIND_CPU for d in devices]
    stateful = [any(isinstance(a, np.ndarray) for a in args) for args in device_args]
    actors: list = []
    driver = _Driver(ray, messages, refs, devices, actors, buffers, collect, trace, t0_wall)
    clean = False
    try:
        pooled = _take_actors(ray, on_gpu.count(False), ScatterActor)
        made = actor_class(ScatterActor)
        for device, gpu in zip(devices, on_gpu):  # one by one: on an error the ones made so far are killed
            actors.append(made.options(num_cpus=0, num_gpus=0.0 if getattr(device, "on_simulator", False) else 1.0)
                          .remote() if gpu else pooled.pop(0))
        setups = [actor.setup.remote(device, kernel, args, refs[0] if refs else None)
                  for actor, device, args in zip(actors, devices, device_args)]
        for i, ref in enumerate(setups):
            try:
                ray.get(ref)
            except Exception as exc:  # noqa: BLE001 - sorted in `lost`
                driver.lost(i, exc)
        finals = driver.drive(stateful)
        clean = True
    finally:
        survivors = [i for i in range(len(actors)) if i not in driver.failed] if clean else []
        _return_actors(ray, [actors[i] for i in survivors if not on_gpu[i]], ScatterActor)
        kill_actors([actor for i, actor in enumerate(actors) if i not in survivors or on_gpu[i]])
        driver.settle()
    for i, state in finals.items():
        for host, remote in zip(device_args[i], state):
            if isinstance(host, np.ndarray):
                np.copyto(host, remote)
    return {"segments": driver.segments, "items": driver.items, "messages": driver.messages_sent,
            "bytes_moved": driver.bytes_sent, "trace": trace, "failures": driver.failures, "failed": driver.failed,
            "time_s": time.perf_counter() - t0}


class _Driver:
    """The host and router of one Ray scatter: the queue of segments to do, the calls in flight, the counts."""

    def __init__(self, ray, messages, refs, devices, actors, buffers, collect, trace, t0_wall):
        self.ray, self.messages, self.refs, self.devices, self.actors = ray, messages, refs, devices, actors
        self.buffers, self.collect, self.trace, self.t0_wall = buffers, collect, trace, t0_wall
        k = len(devices)
        self.todo = deque(range(len(messages)))
        self.held = [[] for _ in range(k)]  # segments sent to a device and not yet finished
        self.finished = [[] for _ in range(k)]  # segments a device finished (lost if it dies)
        self.alive = list(range(k))
        self.calls: dict = {}  # object ref -> (device, segment index, or None for a `state` call)
        self.epoch = 0  # raised by every death: states fetched before it may miss redone segments
        self.segments, self.items = [0] * k, [0] * k
        self.messages_sent = self.bytes_sent = 0
        self.failures: list[str] = []
        self.failed: list[int] = []
        self.abandoned: list = []  # calls whose answers no longer matter (a dead device's, or after an error)

    def hand_out(self) -> None:
        """Every live device with a free buffer takes the next segment waiting (the first free device first)."""
        for i in self.alive:
            while self.todo and len(self.held[i]) < self.buffers:
                j = self.todo.popleft()
                self.held[i].append(j)
                self.calls[self.actors[i].process.remote(self.refs[j])] = (i, j, self.epoch)
                self.messages_sent += 1
                self.bytes_sent += sum(int(a.nbytes) for a in self.messages[j])

    def lost(self, i: int, exc: BaseException) -> None:
        """Device i failed with `exc`: a death (its segments go back to the queue), or an error that is raised."""
        if not _device_failed(exc, self.ray):
            _raise_cause(exc, self.ray)
        if i not in self.alive:
            return
        self.alive.remove(i)
        self.failures.append(self.devices[i].name)
        self.failed.append(i)
        now = time.time() - self.t0_wall
        self.trace.add(i, 0, "failed", now, now + 1e-6)
        self.todo.extend(self.held[i] + self.finished[i])
        self.held[i], self.finished[i] = [], []
        self.abandoned += [ref for ref, call in self.calls.items() if call[0] == i]
        self.calls = {ref: call for ref, call in self.calls.items() if call[0] != i}
        self.epoch += 1
        if not self.alive:
            raise DeviceFailure("every device of the scatter failed")

    def settle(self) -> None:
        """Collect the abandoned calls' answers once their actors are killed (they fail at once), so that Ray does
        not report their errors as unhandled when the references go."""
        for ref in self.abandoned + list(self.calls):
            try:
                self.ray.get(ref, timeout=30)
            except Exception:  # noqa: BLE001 - expected: a dead device's call
                pass
        self.abandoned, self.calls = [], {}

    def drive(self, stateful: list[bool]) -> dict:
        """Run until every segment is finished by a live device and the live devices' states (where `stateful`)
        are fetched after the last death; returns {device: its kernel arguments}."""
        ray = self.ray
        finals: dict = {}
        while True:
            self.hand_out()
            if not self.calls:
                missing = [i for i in self.alive if stateful[i] and i not in finals]
                if not missing:
                    return finals
                for i in missing:
                    self.calls[self.actors[i].state.remote()] = (i, None, self.epoch)
            ready, _ = ray.wait(list(self.calls), num_returns=1)
            i, j, epoch = self.calls.pop(ready[0])
            try:
                answer = ray.get(ready[0])
            except Exception as exc:  # noqa: BLE001 - sorted in `lost`
                self.lost(i, exc)
                finals.clear()  # a survivor redoes the dead device's segments: its state changes again
                continue
            if j is None:
                if epoch == self.epoch:
                    finals[i] = answer
                continue
            result, started, ended = answer
            self.held[i].remove(j)
            self.finished[i].append(j)
            arrays = self.messages[j]
            self.segments[i] += 1
            self.items[i] += len(arrays[0])
            self.trace.add(i, 0, "compute", started - self.t0_wall, ended - self.t0_wall, chunks=len(arrays[0]))
            if self.collect is not None:
                self.collect(i, arrays, result)
