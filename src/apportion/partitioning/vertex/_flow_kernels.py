"""Numba kernels of flow-based refinement: the quotient graph, region growing, the flow network of a block pair
and the FlowCutter loop (max flow by Dinic's algorithm, incremental, with piercing until a cut is balanced).

Conventions as in `_partition_kernels`: `indptr` int64, `indices` int32, `edge_weights` int32 or int64, vertex
weights int64 (n, ncon), `part` int32, block weights `bw` and limits `max_weights` int64 (k, ncon).

The flow network of a pair (A, B) has region vertices 0..R-1, the source terminal R (the rest of A contracted)
and the sink terminal R+1 (the rest of B contracted). Every undirected edge {x, y} of weight w is one pair of
arcs x->y and y->x, each of capacity w, whose flows are kept antisymmetric (flow[a] = -flow[rev[a]]): the
residual capacity of an arc is cap - flow, so an undirected edge can carry up to w either way.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion._kernels.hashing import mix_hash
from apportion.partitioning.vertex._partition_kernels import stable_argsort


@njit(cache=True, nogil=True)
def quotient_edges(indptr, indices, edge_weights, part, k, boundary):
    """The adjacent block pairs (a < b) and the weight of the edges between them, from the boundary vertices
    (every cut edge has both ends there). Returns (a int32, b int32, weight int64) ordered by (a, b)."""
    count = 0
    for i in range(boundary.shape[0]):
        v = boundary[i]
        pv = part[v]
        for e in range(indptr[v], indptr[v + 1]):
            if part[indices[e]] > pv:
                count += 1
    keys = np.empty(count, dtype=np.int64)
    weights = np.empty(count, dtype=np.int64)
    count = 0
    for i in range(boundary.shape[0]):
        v = boundary[i]
        pv = part[v]
        for e in range(indptr[v], indptr[v + 1]):
            pu = part[indices[e]]
            if pu > pv:
                keys[count] = np.int64(pv) * k + pu
                weights[count] = edge_weights[e]
                count += 1
    order = stable_argsort(keys)
    pairs = 0
    for i in range(count):
        if i == 0 or keys[order[i]] != keys[order[i - 1]]:
            pairs += 1
    block_a = np.empty(pairs, dtype=np.int32)
    block_b = np.empty(pairs, dtype=np.int32)
    weight = np.zeros(pairs, dtype=np.int64)
    p = -1
    for i in range(count):
        key = keys[order[i]]
        if i == 0 or key != keys[order[i - 1]]:
            p += 1
            block_a[p] = key // k
            block_b[p] = key % k
        weight[p] += weights[order[i]]
    return block_a, block_b, weight


@njit(cache=True, nogil=True)
def _take_if_room(v, vertex_weights, taken, bound, local, region, count):
    """Append v to the region at position `count` when the side's weight stays within `bound` in every
    constraint (adding its weight to `taken`); returns the new count."""
    for c in range(vertex_weights.shape[1]):
        if taken[c] + vertex_weights[v, c] > bound[c]:
            return count
    for c in range(vertex_weights.shape[1]):
        taken[c] += vertex_weights[v, c]
    local[v] = count
    region[count] = v
    return count + 1


@njit(cache=True, nogil=True)
def _room_for_one_more(region, count):
    """`region` itself while it has room at position `count`, else a copy twice as long."""
    if count < region.shape[0]:
        return region
    grown = np.empty(2 * region.shape[0], dtype=region.dtype)
    grown[:count] = region[:count]
    return grown


@njit(cache=True, nogil=True)
def _grow_side(indptr, indices, edge_weights, vertex_weights, part, own, other, by_block, block_ptr, bound,
               max_depth, local, region, count):
    """Breadth-first search inside block `own` from its vertices adjacent to block `other` (among its boundary
    vertices by_block[block_ptr[own]:block_ptr[own + 1]], `_partition_kernels.vertices_by_block`), taking a vertex
    only while the side's weight stays within `bound` in every constraint. The search starts from the vertices
    most strongly connected to `other` (ties in boundary order), so vertices that belong there enter the region
    first and what is left for the terminal is the block's firm part. No vertex farther than `max_depth` hops
    from the seeds is taken (0: no limit). Appends the vertices to `region` from position `count`, sets
    local[v] to their position; returns (the new count, `region` or a longer copy of it when it filled up)."""
    ncon = vertex_weights.shape[1]
    taken = np.zeros(ncon, dtype=np.int64)
    start = count
    nseeds = 0
    for i in range(block_ptr[own], block_ptr[own + 1]):
        v = by_block[i]
        if part[v] != own or local[v] >= 0:
            continue
        for e in range(indptr[v], indptr[v + 1]):
            if part[indices[e]] == other:
                nseeds += 1
                break
    seeds = np.empty(nseeds, dtype=np.int32)
    keys = np.empty(nseeds, dtype=np.int64)
    nseeds = 0
    for i in range(block_ptr[own], block_ptr[own + 1]):
        v = by_block[i]
        if part[v] != own or local[v] >= 0:
            continue
        connection = 0
        for e in range(indptr[v], indptr[v + 1]):
            if part[indices[e]] == other:
                connection += edge_weights[e]
        if connection > 0:
            seeds[nseeds] = v
            keys[nseeds] = -connection
            nseeds += 1
    order = stable_argsort(keys)
    for i in range(nseeds):
        region = _room_for_one_more(region, count)
        count = _take_if_room(seeds[order[i]], vertex_weights, taken, bound, local, region, count)
    head = start
    layer_end = count
    depth = 0
    while head < count:
        if head == layer_end:
            depth += 1
            layer_end = count
        if max_depth > 0 and depth >= max_depth:
            break
        v = region[head]
        head += 1
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if part[u] != own or local[u] >= 0:
                continue
            region = _room_for_one_more(region, count)
            count = _take_if_room(u, vertex_weights, taken, bound, local, region, count)
    return count, region


@njit(cache=True, nogil=True)
def _build_network(indptr, indices, edge_weights, part, region, nregion, local, block_a, block_b):
    """The flow network of the region (see the module docstring): CSR `start` (R+3), `head`, `cap`, `rev`;
    also the weight of the network's edges that the current split cuts."""
    s = nregion
    t = nregion + 1
    nodes = nregion + 2
    # arcs come in pairs: pair p is the arc x -> y and its reverse y -> x
    max_pairs = 0
    for i in range(nregion):
        v = region[i]
        max_pairs += indptr[v + 1] - indptr[v] + 2
    pair_x = np.empty(max_pairs, dtype=np.int32)
    pair_y = np.empty(max_pairs, dtype=np.int32)
    pair_w = np.empty(max_pairs, dtype=np.int64)
    npairs = 0
    cut = 0
    for i in range(nregion):
        v = region[i]
        pv = part[v]
        to_source = 0
        to_sink = 0
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            pu = part[u]
            # local is shared by the pairs that run at the same time: only a vertex of this pair's blocks is
            # read (another pair's region vertices lie in other blocks)
            j = local[u] if pu == block_a or pu == block_b else -1
            w = edge_weights[e]
            if j >= 0:
                if j > i:
                    pair_x[npairs] = i
                    pair_y[npairs] = j
                    pair_w[npairs] = w
                    npairs += 1
                    if part[u] != pv:
                        cut += w
            elif pu == block_a:
                to_source += w
            elif pu == block_b:
                to_sink += w
        if to_source > 0:
            pair_x[npairs] = i
            pair_y[npairs] = s
            pair_w[npairs] = to_source
            npairs += 1
            if pv != block_a:
                cut += to_source
        if to_sink > 0:
            pair_x[npairs] = i
            pair_y[npairs] = t
            pair_w[npairs] = to_sink
            npairs += 1
            if pv == block_a:
                cut += to_sink
    start = np.zeros(nodes + 1, dtype=np.int64)
    for p in range(npairs):
        start[pair_x[p] + 1] += 1
        start[pair_y[p] + 1] += 1
    for x in range(nodes):
        start[x + 1] += start[x]
    fill = start[:nodes].copy()
    head = np.empty(2 * npairs, dtype=np.int32)
    cap = np.empty(2 * npairs, dtype=np.int64)
    rev = np.empty(2 * npairs, dtype=np.int64)
    for p in range(npairs):
        x = pair_x[p]
        y = pair_y[p]
        ax = fill[x]
        fill[x] += 1
        ay = fill[y]
        fill[y] += 1
        head[ax] = y
        head[ay] = x
        cap[ax] = pair_w[p]
        cap[ay] = pair_w[p]
        rev[ax] = ay
        rev[ay] = ax
    return start, head, cap, rev, cut


