"""SplitSend groups remote items by owner; SplitReceive keeps, forwards or drops (the halo filter)."""

from __future__ import annotations

import numpy as np

from apportion.runtime.split import split_receive_min, split_receive_owner, split_send


def test_split_send_groups_by_owner_keeping_the_order():
    out_v = np.array([5, 1, 7, 2, 9, 0, 0], dtype=np.int64)  # the last two are unused buffer space
    out_d = np.array([50.0, 10.0, 70.0, 20.0, 90.0, -1.0, -1.0])
    dest = np.array([2, 0, 2, 0, 1, 0, 0], dtype=np.int32)
    vertices, values, bounds = split_send(out_v, out_d, dest, 5, 3)
    assert bounds.tolist() == [0, 2, 3, 5]
    assert vertices.tolist() == [1, 2, 9, 5, 7] and values.tolist() == [10.0, 20.0, 90.0, 50.0, 70.0]
    out_v[:] = -7  # the groups are fresh arrays: the worker may reuse its buffers at once
    assert vertices.tolist() == [1, 2, 9, 5, 7]


def test_split_receive_min_keeps_own_drops_what_was_sent_better_and_forwards_the_rest():
    owner = np.array([0, 1, 1, 2], dtype=np.int32)
    copies = np.array([9.0, 4.0, 9.0, 9.0])  # device 1's values; vertex 0 and 3 are halo copies
    vertices = np.array([1, 0, 3, 0, 2], dtype=np.int64)
    values_in = np.array([3.0, 9.0, 5.0, 2.0, 1.0])
    own_v, own_d, fwd_v, fwd_d, dropped = split_receive_min(1, owner, copies, vertices, values_in)
    assert own_v.tolist() == [1, 2] and own_d.tolist() == [3.0, 1.0]
    assert fwd_v.tolist() == [3, 0] and fwd_d.tolist() == [5.0, 2.0]
    assert dropped == 1  # (0, 9.0): this device's copy of vertex 0 is 9.0 already
    assert copies.tolist() == [2.0, 4.0, 9.0, 5.0]  # halo copies lowered to what was forwarded; own untouched


def test_split_receive_owner_never_drops():
    owner = np.array([0, 1], dtype=np.int32)
    own_v, own_d, fwd_v, fwd_d, dropped = split_receive_owner(
        0, owner, np.zeros(2), np.array([1, 0, 1], dtype=np.int64), np.array([0.5, 0.25, 0.5]))
    assert own_v.tolist() == [0] and fwd_v.tolist() == [1, 1] and fwd_d.tolist() == [0.5, 0.5] and dropped == 0
