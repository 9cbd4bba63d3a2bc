"""Run a serial Numba kernel over static chunks of its work on a shared pool of threads.

The partitioner's parallel steps are serial `nogil` kernels with the contract `kernel(first, stride, chunks,
*args)`: handle chunks first, first + stride, first + 2·stride, ... of `chunks` static slices, each chunk
writing only its own outputs. `run_chunked` calls such a kernel once per thread (the calling thread takes
chunk 0's share); the GIL is released inside the kernels, so the calls run at the same time.

Why not Numba's `parallel=True`: it sends the whole function through the parfor pipeline, which costs about a
second more compile time per kernel than the same kernel compiled serially, plus the start of a threading
layer; that was about a sixth of the partitioner's first-run compile time (measured back to back on its demo
section: 50.8 s and 44.3 s with parfors, 40.2 s and 36.6 s without). Results never depend on the thread count,
since every chunk writes its own slice.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numba

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """The process-wide pool: one worker per core beyond the caller's (threads start only when first used)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 1) - 1),
                                       thread_name_prefix="apportion-chunk", initializer=_name_os_thread)
        return _pool


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


def run_chunked(kernel, chunks: int, *args) -> None:
    """Run kernel(first, stride, chunks, *args) on min(thread_budget(), chunks) threads: thread i gets
    first = i, stride = the thread count. Returns once every call has finished; re-raises the first error."""
    chunks = max(1, int(chunks))
    threads = max(1, min(thread_budget(), chunks))
    if threads == 1:
        kernel(0, 1, chunks, *args)
        return
    futures = [_executor().submit(kernel, first, threads, chunks, *args) for first in range(1, threads)]
    try:
        kernel(0, threads, chunks, *args)
    finally:  # never return (or raise) while another thread still writes into the caller's arrays
        _wait_for(futures)
    for future in futures:
        future.result()


def _wait_for(futures) -> None:
    """Wait until none of `futures` runs. An exception raised in this thread while waiting (KeyboardInterrupt:
    the SIGINT handler runs in the main thread, even inside a lock wait) cancels the calls not started yet and
    still waits for the running ones — a nogil kernel cannot be stopped, and it writes into the caller's
    arrays — then propagates, so the pool's threads are idle when the interrupt reaches the caller."""
    interrupt: BaseException | None = None
    for future in futures:
        while not future.done():
            try:
                wait([future])
            except BaseException as error:  # noqa: BLE001 - re-raised below, once no worker runs
                interrupt = interrupt or error
                for other in futures:
                    other.cancel()
    if interrupt is not None:
        raise interrupt