@njit(cache=True, nogil=True)
def augment(start, head, cap, rev, flow, is_source, is_sink, level, current, queue, path, limit):
    """Dinic's algorithm (Dinic 1970) from the current flow: blocking flows along BFS level graphs from every
    source node to any sink node until no augmenting path is left, or until the added flow reaches `limit`.
    Updates `flow` (antisymmetric per arc pair); returns the flow added."""
    nodes = start.shape[0] - 1
    added = 0
    while True:
        for x in range(nodes):
            level[x] = -1
        tail = 0
        for x in range(nodes):
            if is_source[x]:
                level[x] = 0
                queue[tail] = x
                tail += 1
        nsources = tail
        sink_level = -1
        front = 0
        while front < tail:
            x = queue[front]
            front += 1
            if is_sink[x] or (sink_level >= 0 and level[x] >= sink_level):
                continue
            for a in range(start[x], start[x + 1]):
                y = head[a]
                if level[y] < 0 and cap[a] - flow[a] > 0:
                    level[y] = level[x] + 1
                    if is_sink[y] and sink_level < 0:
                        sink_level = level[y]
                    queue[tail] = y
                    tail += 1
        if sink_level < 0:
            return added
        for x in range(nodes):
            current[x] = start[x]
        for i in range(nsources):
            source = queue[i]
            while True:
                depth = 0
                x = source
                found = False
                while True:
                    if is_sink[x]:
                        found = True
                        break
                    advanced = False
                    while current[x] < start[x + 1]:
                        a = current[x]
                        y = head[a]
                        if level[y] == level[x] + 1 and cap[a] - flow[a] > 0 and (is_sink[y] or level[y] < sink_level):
                            path[depth] = a
                            depth += 1
                            x = y
                            advanced = True
                            break
                        current[x] += 1
                    if not advanced:
                        if depth == 0:
                            break
                        level[x] = -1
                        depth -= 1
                        x = head[rev[path[depth]]]
                        current[x] += 1
                if not found:
                    break
                bottleneck = cap[path[0]] - flow[path[0]]
                for d in range(1, depth):
                    r = cap[path[d]] - flow[path[d]]
                    if r < bottleneck:
                        bottleneck = r
                for d in range(depth):
                    a = path[d]
                    flow[a] += bottleneck
                    flow[rev[a]] -= bottleneck
                added += bottleneck
                if added >= limit:
                    return added


