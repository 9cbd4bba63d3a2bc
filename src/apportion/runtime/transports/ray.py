"""The Ray transport: one actor per device, the driver as host and router (seed 003 §3.1: "the same concepts
of communication and routing can be implemented using message-passing interfaces").

Every device becomes an actor holding its copy of the vertex values, its local worklist and the device itself
(a `CPUDevice`, `ThrottledDevice`, ... shipped to the actor, whose `run` executes the same compiled step kernel
as the threads transport). The driver keeps the work counter and the soft-priority threshold and routes
segments: an actor's `step(batches, threshold, promote)` applies the incoming batches (SplitReceive on the
ring: owned items kept, useless ones dropped, the rest passed on), processes a batch of its worklist and
returns its outgoing messages (SplitSend) and counts; the driver adds the counts (before routing the messages:
count before send) and queues each message for the actor the routing policy names. An actor is called again as
soon as it has something to do; the driver waits on whichever call finishes first (`ray.wait`), so devices run
asynchronously. Segments travel as NumPy arrays through Ray's object store.

Actors are reused across queries: starting one (a worker process that imports apportion and loads the compiled
kernels) took seconds, 20-30 times a query's run, so a query's actors go back to a pool when it ends cleanly and
the next query in the same Ray session takes them (`WorklistActor.setup` gives them the new query's state; the
graph's arrays are put into the object store once per graph). Pooled actors reserve no CPU (`num_cpus=0`,
spread over the nodes), so an idle pool never keeps other actors (RayDevice, the stencil workers) from starting;
actors of a query that failed are killed, never pooled; `release_actors()` ends the pool (it ends with the Ray
session anyway). The pool is kept per actor class: the scatter transport (`ray_scatter.py`) pools its own actors
the same way.

`cluster`: an address (`HOST:PORT`), else RAY_ADDRESS, else a local cluster (`platform.ray.connect`).
A killed actor (`RayActorError`) or a device dying inside one (`DeviceFailure`) ends the attempt: the survivors'
values are fetched and `DistributedWorklist` recovers on them as for threads.
"""

from __future__ import annotations

import threading
import time
import weakref

import numpy as np

from apportion.platform.device import KIND_CPU, DeviceFailure
from apportion.platform.ray import actor_class, connect, kill_actors, ray_module
from apportion.runtime.worklist import LocalWorklist, wl_min_deferred

class WorklistActor:
    """One device of a distributed worklist on a Ray actor (made one by `platform.ray.actor_class`): its values,
    worklist and out buffers — on the GPU for a CUDA device (the program's `gpu_worker`, as on threads)."""

    def __init__(self):
        self.program = None

    def setup(self, device, index, k, indptr, indices, owner, program, n, batch, out_capacity, splits,
              plain_indices=None):
        """Take one query's device, graph and program, with fresh values and worklist (a pooled actor is reused)."""
        self.device, self.me, self.k = device, index, k
        self.indptr, self.indices = indptr, indices
        self.owner, self.program, self.batch, self.splits = owner, program, batch, splits
        self.values = np.full(n, program.initial_value, dtype=program.dtype)
        self.worklist = LocalWorklist(n)
        self.extra = program.make_extra(n)
        self.out_v = np.empty(out_capacity, dtype=np.int64)
        self.out_d = np.empty(out_capacity, dtype=program.dtype)
        self.out_dest = np.empty(out_capacity, dtype=np.int32)
        self.counts = np.zeros(6, dtype=np.int64)
        self.resident = None
        if device.implementation != KIND_CPU:  # the GPU worker reads the graph's own arc targets
            self.resident = program.gpu_worker(device, indptr, indices if plain_indices is None else plain_indices,
                                               program.weights, owner, index, self.values, self.extra)
        return True

    def step(self, batches, threshold, promote):
        program, me = self.program, self.me
        own_v, own_d, forwards, dropped = [], [], [], 0
        for vertices, values in batches:
            if self.splits or self.k <= 2:  # every item that reaches this actor is its own (threads.py)
                own_v.append(vertices)
                own_d.append(values)
                continue
            ov, od, fv, fd, gone = program.on_receive(me, self.owner, self.values, vertices, values)
            own_v.append(ov)
            own_d.append(od)
            dropped += int(gone)
            if len(fv):
                forwards.append((fv, fd))
        in_v = np.concatenate(own_v) if own_v else np.empty(0, dtype=np.int64)
        in_d = np.concatenate(own_d) if own_d else np.empty(0, dtype=program.dtype)
        wl = self.worklist
        flags, queue, qstate, deferred, dstate = wl.arrays()
        started = time.time()
        if self.resident is None:
            self.device.run(program.kernel, self.indptr, self.indices, program.weights, self.owner, me,
                            self.values, flags, queue, qstate, deferred, dstate, in_v, in_d, float(threshold),
                            self.batch, bool(promote), self.out_v, self.out_d, self.out_dest, self.counts,
                            self.extra)
        else:  # the GPU processes its whole queue and defers nothing (apps/_worklist_cuda.py)
            self.out_v, self.out_d, self.out_dest, _, _ = self.resident.step(in_v, in_d, self.batch, self.counts)
            qstate[2] = self.resident.queued
        finished = time.time()
        processed, pushed, consumed_in, n_out, edges = (int(c) for c in self.counts[:5])
        messages = [(None, fv, fd) for fv, fd in forwards]
        if n_out and self.splits:
            v, d, bounds = program.on_send(self.out_v, self.out_d, self.out_dest, n_out, self.k)
            messages += [(o, v[bounds[o]:bounds[o + 1]], d[bounds[o]:bounds[o + 1]])
                         for o in range(self.k) if bounds[o + 1] > bounds[o]]
        elif n_out:
            messages.append((None, self.out_v[:n_out].copy(), self.out_d[:n_out].copy()))
        min_deferred = wl_min_deferred(flags, deferred, dstate, self.values) if wl.queued == 0 else np.inf
        return {"processed": processed, "produced": pushed + n_out,
                "consumed": processed + consumed_in + dropped, "edges": edges, "messages": messages,
                "queued": wl.queued, "deferred": wl.deferred_count, "min_deferred": float(min_deferred),
                "started": started, "finished": finished}

    def ready(self):
        return True

    def output(self):
        if self.resident is not None:
            self.resident.download()
        return self.program.output(self)

    def values_array(self):
        if self.resident is not None:
            self.resident.download()
        return self.values


