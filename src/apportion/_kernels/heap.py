"""The binary heap of the project: an addressable max-heap of item ids keyed by an int64 array, and the same heap
over rows of a record array (`record_heap_*`, at the end: an item's key and position beside the caller's own fields).

Arrays (all C-contiguous): `heap` int32, the item ids in heap order; `key` int64, the key of every item;
`pos` int32, every item's position in `heap` (-1 = absent; all -1 before first use; 4 bytes an item: FM's heap
on a 2^21-vertex graph is 8 MB smaller than with int64, and item ids are int32 anyway); `size` int64 of length 1.
Keys change through `heap_push_or_update`, which moves the item up or down.

Ties between equal keys: the plain functions leave them to the heap's shape (what the vertex partitioner's FM,
growing and rebalancing always did); the `_by_id` functions break them by the smaller id, so that the order of
pops is fully determined by (key, id) — what neighbourhood expansion's former lazy (key, vertex) min-heap gave
with keys negated. One implementation serves both (`by_id` is a parameter of the sift functions).
"""

from __future__ import annotations

from numba import njit

_SIGNATURE_HEAP = "int32[::1], int64[::1], int32[::1]"


@njit("boolean(int64[::1], int64, int64, boolean)", cache=True, nogil=True)
def _precedes(key, a, b, by_id):
    """Whether item a comes out before item b: a larger key, or (by_id) an equal key and a smaller id."""
    if key[a] != key[b]:
        return key[a] > key[b]
    return by_id and a < b


@njit(f"void({_SIGNATURE_HEAP}, int64, boolean)", cache=True, nogil=True)
def _sift_up(heap, key, pos, i, by_id):
    v = heap[i]
    while i > 0:
        parent = (i - 1) >> 1
        u = heap[parent]
        if not _precedes(key, v, u, by_id):
            break
        heap[i] = u
        pos[u] = i
        i = parent
    heap[i] = v
    pos[v] = i


