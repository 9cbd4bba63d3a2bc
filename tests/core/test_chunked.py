"""run_chunked: every chunk runs exactly once, on as many threads as the budget allows, and errors surface only
after every thread has stopped writing."""

import threading
import time

import numba
import numpy as np
import pytest
from numba import njit

from apportion._chunked import run_chunked


@njit(cache=True, nogil=True)
def _count_chunks(first, stride, chunks, counts, caller):
    for t in range(first, chunks, stride):
        counts[t] += 1
        caller[t] = first


@pytest.mark.parametrize("chunks", [1, 2, 3, 8, 9])
@pytest.mark.parametrize("budget", sorted({1, min(2, numba.config.NUMBA_NUM_THREADS),
                                           numba.config.NUMBA_NUM_THREADS}))
def test_every_chunk_once_on_the_budgeted_threads(chunks, budget):
    previous = numba.get_num_threads()
    numba.set_num_threads(budget)
    try:
        counts = np.zeros(chunks, dtype=np.int64)
        caller = np.full(chunks, -1, dtype=np.int64)
        run_chunked(_count_chunks, chunks, counts, caller)
    finally:
        numba.set_num_threads(previous)
    np.testing.assert_array_equal(counts, np.ones(chunks))
    threads = min(budget, chunks)
    # chunk t belongs to the call with first = t mod (thread count): one call per thread, interleaved chunks
    np.testing.assert_array_equal(caller, np.arange(chunks) % threads)


def test_error_is_raised_after_the_other_threads_finished():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two Numba threads")
    finished = threading.Event()

    def kernel(first, stride, chunks):
        if first == 0:
            raise ValueError("chunk 0 failed")
        time.sleep(0.2)  # the other thread is still writing when the caller's call fails
        finished.set()

    previous = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        with pytest.raises(ValueError, match="chunk 0 failed"):
            run_chunked(kernel, 2)
        assert finished.is_set()
    finally:
        numba.set_num_threads(previous)


def test_error_in_a_pool_thread_reaches_the_caller():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two Numba threads")

    def kernel(first, stride, chunks):
        if first == 1:
            raise RuntimeError("chunk 1 failed")

    previous = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        with pytest.raises(RuntimeError, match="chunk 1 failed"):
            run_chunked(kernel, 4)
    finally:
        numba.set_num_threads(previous)


def test_interrupt_while_waiting_returns_at_once_and_the_running_thread_finishes_alone():
    """Ctrl-C (KeyboardInterrupt in the main thread) during the wait for the pool propagates at once, without
    waiting for a pool thread that is still inside its kernel (waiting could hang on a lock the interrupted
    thread held); that thread finishes on its own afterwards."""
    import os
    import signal

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two Numba threads")
    started, release, finished = threading.Event(), threading.Event(), threading.Event()

    def kernel(first, stride, chunks):
        if first == 1:
            started.set()
            release.wait(timeout=30)  # bounds the test when the caller wrongly waits for this thread
            finished.set()

    def interrupt():
        started.wait()
        os.kill(os.getpid(), signal.SIGINT)   # handled in the main thread, which waits for the pool

    previous_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    previous = numba.get_num_threads()
    numba.set_num_threads(2)
    helper = threading.Thread(target=interrupt)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_chunked(kernel, 2)
        assert not finished.is_set()
        release.set()
        assert finished.wait(timeout=60)
    finally:
        release.set()
        helper.join()
        numba.set_num_threads(previous)
        signal.signal(signal.SIGINT, previous_handler)


@pytest.mark.parametrize("budget", sorted({1, min(2, numba.config.NUMBA_NUM_THREADS),
                                           min(3, numba.config.NUMBA_NUM_THREADS)}))
def test_run_pair_runs_both_halves_each_on_its_share_of_the_threads(budget):
    from apportion._chunked import run_pair, thread_budget

    seen = {}

    def record(name):
        def call():
            seen[name] = (threading.get_ident(), thread_budget())
        return call

    previous = numba.get_num_threads()
    numba.set_num_threads(budget)
    try:
        run_pair(record("first"), record("second"))
        assert numba.get_num_threads() == budget  # the caller's setting is back
    finally:
        numba.set_num_threads(previous)
    here = threading.get_ident()
    assert seen["first"][0] == here
    if budget == 1:
        assert seen == {"first": (here, 1), "second": (here, 1)}
    else:
        assert seen["second"][0] != here
        assert seen["first"][1] + seen["second"][1] == budget and seen["first"][1] >= 1


@pytest.mark.parametrize("failing", ["first", "second"])
def test_run_pair_raises_after_both_halves_stopped(failing):
    from apportion._chunked import run_pair

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two Numba threads")
    finished = threading.Event()

    def fail():
        raise ValueError(f"{failing} failed")

    def slow():
        time.sleep(0.2)
        finished.set()

    previous = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        with pytest.raises(ValueError, match=f"{failing} failed"):
            run_pair(fail, slow) if failing == "first" else run_pair(slow, fail)
        assert finished.is_set()
    finally:
        numba.set_num_threads(previous)