def run_ray(run, seeds: np.ndarray, seed_values: np.ndarray, cluster: str | None = None) -> None:
    """Run the distributed worklist `run` on one Ray actor per device; fills the states' counters and values
    (the owners' output entries) so that `DistributedWorklist.run` gathers them as for threads."""
    ray = ray_module()
    connect(cluster, local_cpus=max(2, run.k) if cluster is None else None)
    indptr, indices = _stored(ray, run.graph.indptr), _stored(ray, run.indices)  # top-level refs: resolved
    splits = getattr(run.policy, "splits_by_owner", False)
    n = run.graph.n
    out_capacity = len(run.states[0].out_v)
    # CPU devices take pooled actors; a CUDA device gets an actor of its own that reserves its GPU (none under the
    # CUDA simulator, which runs on the actor's CPU) and ends with the query
    on_gpu = [state.device.implementation != KIND_CPU for state in run.states]
    pooled = _take_actors(ray, on_gpu.count(False))
    made = actor_class(WorklistActor)
    actors = [made.options(num_cpus=0, num_gpus=0.0 if getattr(state.device, "on_simulator", False) else 1.0).remote()
              if gpu else pooled.pop(0) for state, gpu in zip(run.states, on_gpu)]
    plain_indices = _stored(ray, run.graph.indices) if any(on_gpu) else None
    clean = False
    try:
        for state, actor in zip(run.states, actors):  # an actor runs its calls in order: no need to wait here
            actor.setup.remote(state.device, state.index, run.k, indptr, indices, run.owner, run.program, n,
                               run.batch, out_capacity, splits, plain_indices)
        _drive(run, actors, seeds, seed_values, ray)
        if any(state.failed for state in run.states):
            # the caller recovers from the survivors' values (DistributedWorklist._recover)
            for state, actor in zip(run.states, actors):
                if not state.failed:
                    state.values = ray.get(actor.values_array.remote())
            return
        outputs = ray.get([actor.output.remote() for actor in actors])
        clean = True
    finally:
        if clean:
            _return_actors(ray, [actor for actor, gpu in zip(actors, on_gpu) if not gpu])
            kill_actors([actor for actor, gpu in zip(actors, on_gpu) if gpu])
        else:
            kill_actors(actors)
    for state, output in zip(run.states, outputs):
        state.gathered = output


# ------------------------------------------------------------------------------------------ the actor pool
_POOL: dict = {}  # (Ray job id, actor class) -> idle actors (a query takes what it needs; the next reuses them)
_POOL_LOCK = threading.Lock()
_STORED: dict = {}  # (job id, id(array)) -> (weak reference to the array, its object ref)


def _job(ray) -> str:
    return ray.get_runtime_context().get_job_id()


def _take_actors(ray, k: int, cls: type | None = None) -> list:
    """k actors of `cls` (default `WorklistActor`; the scatter transport pools its own kind) for a query: idle
    pooled ones of this Ray session first, new ones for the rest (num_cpus=0, spread over the nodes: an idle actor
    holds no CPU another actor may need)."""
    cls = cls or WorklistActor
    job = _job(ray)
    with _POOL_LOCK:
        for other in [key for key in _POOL if key[0] != job]:  # actors of an ended Ray session are gone with it
            del _POOL[other]
        idle = _POOL.get((job, cls), [])
        taken = idle[:k]
        del idle[:k]
    made = actor_class(cls)
    return taken + [made.options(num_cpus=0, scheduling_strategy="SPREAD").remote() for _ in range(k - len(taken))]


