"""The threads transport: every device is two Python threads in this process (seed 003 §4.3: "the
implementation consists of two threads per device: worker thread and receiver thread"; §4.6.4: "a CPU thread
is created for each GPU").

- The *worker* takes every batch waiting in its inbox, runs one compiled `nogil` kernel call through its device
  (`device.run`, so throttled and faulty devices behave as such) that applies the incoming items and then
  processes up to `batch` items of its local worklist, reports the batch's produced and consumed items to the
  counter (before sending), and sends the remote items (SplitSend: one message per owner for `direct`, one to
  the next device on the `ring`). The GIL is held only between batches.
- The *receiver* posts a receive on its router output, splits each segment (SplitReceive: own items to the
  inbox, the rest forwarded or dropped), and stops at the empty segment the router sends after shutdown.

Bounded queues: a router output holds at most `buffers` segments; a segment's buffer is released only after the
worker applied its items, so an inbox holds at most `buffers` segments. A worker with `SEND_WINDOW` sends in
flight stops processing its own queue and only drains its inbox until they complete; it never blocks on a send,
so no cycle of full buffers can deadlock the ring.
"""

from __future__ import annotations

import threading
import time
from collections import deque

import numpy as np

from apportion.platform.device import KIND_CPU, DeviceFailure
from apportion.runtime.worklist import wl_min_deferred

#: sends a worker may have in flight before it only drains its inbox (the bound on its outgoing queue)
SEND_WINDOW = 8
#: waits shorter than this are not drawn in the trace
MIN_TRACE_S = 1e-5


def run_threads(run, seeds: np.ndarray, seed_values: np.ndarray) -> None:
    """Run the distributed worklist `run` (a DistributedWorklist) to termination with two threads per device.

    A device whose run raises `DeviceFailure` is marked (`state.failed`) and the whole run is aborted: every
    thread stops and the caller recovers (distributed_worklist.py). Re-raises the first other exception a
    thread hit (after stopping the others).
    """
    threads = []
    failures: list[BaseException] = []

    def guarded(target, state):
        def body():
            try:
                target(run, state)
            except DeviceFailure:
                state.failed = True
                run.trace.add(run.trace_index[state.index], 0, "failed", time.perf_counter() - run.t0,
                              time.perf_counter() - run.t0 + 1e-6)
                _abort(run)
            except BaseException as exc:  # noqa: BLE001 - reported to the caller below
                failures.append(exc)
                _abort(run)
        return body

    for state in run.states:
        for target, role in ((_receiver, "receiver"), (_worker, "worker")):
            thread = threading.Thread(target=guarded(target, state), name=f"{role}{state.index}", daemon=True)
            threads.append(thread)
    for thread in threads:
        thread.start()
    # the host: count the seeds before sending them (termination.py), one message per owner
    run.counter.start(len(seeds))
    owners = run.owner[seeds]
    for device in range(run.k):
        mine = owners == device
        if mine.any():
            run.router.send(-1, *run.program.pack(seeds[mine], seed_values[mine]), dest=device)
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def _abort(run) -> None:
    """Stop every thread after a failure: shut the router (receivers stop) and close the inboxes."""
    run.aborted = True
    run.router.abort()
    for state in run.states:
        state.inbox.close()


def _receiver(run, state) -> None:
    me = state.index
    program = run.program
    splits = getattr(run.policy, "splits_by_owner", False)
    while True:
        segment = run.router.receive(me).result()
        if segment.empty:
            state.inbox.close()
            return
        if run.aborted:
            run.router.release(me, segment)
            continue
        vertices, values = program.unpack(segment.arrays)
        if splits or run.k <= 2:  # direct routing, or a ring of two: every item that reaches a device is its own
            state.inbox.push((vertices, values, segment))
            continue
        own_v, own_d, forward_v, forward_d, dropped = program.on_receive(me, run.owner, state.values, vertices,
                                                                         values)
        if len(forward_v):
            run.router.send(me, *program.pack(forward_v, forward_d))
        if len(own_v):
            state.inbox.push((own_v, own_d, segment))
        else:
            run.router.release(me, segment)
        if dropped:
            state.dropped += int(dropped)
            run.counter.add(0, int(dropped))
            run.priority.recheck()


def _worker(run, state) -> None:
    """The worker of a CPU device, or of a CUDA device with the program's state resident on the GPU
    (`WorklistProgram.gpu_worker`): its values come back to `state.values` when it stops."""
    if state.device.implementation == KIND_CPU:
        _work(run, state, None)
        return
    graph = run.graph
    resident = run.program.gpu_worker(state.device, graph.indptr, graph.indices, run.program.weights, run.owner,
                                      state.index, state.values, state.extra)
    try:
        _work(run, state, resident)
    finally:
        resident.download()