@njit(cache=True, nogil=True)
def _extend(start, head, cap, rev, flow, forward, seeds, nseeds, inside, blocked, node_weights, weight, queue,
            border, in_border, nborder):
    """Add to the side `inside` every node reachable from `seeds` in the residual graph (forward: along arcs
    with residual capacity, the source side; backward: along arcs whose reverse has residual capacity, the
    sink side), never entering `blocked` nodes (the other side's terminals). Adds their weights to `weight`
    and their outside neighbours to the side's `border` list; returns the new border length."""
    ncon = node_weights.shape[1]
    tail = 0
    for i in range(nseeds):
        x = seeds[i]
        if not inside[x]:
            inside[x] = True
            queue[tail] = x
            tail += 1
    front = 0
    while front < tail:
        x = queue[front]
        front += 1
        for c in range(ncon):
            weight[c] += node_weights[x, c]
        for a in range(start[x], start[x + 1]):
            y = head[a]
            if inside[y]:
                continue
            r = a if forward else rev[a]
            if cap[r] - flow[r] > 0 and not blocked[y]:
                inside[y] = True
                queue[tail] = y
                tail += 1
            elif not in_border[y]:
                in_border[y] = True
                border[nborder] = y
                nborder += 1
    return nborder


@njit(cache=True, nogil=True)
def _pick_pierce(border, nborder, inside, in_border, blocked, opposite_reach, origin, side, seed):
    """FlowCutter's piercing choice among the side's border nodes (dropping those that joined a side): first a
    node the other side cannot reach (piercing it adds no flow), then one that was in this side's block, ties by
    a seeded hash. Returns (node or -1, the compacted border length)."""
    best = -1
    best_key = -1
    best_hash = -1
    kept = 0
    for i in range(nborder):
        y = border[i]
        if inside[y] or blocked[y]:
            in_border[y] = False
            continue
        border[kept] = y
        kept += 1
        key = (0 if opposite_reach[y] else 2) + (1 if origin[y] == side else 0)
        h = mix_hash(y, seed)
        if key > best_key or (key == best_key and h > best_hash):
            best = y
            best_key = key
            best_hash = h
    return best, kept


