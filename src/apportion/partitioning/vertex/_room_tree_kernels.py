"""A tournament tree over the k blocks that names the block with the most room (the largest `rooms[b]`, the
lowest block on a tie, as a scan from block 0 that keeps only strictly larger values would) in O(1), and follows a
change of one block's room in O(log k).

`tree` has 2 · L entries for L = the least power of two ≥ k: leaf L + b holds block b, an inner node the winner
of its two children, tree[1] the overall winner; -1 stands for no block. The balance kernels fill blocks by the
most room (`place_isolated`, `rebalance`'s fallback), which scanned the k blocks per vertex: O(n k) at large k.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def roomier(a, b, rooms):
    """Of blocks a and b (-1 for none), the one with more room; the lower block on a tie."""
    if a < 0:
        return b
    if b < 0:
        return a
    if rooms[a] > rooms[b]:
        return a
    if rooms[b] > rooms[a]:
        return b
    return min(a, b)


@njit(cache=True, nogil=True)
def new_room_tree(k):
    """An empty tree for k blocks (fill it with `build_room_tree`)."""
    leaves = 1
    while leaves < k:
        leaves *= 2
    return np.full(2 * leaves, -1, dtype=np.int64)


@njit(cache=True, nogil=True)
def build_room_tree(tree, rooms):
    """Every block 0 .. len(rooms) - 1 in its leaf, every inner node the winner below it: O(k)."""
    leaves = tree.shape[0] // 2
    for b in range(leaves):
        tree[leaves + b] = b if b < rooms.shape[0] else -1
    for node in range(leaves - 1, 0, -1):
        tree[node] = roomier(tree[2 * node], tree[2 * node + 1], rooms)


@njit(cache=True, nogil=True)
def update_room(tree, rooms, b):
    """After rooms[b] changed: the winners on b's path to the root again, O(log k)."""
    node = (tree.shape[0] // 2 + b) // 2
    while node >= 1:
        tree[node] = roomier(tree[2 * node], tree[2 * node + 1], rooms)
        node //= 2


@njit(cache=True, nogil=True)
def roomiest_except(tree, rooms, skip):
    """The block with the most room other than `skip` (-1 when there is none): the winners beside skip's path to
    the root, O(log k)."""
    node = tree.shape[0] // 2 + skip
    best = -1
    while node > 1:
        best = roomier(best, tree[node ^ 1], rooms)
        node //= 2
    return best
