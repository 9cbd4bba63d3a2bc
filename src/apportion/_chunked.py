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
import threading
from concurrent.futures import ThreadPoolExecutor

import numba

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """The process-wide pool: one worker per core beyond the caller's (threads start only when first used)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 1) - 1),
                                       thread_name_prefix="apportion-chunk")
        return _pool


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
        for future in futures:
            future.exception()
    for future in futures:
        future.result()