@njit(cache=True, nogil=True)
def _relative_load(weight, limit):
    load = 0.0
    for c in range(weight.shape[0]):
        r = weight[c] / max(limit[c], 1)
        if r > load:
            load = r
    return load


@njit(cache=True, nogil=True)
def _fits(weight, limit):
    for c in range(weight.shape[0]):
        if weight[c] > limit[c]:
            return False
    return True


@njit(cache=True, nogil=True)
def flowcutter(start, head, cap, rev, node_weights, origin, limit_a, limit_b, initial_cut, seed, source_side,
               max_flow_piercings):
    """A balanced minimum cut of the network below `initial_cut`, FlowCutter-style (Hamann and Strasser 2018;
    Gottesbüren, Heuer and Sanders, SEA 2020, as in Mt-KaHyPar's flow refinement).

    Node R is the source, R+1 the sink. Max flow by `augment`; the source side S_r (reachable from the sources)
    and the sink side T_r (reaching the sinks) give the two extreme minimum cuts. If one of them leaves both
    sides within their limits (`limit_a` for the source side, `limit_b` for the sink side, every constraint),
    the more balanced one is taken. Otherwise the lighter side (relative to its limit) becomes all terminals and
    one border node is pierced into it (one the other side cannot reach first: the flow stays the same), and
    the loop goes on with more flow where needed, until a balanced cut is found or the flow reaches
    `initial_cut`, or more than `max_flow_piercings` piercings needed more flow (each costs a max-flow
    update). Sets source_side[x] for every node; returns the cut value, or -1 when none below `initial_cut` was
    found."""
    nodes = start.shape[0] - 1
    ncon = node_weights.shape[1]
    s = nodes - 2
    t = nodes - 1
    total = np.zeros(ncon, dtype=np.int64)
    for x in range(nodes):
        for c in range(ncon):
            total[c] += node_weights[x, c]
    flow = np.zeros(head.shape[0], dtype=np.int64)
    is_source = np.zeros(nodes, dtype=np.bool_)
    is_sink = np.zeros(nodes, dtype=np.bool_)
    is_source[s] = True
    is_sink[t] = True
    level = np.empty(nodes, dtype=np.int64)
    current = np.empty(nodes, dtype=np.int64)
    queue = np.empty(nodes, dtype=np.int32)
    path = np.empty(nodes, dtype=np.int64)
    in_s = np.zeros(nodes, dtype=np.bool_)
    in_t = np.zeros(nodes, dtype=np.bool_)
    border_s = np.empty(nodes, dtype=np.int32)
    border_t = np.empty(nodes, dtype=np.int32)
    in_border_s = np.zeros(nodes, dtype=np.bool_)
    in_border_t = np.zeros(nodes, dtype=np.bool_)
    weight_s = np.zeros(ncon, dtype=np.int64)
    weight_t = np.zeros(ncon, dtype=np.int64)
    rest = np.empty(ncon, dtype=np.int64)
    seeds = np.empty(nodes, dtype=np.int32)
    one = np.empty(1, dtype=np.int32)
    nborder_s = 0
    nborder_t = 0
    flow_value = 0
    pierced_with_flow = 0
    recompute = True
    need_augment = True
    for _ in range(nodes + 2):
        if need_augment:
            flow_value += augment(start, head, cap, rev, flow, is_source, is_sink, level, current, queue, path,
                                  initial_cut - flow_value)
            if flow_value >= initial_cut:
                return -1
        if recompute:
            for x in range(nodes):
                in_s[x] = False
                in_t[x] = False
                in_border_s[x] = False
                in_border_t[x] = False
            weight_s[:] = 0
            weight_t[:] = 0
            nseeds = 0
            for x in range(nodes):
                if is_source[x]:
                    seeds[nseeds] = x
                    nseeds += 1
            nborder_s = _extend(start, head, cap, rev, flow, True, seeds, nseeds, in_s, is_sink, node_weights,
                                weight_s, queue, border_s, in_border_s, 0)
            nseeds = 0
            for x in range(nodes):
                if is_sink[x]:
                    seeds[nseeds] = x
                    nseeds += 1
            nborder_t = _extend(start, head, cap, rev, flow, False, seeds, nseeds, in_t, is_source, node_weights,
                                weight_t, queue, border_t, in_border_t, 0)
        # the two extreme minimum cuts: source side S_r, or everything but T_r
        for c in range(ncon):
            rest[c] = total[c] - weight_s[c]
        fit_s = _fits(weight_s, limit_a) and _fits(rest, limit_b)
        load_s = max(_relative_load(weight_s, limit_a), _relative_load(rest, limit_b))
        for c in range(ncon):
            rest[c] = total[c] - weight_t[c]
        fit_t = _fits(rest, limit_a) and _fits(weight_t, limit_b)
        load_t = max(_relative_load(rest, limit_a), _relative_load(weight_t, limit_b))
        if fit_s or fit_t:
            use_s = fit_s and (not fit_t or load_s <= load_t)
            for x in range(nodes):
                source_side[x] = in_s[x] if use_s else not in_t[x]
            return flow_value
        grow_source = _relative_load(weight_s, limit_a) <= _relative_load(weight_t, limit_b)
        if grow_source:
            v, nborder_s = _pick_pierce(border_s, nborder_s, in_s, in_border_s, is_sink, in_t, origin, 0, seed)
        else:
            v, nborder_t = _pick_pierce(border_t, nborder_t, in_t, in_border_t, is_source, in_s, origin, 1, seed)
        if v < 0:
            return -1
        if (grow_source and in_t[v]) or (not grow_source and in_s[v]):
            # piercing into the other side's reach adds flow: the growing side's reach becomes terminals (so
            # that side only grows, as in FlowCutter)
            for x in range(nodes):
                if grow_source and in_s[x]:
                    is_source[x] = True
                elif not grow_source and in_t[x]:
                    is_sink[x] = True
            if grow_source:
                is_source[v] = True
            else:
                is_sink[v] = True
            pierced_with_flow += 1
            if pierced_with_flow > max_flow_piercings:
                return -1
            need_augment = True
            recompute = True
        else:
            one[0] = v
            if grow_source:
                is_source[v] = True
                nborder_s = _extend(start, head, cap, rev, flow, True, one, 1, in_s, is_sink, node_weights,
                                    weight_s, queue, border_s, in_border_s, nborder_s)
            else:
                is_sink[v] = True
                nborder_t = _extend(start, head, cap, rev, flow, False, one, 1, in_t, is_source, node_weights,
                                    weight_t, queue, border_t, in_border_t, nborder_t)
            need_augment = False
            recompute = False
    return -1


