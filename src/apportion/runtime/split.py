"""SplitSend and SplitReceive: the compiled filters at a device's two ends of the router (seed 003 §4.3, Fig. 9:
"the received data then undergo filtering and separation (SplitReceive), which passes irrelevant information to
the next device ... the worker thread ... separating the resulting items to local and remote work (SplitSend)").

They run without the GIL, so the threads of other devices keep going while a batch is split.

- `split_send(out_v, out_d, out_dest, count, k)`: a batch's remote items grouped by owner (a stable counting
  sort) into fresh arrays, with `bounds` such that owner o's items are [bounds[o], bounds[o + 1]).
- `split_receive_min(me, owner, values, vertices, values_in)` for apps whose values only decrease (BFS, SSSP, CC):
  owned items stay; an item for another owner is dropped when this device's copy is already as good (this device
  sent that value or better to the owner before, so the owner gets it anyway), else the copy is lowered and the
  item passed on. The copy is also written by the worker thread; a lost race only leaves a copy higher than a
  value sent (less filtering, never a wrong drop).
- `split_receive_owner(...)`: the same for apps whose updates add up (PageRank): nothing is dropped.

Both receive splits return (own vertices, own values, forwarded vertices, forwarded values, dropped count).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def split_send(out_v, out_d, out_dest, count, k):
    bounds = np.zeros(k + 1, dtype=np.int64)
    for i in range(count):
        bounds[out_dest[i] + 1] += 1
    for o in range(k):
        bounds[o + 1] += bounds[o]
    cursor = bounds[:k].copy()
    vertices = np.empty(count, dtype=out_v.dtype)
    values = np.empty(count, dtype=out_d.dtype)
    for i in range(count):
        o = out_dest[i]
        vertices[cursor[o]] = out_v[i]
        values[cursor[o]] = out_d[i]
        cursor[o] += 1
    return vertices, values, bounds


@njit(cache=True, nogil=True)
def _split_receive(me, owner, values, vertices, values_in, filter_by_copy):
    count = vertices.shape[0]
    own_v = np.empty(count, dtype=vertices.dtype)
    own_d = np.empty(count, dtype=values_in.dtype)
    fwd_v = np.empty(count, dtype=vertices.dtype)
    fwd_d = np.empty(count, dtype=values_in.dtype)
    owned = 0
    forwarded = 0
    for i in range(count):
        v = vertices[i]
        if owner[v] == me:
            own_v[owned] = v
            own_d[owned] = values_in[i]
            owned += 1
        elif not filter_by_copy or values_in[i] < values[v]:
            if filter_by_copy:
                values[v] = values_in[i]
            fwd_v[forwarded] = v
            fwd_d[forwarded] = values_in[i]
            forwarded += 1
    dropped = count - owned - forwarded
    return own_v[:owned], own_d[:owned], fwd_v[:forwarded], fwd_d[:forwarded], dropped


@njit(cache=True, nogil=True)
def split_receive_min(me, owner, values, vertices, values_in):
    return _split_receive(me, owner, values, vertices, values_in, True)


@njit(cache=True, nogil=True)
def split_receive_owner(me, owner, values, vertices, values_in):
    return _split_receive(me, owner, values, vertices, values_in, False)