def _work(run, state, resident) -> None:
    me = state.index
    program = run.program
    graph = run.graph
    wl = state.worklist
    flags, queue, qstate, deferred, dstate = wl.arrays()
    counts = np.zeros(6, dtype=np.int64)
    empty_v = np.empty(0, dtype=np.int64)
    empty_d = np.empty(0, dtype=program.dtype)
    splits = getattr(run.policy, "splits_by_owner", False)
    outstanding: deque = deque()
    seen_threshold = run.priority.threshold_of(me)
    trace = run.trace
    tid = run.trace_index[me]  # the device's row in the trace (kept across recoveries)
    while True:
        while outstanding and outstanding[0].done():
            outstanding.popleft().result()
        window_full = len(outstanding) >= SEND_WINDOW
        can_work = wl.queued > 0 and not window_full
        promote = run.priority.threshold_of(me) > seen_threshold
        will_wait = not (can_work or promote)
        if will_wait and wl.queued == 0 and run.priority.enabled:
            # nothing under the threshold here: say so before sleeping (a raise wakes every worker)
            run.priority.idle(me, wl.deferred_count, wl_min_deferred(flags, deferred, dstate, state.values))
            promote = run.priority.threshold_of(me) > seen_threshold
            will_wait = not promote
        wait_start = time.perf_counter()
        batches, closed = state.inbox.take(wait=will_wait)
        waited = time.perf_counter() - wait_start
        if waited > MIN_TRACE_S:
            trace.add(tid, 0, "idle", wait_start - run.t0, wait_start + waited - run.t0)
        if (closed and not batches) or run.aborted:
            return
        if not (batches or can_work or promote):
            continue  # woken by a completed send
        if batches:
            run.priority.busy(me)
            in_v = batches[0][0] if len(batches) == 1 else np.concatenate([b[0] for b in batches])
            in_d = batches[0][1] if len(batches) == 1 else np.concatenate([b[1] for b in batches])
        else:
            in_v, in_d = empty_v, empty_d
        threshold = run.priority.threshold_of(me)
        if promote:
            seen_threshold = threshold
        budget = 0 if window_full else run.batch
        if resident is None:
            execution = state.device.run(program.kernel, graph.indptr, run.indices, program.weights, run.owner,
                                         me, state.values, flags, queue, qstate, deferred, dstate, in_v, in_d,
                                         float(threshold), budget, promote, state.out_v, state.out_d,
                                         state.out_dest, counts, state.extra)
            started, finished = execution.started, execution.finished
        else:  # a GPU processes its whole queue and defers nothing (apps/_worklist_cuda.py)
            state.out_v, state.out_d, state.out_dest, started, finished = resident.step(in_v, in_d, budget, counts)
            qstate[2] = resident.queued
        for batch in batches:
            run.router.release(me, batch[2])
        processed, pushed, consumed_in, n_out, edges = (int(c) for c in counts[:5])
        state.work_items += processed
        state.edges += edges
        state.batches += 1
        # count before send, never after (termination.py)
        run.counter.add(pushed + n_out, processed + consumed_in)
        trace.add(tid, 0, "compute", started - run.t0, finished - run.t0, chunks=processed)
        if n_out:
            send_start = time.perf_counter()
            _split_send(run, me, state, n_out, splits, outstanding)
            trace.add(tid, 0, "transfer", send_start - run.t0, time.perf_counter() - run.t0, chunks=n_out)


def _split_send(run, me, state, n_out, splits, outstanding) -> None:
    """SplitSend: the batch's remote items, one message per owner (direct) or one to the router (ring)."""
    program = run.program
    messages = []
    if splits:
        v, d, bounds = program.on_send(state.out_v, state.out_d, state.out_dest, n_out, run.k)
        for owner in range(run.k):
            if bounds[owner + 1] > bounds[owner]:
                part = slice(bounds[owner], bounds[owner + 1])
                messages.append((owner, v[part], d[part]))
    else:
        # the out buffers are reused by the next batch: send copies
        messages.append((None, state.out_v[:n_out].copy(), state.out_d[:n_out].copy()))
    for owner, mv, md in messages:
        future = run.router.send(me, *program.pack(mv, md), dest=owner)
        future.add_done_callback(lambda _f, inbox=state.inbox: inbox.wake())
        outstanding.append(future)