@njit(cache=True, nogil=True)
def refine_pair(indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, block_a, block_b,
                region_fraction, max_depth, by_block, block_ptr, local, seed, max_flow_piercings):
    """Flow-based refinement of the blocks block_a and block_b (KaFFPa's flow refinement, Sanders and Schulz
    2011, with FlowCutter's balanced cuts as in Mt-KaHyPar).

    The region grows breadth-first from the common boundary inside A, up to (room left in B) + region_fraction * B's
    limit of weight (never all of A) and `max_depth` hops (0: no limit), and likewise inside B; the rest of A
    becomes the source, the rest of B the sink, and `flowcutter` looks for a balanced minimum cut. It is applied
    only when it cuts less than the current split and both blocks stay within their limits (every constraint). Edges
    to other blocks are cut either way, so the k-way cut drops by exactly the gain. Updates part and bw; `local`
    (all -1, length n) is scratch, returned as found; the region's list of vertices is allocated here and grows with
    it (a region is a small part of its two blocks). Returns the cut decrease."""
    ncon = vertex_weights.shape[1]
    bound_a = np.empty(ncon, dtype=np.int64)
    bound_b = np.empty(ncon, dtype=np.int64)
    for c in range(ncon):
        room_b = max(max_weights[block_b, c] - bw[block_b, c], 0)
        room_a = max(max_weights[block_a, c] - bw[block_a, c], 0)
        bound_a[c] = min(room_b + np.int64(region_fraction * max_weights[block_b, c]), bw[block_a, c] - 1)
        bound_b[c] = min(room_a + np.int64(region_fraction * max_weights[block_a, c]), bw[block_b, c] - 1)
    region = np.empty(min(max(indptr.shape[0] - 1, 1), 1024), dtype=np.int32)
    count, region = _grow_side(indptr, indices, edge_weights, vertex_weights, part, block_a, block_b, by_block,
                               block_ptr, bound_a, max_depth, local, region, 0)
    count_a = count
    count, region = _grow_side(indptr, indices, edge_weights, vertex_weights, part, block_b, block_a, by_block,
                               block_ptr, bound_b, max_depth, local, region, count)
    gain = 0
    if count_a > 0 and count > count_a:
        start, head, cap, rev, cut = _build_network(indptr, indices, edge_weights, part, region, count, local,
                                                    block_a, block_b)
        nodes = count + 2
        node_weights = np.zeros((nodes, ncon), dtype=np.int64)
        origin = np.zeros(nodes, dtype=np.int8)
        for c in range(ncon):
            node_weights[count, c] = bw[block_a, c]
            node_weights[count + 1, c] = bw[block_b, c]
        for i in range(count):
            v = region[i]
            side = count if i < count_a else count + 1
            origin[i] = 0 if i < count_a else 1
            for c in range(ncon):
                node_weights[i, c] = vertex_weights[v, c]
                node_weights[side, c] -= vertex_weights[v, c]
        origin[count + 1] = 1
        source_side = np.zeros(nodes, dtype=np.bool_)
        value = -1
        if cut > 0:
            value = flowcutter(start, head, cap, rev, node_weights, origin, max_weights[block_a], max_weights[block_b],
                               cut, seed, source_side, max_flow_piercings)
        if value >= 0:
            # recount the chosen split's cut in the network: the move is kept only when it is exactly lower
            new_cut = 0
            for x in range(nodes):
                for a in range(start[x], start[x + 1]):
                    if source_side[x] and not source_side[head[a]]:
                        new_cut += cap[a]
            if new_cut < cut:
                gain = cut - new_cut
                for i in range(count):
                    v = region[i]
                    target = block_a if source_side[i] else block_b
                    if part[v] != target:
                        for c in range(ncon):
                            bw[part[v], c] -= vertex_weights[v, c]
                            bw[target, c] += vertex_weights[v, c]
                        part[v] = target
    for i in range(count):
        local[region[i]] = -1
    return gain