def _return_actors(ray, actors: list, cls: type | None = None) -> None:
    with _POOL_LOCK:
        _POOL.setdefault((_job(ray), cls or WorklistActor), []).extend(actors)


def pooled_actors(ray, cls: type | None = None) -> list:
    """The idle pooled actors of `cls` (default `WorklistActor`) in this Ray session (for tests and tools)."""
    with _POOL_LOCK:
        return list(_POOL.get((_job(ray), cls or WorklistActor), []))


def release_actors() -> None:
    """End every pooled actor (they also end with the Ray session or this process)."""
    with _POOL_LOCK:
        pooled = [actor for actors in _POOL.values() for actor in actors]
        _POOL.clear()
        _STORED.clear()
    if pooled:
        kill_actors(pooled)


def _stored(ray, array: np.ndarray):
    """The object ref of `array` in this session's object store: put once while the array lives (the graph's
    CSR arrays serve every query on the graph)."""
    key = (_job(ray), id(array))
    with _POOL_LOCK:
        entry = _STORED.get(key)
        if entry is not None and entry[0]() is array:
            return entry[1]
    ref = ray.put(array)
    with _POOL_LOCK:
        for stale in [k for k, (alive, _) in _STORED.items() if alive() is None]:
            del _STORED[stale]
        _STORED[key] = (weakref.ref(array), ref)
    return ref


def _device_failed(exc, ray) -> bool:
    """True when a step failed because its device died (a killed actor, or DeviceFailure inside it)."""
    if isinstance(exc, ray.exceptions.RayActorError):
        return True
    return isinstance(exc, ray.exceptions.RayTaskError) and isinstance(exc.cause, DeviceFailure)


def _raise_cause(exc, ray):
    if isinstance(exc, ray.exceptions.RayTaskError) and exc.cause is not None:
        raise exc.cause from None
    raise exc


def _drive(run, actors, seeds, seed_values, ray) -> None:
    """The driver: host (seeds, work count, threshold) and router (queues each message for its next actor)."""
    k = run.k
    pending: list[list] = [[] for _ in range(k)]
    has_work = [False] * k
    seen = [run.priority.threshold] * k
    busy: dict = {}
    for i in range(k):  # a device holds nothing before its first call: its idle claim (0 deferred) holds
        run.priority.idle(i, 0, np.inf)
    run.counter.start(len(seeds))
    owners = run.owner[seeds]
    for device in range(k):
        mine = owners == device
        if mine.any():
            pending[device].append((seeds[mine], seed_values[mine]))
            # the driver routes: its messages are counted on the (otherwise idle) router object, as on threads
            run.router.packets_sent += 1
            run.router.bytes_sent += int(seeds[mine].nbytes + seed_values[mine].nbytes)
    while not run.counter.finished:
        working = set(busy.values())
        for i in range(k):
            if i in working:
                continue
            promote = run.priority.threshold_of(i) > seen[i]
            if pending[i] or has_work[i] or promote:
                if pending[i]:
                    run.priority.busy(i)
                seen[i] = run.priority.threshold_of(i)
                busy[actors[i].step.remote(pending[i], seen[i], promote)] = i
                pending[i] = []
        if not busy:
            raise RuntimeError("ray transport: work remains but no device can take it (a protocol error)")
        done, _ = ray.wait(list(busy), num_returns=1)
        i = busy.pop(done[0])
        try:
            report = ray.get(done[0])
        except Exception as exc:  # noqa: BLE001 - sorted below
            if not _device_failed(exc, ray):
                _raise_cause(exc, ray)
            run.states[i].failed = True
            now = time.time() - run.t0_wall
            run.trace.add(run.trace_index[i], 0, "failed", now, now + 1e-6)
            for ref in busy:  # let the others finish their step, then stop this attempt
                try:
                    ray.get(ref)
                except Exception as other:  # noqa: BLE001
                    if not _device_failed(other, ray):
                        _raise_cause(other, ray)
                    run.states[busy[ref]].failed = True
            return
        state = run.states[i]
        state.work_items += report["processed"]
        state.edges += report["edges"]
        state.batches += 1
        run.counter.add(report["produced"], report["consumed"])  # count before the messages move on
        run.trace.add(run.trace_index[i], 0, "compute", report["started"] - run.t0_wall,
                      report["finished"] - run.t0_wall, chunks=report["processed"])
        for owner, vertices, values in report["messages"]:
            target = run.policy(i, owner, k)[0]
            pending[target].append((vertices, values))
            run.router.packets_sent += 1
            run.router.bytes_sent += int(vertices.nbytes + values.nbytes)
        has_work[i] = report["queued"] > 0
        if report["queued"] == 0 and run.priority.enabled:
            run.priority.idle(i, report["deferred"], report["min_deferred"])