@njit(f"void({_SIGNATURE_HEAP}, int64, int64, boolean)", cache=True, nogil=True)
def _sift_down(heap, key, pos, size, i, by_id):
    v = heap[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _precedes(key, heap[child + 1], heap[child], by_id):
            child += 1
        u = heap[child]
        if not _precedes(key, u, v, by_id):
            break
        heap[i] = u
        pos[u] = i
        i = child
    heap[i] = v
    pos[v] = i


@njit(f"void({_SIGNATURE_HEAP}, int64[::1], int64, int64, boolean)", cache=True, nogil=True)
def _push_or_update(heap, key, pos, size, v, k, by_id):
    if pos[v] < 0:
        i = size[0]
        size[0] += 1
        heap[i] = v
        pos[v] = i
        key[v] = k
        _sift_up(heap, key, pos, i, by_id)
    else:
        old = key[v]
        key[v] = k
        if k > old:
            _sift_up(heap, key, pos, pos[v], by_id)
        else:
            _sift_down(heap, key, pos, size[0], pos[v], by_id)


@njit(f"void({_SIGNATURE_HEAP}, int64[::1], int64, boolean)", cache=True, nogil=True)
def _remove(heap, key, pos, size, v, by_id):
    i = pos[v]
    if i < 0:
        return
    pos[v] = -1
    size[0] -= 1
    last = size[0]
    if i == last:
        return
    u = heap[last]
    heap[i] = u
    pos[u] = i
    _sift_up(heap, key, pos, i, by_id)
    _sift_down(heap, key, pos, size[0], pos[u], by_id)


@njit(f"void({_SIGNATURE_HEAP}, int64[::1], int64, int64)", cache=True, nogil=True)
def heap_push_or_update(heap, key, pos, size, v, k):
    """Insert v with key k, or change its key when present."""
    _push_or_update(heap, key, pos, size, v, k, False)


@njit(f"void({_SIGNATURE_HEAP}, int64[::1], int64)", cache=True, nogil=True)
def heap_remove(heap, key, pos, size, v):
    """Remove v when present."""
    _remove(heap, key, pos, size, v, False)


@njit(f"int32({_SIGNATURE_HEAP}, int64[::1])", cache=True, nogil=True)
def heap_pop(heap, key, pos, size):
    """Remove and return the item with the largest key (size[0] must be > 0)."""
    v = heap[0]
    _remove(heap, key, pos, size, v, False)
    return v


@njit(f"void({_SIGNATURE_HEAP}, int64[::1], int64, int64)", cache=True, nogil=True)
def heap_push_or_update_by_id(heap, key, pos, size, v, k):
    """`heap_push_or_update` for a heap whose equal keys come out smallest id first."""
    _push_or_update(heap, key, pos, size, v, k, True)


@njit(f"void({_SIGNATURE_HEAP}, int64[::1], int64)", cache=True, nogil=True)
def heap_remove_by_id(heap, key, pos, size, v):
    """`heap_remove` for a heap whose equal keys come out smallest id first (the item moved into the freed
    place must be sifted by the same rule, or an equal key with a smaller id stays below a larger one)."""
    _remove(heap, key, pos, size, v, True)


@njit(f"int32({_SIGNATURE_HEAP}, int64[::1])", cache=True, nogil=True)
def heap_pop_by_id(heap, key, pos, size):
    """Remove and return the item with the largest key, the smallest id among equal keys."""
    v = heap[0]
    _remove(heap, key, pos, size, v, True)
    return v


@njit("void(int32[::1], int32[::1], int64[::1])", cache=True, nogil=True)
def heap_clear(heap, pos, size):
    """Empty the heap (every item's position back to -1) in O(size)."""
    for i in range(size[0]):
        pos[heap[i]] = -1
    size[0] = 0


# The record heap: the same addressable max-heap, with every item's position and key in one row of a record array
# (`records[v, RECORD_POS]`, `records[v, RECORD_KEY]`; the caller keeps its own per-item fields in the row's other
# columns) and every heap slot's key beside it in `heap_keys`, so that a sift step compares keys in the heap's own
# arrays and touches one record, the moved item's, and a look at an item touches one cache line. FM with a gain
# cache keeps its vertices' heap position, key, target block, block and internal weight in one 32-byte row. Ties
# are left to the heap's shape, as in `heap_push_or_update` (the same pops for the same operations); the record
# and key dtype may be int32 or int64 (the keys' range decides).

#: the columns of a record heap's rows that the heap itself uses
RECORD_POS = 0
RECORD_KEY = 1


@njit(cache=True, nogil=True, inline="always")
def _record_place(heap, heap_keys, records, i, v, key):
    """Slot i holds item v with `key`."""
    heap[i] = v
    heap_keys[i] = key
    records[v, RECORD_POS] = i


@njit(cache=True, nogil=True, inline="always")
def _record_sift_up(heap, heap_keys, records, i, v, key):
    """Put item v with `key` at slot i or above it."""
    while i > 0:
        parent = (i - 1) >> 1
        if not key > heap_keys[parent]:
            break
        _record_place(heap, heap_keys, records, i, heap[parent], heap_keys[parent])
        i = parent
    _record_place(heap, heap_keys, records, i, v, key)


@njit(cache=True, nogil=True, inline="always")
def _record_sift_down(heap, heap_keys, records, size, i, v, key):
    """Put item v with `key` at slot i or below it."""
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and heap_keys[child + 1] > heap_keys[child]:
            child += 1
        if not heap_keys[child] > key:
            break
        _record_place(heap, heap_keys, records, i, heap[child], heap_keys[child])
        i = child
    _record_place(heap, heap_keys, records, i, v, key)


@njit(cache=True, nogil=True)
def record_heap_push_or_update(heap, heap_keys, records, size, v, key):
    """Insert v with `key`, or change its key when present (records[v, RECORD_POS] < 0: absent)."""
    i = records[v, RECORD_POS]
    records[v, RECORD_KEY] = key
    if i < 0:
        i = size[0]
        size[0] += 1
        _record_sift_up(heap, heap_keys, records, i, v, key)
    elif key > heap_keys[i]:
        _record_sift_up(heap, heap_keys, records, i, v, key)
    else:
        _record_sift_down(heap, heap_keys, records, size[0], i, v, key)


@njit(cache=True, nogil=True)
def record_heap_remove(heap, heap_keys, records, size, v):
    """Remove v when present (its position becomes -1)."""
    i = records[v, RECORD_POS]
    if i < 0:
        return
    records[v, RECORD_POS] = -1
    size[0] -= 1
    last = size[0]
    if i == last:
        return
    u = heap[last]
    key = heap_keys[last]
    _record_sift_up(heap, heap_keys, records, i, u, key)
    i = records[u, RECORD_POS]
    _record_sift_down(heap, heap_keys, records, size[0], i, u, key)


@njit(cache=True, nogil=True)
def record_heap_pop(heap, heap_keys, records, size):
    """Remove and return the item with the largest key (size[0] must be > 0)."""
    v = heap[0]
    record_heap_remove(heap, heap_keys, records, size, v)
    return v