@njit(cache=True, nogil=True)
def refine_pairs_chunk(first, stride, chunks, indptr, indices, edge_weights, vertex_weights, part, bw, max_weights,
                       pairs, region_fraction, retries, retry_shrink, max_depth, by_block, block_ptr, local, seeds,
                       max_flow_piercings, gains):
    """Chunks first, first + stride, ... of a batch of block pairs with no block in common (a chunk kernel for
    `apportion._chunked.run_chunked`, one pair per chunk): `refine_pair` on pair i = (pairs[i, 0], pairs[i, 1])
    with seed seeds[i], retried up to `retries` times with the region fraction times `retry_shrink` while it
    finds nothing; gains[i] = its cut decrease. `local` (all -1, length n) is shared: a pair sets and reads the
    entries of its own blocks' vertices only. Pairs without a common block touch disjoint vertices, block
    weights and parts, and a vertex another pair moves never enters or leaves this pair's blocks, so the batch
    gives what the pairs one after the other give, in any order."""
    for i in range(first, chunks, stride):
        fraction = region_fraction
        gain = 0
        for _ in range(1 + retries):
            gain = refine_pair(indptr, indices, edge_weights, vertex_weights, part, bw, max_weights, pairs[i, 0],
                               pairs[i, 1], fraction, max_depth, by_block, block_ptr, local, seeds[i],
                               max_flow_piercings)
            if gain > 0:
                break
            fraction *= retry_shrink
        gains[i] = gain
