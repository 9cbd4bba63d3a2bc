"""The shared primitives in apportion._kernels: the heap (plain and over records) and the one seeded hash."""

from __future__ import annotations

import heapq

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from apportion._kernels.hashing import mix_hash, pair_hash
from apportion._kernels.heap import (
    RECORD_KEY, RECORD_POS, heap_clear, heap_pop, heap_pop_by_id, heap_push_or_update, heap_push_or_update_by_id,
    heap_remove, heap_remove_by_id, record_heap_pop, record_heap_push_or_update, record_heap_remove)

MASK = (1 << 64) - 1


def _finalise(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return (z ^ (z >> 31)) >> 1


def _old_mix_hash(x: int, seed: int) -> int:
    """The vertex partitioner's former mix_hash, written out in Python integers."""
    return _finalise(((x & MASK) * 0x9E3779B97F4A7C15 + (seed & MASK) * 0xBF58476D1CE4E5B9
                      + 0x632BE59BD9B4E019) & MASK)


def _old_edge_hash(a: int, b: int, seed: int) -> int:
    """graph._segmented_kernels' former edge_hash, written out in Python integers."""
    lo, hi = min(a, b), max(a, b)
    return _finalise(((lo << 32) + hi + (seed + 1) * 0x9E3779B97F4A7C15) & MASK)


@settings(max_examples=300, deadline=None)
@given(x=st.integers(-(2**63), 2**63 - 1), seed=st.integers(-(2**63), 2**63 - 1))
def test_mix_hash_is_the_former_function(x, seed):
    assert mix_hash(x, seed) == _old_mix_hash(x, seed)


@settings(max_examples=300, deadline=None)
@given(a=st.integers(0, 2**31 - 1), b=st.integers(0, 2**31 - 1), seed=st.integers(0, 2**62))
def test_pair_hash_is_the_former_symmetric_function(a, b, seed):
    assert pair_hash(a, b, seed) == pair_hash(b, a, seed) == _old_edge_hash(a, b, seed)
    assert pair_hash(a, b, seed) >= 0


def _heap(n):
    return (np.empty(n, dtype=np.int32), np.zeros(n, dtype=np.int64), np.full(n, -1, dtype=np.int32),
            np.zeros(1, dtype=np.int64))


operations = st.lists(st.tuples(st.sampled_from(["push", "pop", "remove", "clear"]), st.integers(0, 19),
                                st.integers(-3, 3)), max_size=80)


@settings(max_examples=200, deadline=None)
@given(ops=operations)
@example(ops=[("push", 0, -1), ("push", 1, 0), ("push", 2, -1), ("remove", 1, 0), ("pop", 0, 0)])
def test_heap_by_id_pops_in_key_then_id_order(ops):
    """Against a reference: the largest key first, the smallest id among equal keys."""
    heap, key, pos, size = _heap(20)
    current: dict[int, int] = {}
    for op, v, k in ops:
        if op == "push":
            heap_push_or_update_by_id(heap, key, pos, size, v, k)
            current[v] = k
        elif op == "remove":
            heap_remove_by_id(heap, key, pos, size, v)
            current.pop(v, None)
        elif op == "clear":
            heap_clear(heap, pos, size)
            current.clear()
        elif current:
            expected = min(current, key=lambda u: (-current[u], u))
            assert heap_pop_by_id(heap, key, pos, size) == expected
            del current[expected]
        assert size[0] == len(current) and all(pos[u] >= 0 for u in current)
        assert sum(pos >= 0) == len(current)


@settings(max_examples=200, deadline=None)
@given(ops=operations)
def test_plain_heap_pops_a_largest_key(ops):
    heap, key, pos, size = _heap(20)
    current: dict[int, int] = {}
    for op, v, k in ops:
        if op == "push":
            heap_push_or_update(heap, key, pos, size, v, k)
            current[v] = k
        elif op == "remove":
            heap_remove(heap, key, pos, size, v)
            current.pop(v, None)
        elif op == "clear":
            heap_clear(heap, pos, size)
            current.clear()
        elif current:
            top = int(heap_pop(heap, key, pos, size))
            assert current[top] == max(current.values())
            del current[top]
        assert size[0] == len(current)


def test_reference_is_heapq_order():
    # the by-id order is the order of (-key, id) in a min-heap, what neighbourhood expansion's lazy heap gave
    items = [(3, 5), (1, 2), (4, 5), (0, 9), (2, 2), (6, 2)]
    heap, key, pos, size = _heap(10)
    for v, k in items:
        heap_push_or_update_by_id(heap, key, pos, size, v, k)
    reference = [(-k, v) for v, k in items]
    heapq.heapify(reference)
    assert [int(heap_pop_by_id(heap, key, pos, size)) for _ in items] == \
        [heapq.heappop(reference)[1] for _ in items]


@settings(max_examples=200, deadline=None)
@given(ops=operations, dtype=st.sampled_from([np.int32, np.int64]))
def test_record_heap_is_the_plain_heap_over_rows(ops, dtype):
    """The record heap makes the same moves as the plain one: the same item popped after any operations (ties
    included, which both leave to the heap's shape), the same positions, and the rows' other columns untouched."""
    heap, key, pos, size = _heap(20)
    record_heap, record_size = np.empty(20, dtype=np.int32), np.zeros(1, dtype=np.int64)
    heap_keys = np.empty(20, dtype=dtype)
    records = np.full((20, 8), 7, dtype=dtype)
    records[:, RECORD_POS] = -1
    for op, v, k in ops:
        if op == "push":
            heap_push_or_update(heap, key, pos, size, v, k)
            record_heap_push_or_update(record_heap, heap_keys, records, record_size, v, k)
        elif op == "remove":
            heap_remove(heap, key, pos, size, v)
            record_heap_remove(record_heap, heap_keys, records, record_size, v)
        elif op == "pop" and size[0]:
            assert record_heap_pop(record_heap, heap_keys, records, record_size) == heap_pop(heap, key, pos, size)
        np.testing.assert_array_equal(records[:, RECORD_POS], pos)
        live = pos >= 0
        np.testing.assert_array_equal(records[live, RECORD_KEY], key[live])
        np.testing.assert_array_equal(record_heap[:record_size[0]], heap[:size[0]])
        np.testing.assert_array_equal(heap_keys[:size[0]], key[heap[:size[0]]])
    assert np.all(records[:, 2:] == 7)
