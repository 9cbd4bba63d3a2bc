"""Run a serial Numba kernel over static chunks of its work on a shared pool of threads.

The partitioner's parallel steps are serial `nogil` kernels with the contract `kernel(first, stride, chunks,
*args)`: handle chunks first, first + stride, first + 2·stride, ... of `chunks` static slices, each chunk
writing only its own outputs. `run_chunked` calls such a kernel once per thread (the calling thread takes
chunk 0's share); the GIL is released inside the kernels, so the calls run at the same time.

Why not Numba's `parallel=True`: it sends the whole function through the parfor pipeline, which costs about a
second more compile time per kernel than the same kernel compiled serially, plus the start of a threading
layer; that was about a sixth of the partitioner's first-run compile time (measured back to back on its demo
section: 50.8 s and 44.3 s with parfors, 40.2 s and 36.6 s without). Results never depend on the thread count,
since every chunk writes its own slice. `balanced_bounds` makes chunks of equal work from its prefix sums (a graph's
row pointers: equal arc counts, where equal vertex ranges would leave a heavy-tailed graph's hubs to one thread).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numba
import numpy as np

#: the caller waits for the pool in slices this long: a SIGINT that the kernel delivers to another thread does
#: not wake a waiting main thread, whose Python handler then runs when the slice ends
INTERRUPT_POLL_S = 0.05

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """The process-wide pool: one worker per core beyond the caller's (threads start only when first used)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_pool_workers(),
                                       thread_name_prefix="apportion-chunk", initializer=_name_os_thread)
        return _pool


def _pool_workers() -> int:
    return max(1, (os.cpu_count() or 1) - 1)


def _name_os_thread() -> None:
    """Give a pool thread its Python name at the OS level too (Linux prctl, 15 characters), so `top -H`, a
    debugger and /proc show which threads run apportion's kernels (the interrupt tests wait for them there)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        name = threading.current_thread().name.encode()[:15]
        ctypes.CDLL(None).prctl(15, ctypes.c_char_p(name), 0, 0, 0)  # 15 = PR_SET_NAME
    except (OSError, AttributeError):  # no libc symbol: the name is only cosmetic
        pass


def thread_budget() -> int:
    """Threads a chunked kernel may use in this thread: Numba's thread count, which is local to the calling
    thread (`numba.set_num_threads`), so a caller limits apportion's parallelism the way it limits Numba's."""
    return numba.get_num_threads()


@contextlib.contextmanager
def using_threads(threads: int | None):
    """Within the block, this thread's budget is `threads` (None: left as it is); the setting before is put back
    after it, however it ends."""
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(threads)
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def balanced_bounds(work_prefix: np.ndarray, chunks: int) -> np.ndarray:
    """chunks + 1 increasing item ids from 0 to n that cut items 0..n-1 into ranges of about equal work, given
    the prefix sums of their work (n + 1 entries from 0: a graph's row pointers, for ranges of equal arc counts —
    on a heavy-tailed graph equal vertex ranges would leave the hubs' range to one thread)."""
    n = work_prefix.shape[0] - 1
    bounds = np.searchsorted(work_prefix, np.linspace(0, int(work_prefix[n]), chunks + 1), side="left")
    bounds = bounds.astype(np.int64)
    bounds[0], bounds[-1] = 0, n
    return bounds


def run_chunked(kernel, chunks: int, *args) -> None:
    """Run kernel(first, stride, chunks, *args) on min(thread_budget(), chunks) threads: thread i gets
    first = i, stride = the thread count. Returns once every call has finished; re-raises the first error
    once every call has finished; an interrupt propagates at once (see `_wait_for`)."""
    chunks = max(1, int(chunks))
    threads = max(1, min(thread_budget(), chunks))
    if threads == 1:
        kernel(0, 1, chunks, *args)
        return
    futures = [_executor().submit(kernel, first, threads, chunks, *args) for first in range(1, threads)]
    try:
        kernel(0, threads, chunks, *args)
    except Exception:  # never raise while another thread still writes into the caller's arrays
        _wait_for(futures)
        raise
    except BaseException:  # an interrupt: the call is abandoned (see _wait_for)
        _cancel(futures)
        raise
    _wait_for(futures)
    for future in futures:
        future.result()


def run_pair(first, second) -> None:
    """Call first() and second() at the same time, splitting this thread's budget between them: second runs on
    a pool thread with half the budget (rounded up), first in the calling thread with the rest; with a budget
    of one thread, one after the other here. Each call's own kernels see its share (`thread_budget`), so a
    recursion that splits its work in two (recursive bisection) never runs more kernels at once than the
    budget allows and never waits on a pool that its own tasks fill. Returns once both have finished; errors
    and interrupts as `run_chunked`'s. The callables must not write the same memory."""
    budget = thread_budget()
    # tasks alive at once never exceed the budget, so with at most one more than the pool's workers a task that
    # waits for its second half never waits behind tasks that wait themselves (NUMBA_NUM_THREADS may exceed it)
    shared = min(budget, _pool_workers() + 1)
    if shared < 2:
        first()
        second()
        return
    mine = shared // 2

    def with_budget():
        before = numba.get_num_threads()
        numba.set_num_threads(shared - mine)  # local to the pool thread, like the caller's own setting
        try:
            second()
        finally:
            numba.set_num_threads(before)

    future = _executor().submit(with_budget)
    numba.set_num_threads(mine)
    try:
        first()
    except Exception:
        _wait_for([future])
        raise
    except BaseException:
        _cancel([future])
        raise
    finally:
        numba.set_num_threads(budget)
    _wait_for([future])
    future.result()


def _cancel(futures) -> None:
    for future in futures:
        future.cancel()


def _wait_for(futures) -> None:
    """Wait until none of `futures` runs, so that no pool thread writes into the caller's arrays after the
    call returns or raises an error. An interrupt (KeyboardInterrupt, raised in this thread by a SIGINT
    handler, here or in the caller's own share of the chunks) is different: the call is being abandoned, so
    the calls not started yet are cancelled and the interrupt propagates at once. A running kernel cannot be
    stopped (it is nogil code); it finishes its chunks into arrays that only the abandoned call reads and that
    its own arguments keep alive. Waiting for it instead could hang: an interrupt can arrive while this thread
    holds a lock that the running call needs next (Numba's compiler lock, between its acquisition and the
    `with` block that would release it)."""
    for future in futures:
        while not future.done():
            try:
                wait([future], timeout=INTERRUPT_POLL_S)
            except BaseException:
                _cancel(futures)
                raise
