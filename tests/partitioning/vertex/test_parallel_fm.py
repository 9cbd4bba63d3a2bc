"""Parallel k-way FM (`parallel_fm.py`): searches side by side on disjoint id ranges, merged with an exact recount."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import apportion
from apportion._chunked import using_threads
from apportion.graph.csr import Graph
from apportion.partitioning.vertex._parallel_fm_kernels import (
    border_vertices, merged_cut_decrease, seed_block_counts)
from apportion.partitioning.vertex._partition_kernels import block_weights, edge_cut
from apportion.partitioning.vertex._refine_kernels import kway_fm
from apportion.partitioning.vertex.balance import max_block_weights, rebalance_partition
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex.options import preset_options
from apportion.partitioning.vertex.parallel_fm import (
    MAX_SEARCHES, fm_searches, owner_ranges, parallel_fm, search_limits)

from vertex_helpers import grid

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _level(n: int, m: int, seed: int, ncon: int = 1) -> LevelGraph:
    """A random weighted level whose ids carry some locality (edges mostly between near ids, a tenth anywhere:
    many of them cross the searches' ranges, which the tests call for with `max_border_fraction=1.0`)."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, size=m)
    dst = np.clip(src + rng.integers(-6, 7, size=m), 0, n - 1)
    far = rng.random(m) < 0.1  # a tenth of the edges anywhere
    dst[far] = rng.integers(0, n, size=int(far.sum()))
    vw = rng.integers(1, 4, size=(n, ncon)) if ncon > 1 else rng.integers(1, 4, size=n)
    return LevelGraph.from_graph(Graph.from_edges(src, dst, rng.integers(1, 9, size=m), n=n, vertex_weights=vw))


def _start(level: LevelGraph, k: int, seed: int):
    rng = np.random.default_rng(seed)
    part = np.minimum(np.arange(level.n) * k // level.n + (rng.random(level.n) < 0.2), k - 1).astype(np.int32)
    limits = max_block_weights(level.vertex_weights.sum(axis=0), np.full(k, 1.0 / k), 0.05)
    bw = block_weights(level.vertex_weights, part, k)
    rebalance_partition(level, part, bw, limits, final=True)
    return part, bw, limits


def _cut(level: LevelGraph, part: np.ndarray) -> int:
    return int(edge_cut(level.indptr, level.indices, level.edge_weights, part))


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(2, 8), searches=st.integers(2, 7), ncon=st.integers(1, 2),
       rounds=st.integers(1, 3))
def test_parallel_fm_reports_its_exact_gain_and_keeps_every_block_within_its_limit(seed, k, searches, ncon, rounds):
    level = _level(300, 900, seed, ncon)
    part, bw, limits = _start(level, k, seed)
    before = _cut(level, part)
    gain = parallel_fm(level, part, bw, limits, 4, 0.5, seed, np.arange(level.n, dtype=np.int32), 0.0, searches,
                       rounds=rounds, max_border_fraction=1.0)
    assert gain >= 0
    assert before - _cut(level, part) == gain
    np.testing.assert_array_equal(bw, block_weights(level.vertex_weights, part, k))
    assert np.all(bw <= limits)


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(2, 6), searches=st.integers(2, 5))
def test_parallel_fm_gives_the_same_partition_on_one_thread_and_on_two(seed, k, searches):
    level = _level(400, 1200, seed)
    results = []
    for threads in (1, 2):
        part, bw, limits = _start(level, k, seed)
        with using_threads(threads):
            parallel_fm(level, part, bw, limits, 3, 0.5, seed, np.arange(level.n, dtype=np.int32), 0.0, searches,
                        max_border_fraction=1.0)
        results.append(part)
    np.testing.assert_array_equal(results[0], results[1])


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(2, 6))
def test_a_search_moves_only_its_own_vertices_and_ignores_what_others_wrote(seed, k):
    """One search (`kway_fm` with me = 1 of 3 owners) writes no other owner's vertex, and its moves and gain are
    the same whether or not the other searches have already written theirs into `part`: it sees them as
    `frozen` has them."""
    level = _level(300, 1000, seed)
    start, bw, limits = _start(level, k, seed)
    owner = np.random.default_rng(seed).integers(0, 3, size=level.n).astype(np.int32)
    mine = np.flatnonzero(owner == 1).astype(np.int32)
    runs = []
    for scrambled in (False, True):
        part = start.copy()
        if scrambled:  # what the other searches might have moved meanwhile
            others = owner != 1
            part[others] = np.random.default_rng(seed + 1).integers(0, k, size=int(others.sum()))
        before = part.copy()
        own_bw = bw.copy()
        gain = kway_fm(level.indptr, level.indices, level.edge_weights, level.vertex_weights, part, own_bw,
                       limits, k, 4, 0.5, 0, seed, mine, 0.0, -1, 0, start, owner, 1)
        np.testing.assert_array_equal(part[owner != 1], before[owner != 1])
        runs.append((gain, part[owner == 1], own_bw))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    np.testing.assert_array_equal(runs[0][2], runs[1][2])


def _serial_and_parallel(level: LevelGraph, start: np.ndarray, limits: np.ndarray, k: int, passes: int,
                         stop_fraction: float, seed: int) -> list[tuple[int, np.ndarray]]:
    """(gain, partition) of the serial kernel and of two searches from the same rebalanced start."""
    runs = []
    for searches in (1, 2):
        part = start.copy()
        bw = block_weights(level.vertex_weights, part, k)
        rebalance_partition(level, part, bw, limits, final=True)
        vertices = np.arange(level.n, dtype=np.int32)
        if searches == 1:
            gain = kway_fm(level.indptr, level.indices, level.edge_weights, level.vertex_weights, part, bw, limits,
                           k, passes, stop_fraction, 0, seed, vertices, 0.0, -1, 0, vertices[:0], vertices[:0], -1)
        else:
            gain = parallel_fm(level, part, bw, limits, passes, stop_fraction, seed, vertices, 0.0, searches)
        runs.append((int(gain), part))
    return runs


def test_parallel_fm_finds_what_the_serial_kernel_finds_on_a_mesh():
    """On a grid numbered row by row, two searches (each half of the rows) and the serial kernel lower the cut of
    a striped start to within a few per cent of each other."""
    level = LevelGraph.from_graph(grid(60, 60))
    k = 4
    start = ((np.arange(level.n) % 60) * k // 60).astype(np.int32)  # vertical stripes: every row crosses them
    start[np.random.default_rng(1).random(level.n) < 0.05] = 0
    limits = max_block_weights(level.vertex_weights.sum(axis=0), np.full(k, 0.25), 0.05)
    (serial, _), (parallel, _) = _serial_and_parallel(level, start, limits, k, 8, 0.25, 0)
    assert parallel > 0
    assert parallel >= 0.95 * serial


def test_ids_without_locality_get_the_serial_kernel():
    """A mesh whose ids are shuffled: nearly every seed has a neighbour in the other range, so parallel_fm makes
    exactly the serial kernel's moves."""
    mesh = grid(40, 40)
    rng = np.random.default_rng(0)
    perm = rng.permutation(mesh.n)
    u, v, _ = mesh.edges()
    level = LevelGraph.from_graph(Graph.from_edges(perm[u], perm[v], n=mesh.n))
    k = 4
    start = rng.integers(0, k, size=level.n).astype(np.int32)
    limits = max_block_weights(level.vertex_weights.sum(axis=0), np.full(k, 0.25), 0.1)
    (serial, serial_part), (parallel, parallel_part) = _serial_and_parallel(level, start, limits, k, 3, 0.5, 5)
    assert serial == parallel > 0
    np.testing.assert_array_equal(serial_part, parallel_part)


def test_searches_that_undo_each_other_are_dropped_for_one_serial_search():
    """c - a - u | v - b - d (blocks 0 | 1; the middle edge weighs 10, the outer ones 5, the two beside the
    middle 1; u and v weigh 1, the others 10, each block may take 9 more): search 0 (c, a, u) moves u across
    for a gain of 9 as it sees v, search 1 (v, b, d) moves v across for 9 as it sees u; together they would
    raise the cut by 2. The round is dropped and one serial search moves one of them: a gain of 9."""
    src, dst, w = [0, 1, 2, 3, 4], [1, 2, 3, 4, 5], [5, 1, 10, 1, 5]
    level = LevelGraph.from_graph(Graph.from_edges(src, dst, w, n=6, vertex_weights=[10, 10, 1, 1, 10, 10]))
    part = np.array([0, 0, 0, 1, 1, 1], dtype=np.int32)
    bw = block_weights(level.vertex_weights, part, 2)
    limits = np.full((2, 1), 30, dtype=np.int64)
    frozen = part.copy()
    both = part.copy()
    both[2], both[3] = 1, 0
    assert merged_cut_decrease(level.indptr, level.indices, level.edge_weights, frozen, both)[0] == -2
    gain = parallel_fm(level, part, bw, limits, 2, 0.5, 0, np.arange(6, dtype=np.int32), 0.0, 2, rounds=1,
                       max_border_fraction=1.0)
    assert gain == 9 and _cut(level, part) == 1
    np.testing.assert_array_equal(bw, block_weights(level.vertex_weights, part, 2))


@SETTINGS
@given(seed=st.integers(0, 10**6), k=st.integers(2, 5))
def test_merged_cut_decrease_is_the_difference_of_the_two_cuts(seed, k):
    level = _level(120, 400, seed)
    rng = np.random.default_rng(seed)
    frozen = rng.integers(0, k, size=level.n).astype(np.int32)
    part = frozen.copy()
    moved = rng.random(level.n) < 0.3
    part[moved] = rng.integers(0, k, size=int(moved.sum()))
    decrease, listed = merged_cut_decrease(level.indptr, level.indices, level.edge_weights, frozen, part)
    assert decrease == _cut(level, frozen) - _cut(level, part)
    np.testing.assert_array_equal(listed, np.flatnonzero(part != frozen))


@given(n=st.integers(9, 300), searches=st.integers(2, 9), shift=st.sampled_from([0.0, 0.5]),
       seed=st.integers(0, 10**6))
@SETTINGS
def test_owner_ranges_cover_every_id_and_share_the_seeds_evenly(n, searches, shift, seed):
    rng = np.random.default_rng(seed)
    seeds = np.flatnonzero(rng.random(n) < 0.5).astype(np.int32)
    if seeds.shape[0] < searches:
        seeds = np.arange(searches, dtype=np.int32)
    owner = owner_ranges(n, seeds, searches, shift)
    assert owner.min() >= 0 and owner.max() < searches
    counts = np.bincount(owner[seeds], minlength=searches)
    assert counts.max() - counts.min() <= 1
    # each search owns one run of ids (two where its range wraps around)
    assert np.count_nonzero(np.diff(owner)) <= searches


def test_search_limits_share_each_blocks_room_by_the_seeds_next_to_it():
    bw = np.array([[10], [20], [35], [5]], dtype=np.int64)
    max_weights = np.array([[17], [20], [30], [9]], dtype=np.int64)
    counts = np.array([[1, 4, 0, 0], [2, 0, 5, 0], [4, 1, 1, 0]], dtype=np.int64)
    limits = search_limits(bw, max_weights, counts)
    assert limits.shape == (3, 4, 1)
    # block 0: room 7 shared 1 : 2 : 4; block 1: no room; block 2: over its limit; block 3: no seeds, even shares
    np.testing.assert_array_equal(limits[:, :, 0], [[11, 20, 30, 6], [12, 20, 30, 6], [14, 20, 30, 6]])
    assert np.all(bw + (limits - bw).clip(min=0).sum(axis=0) <= np.maximum(max_weights, bw))


def test_seed_block_counts_count_a_seed_for_its_block_and_each_block_next_to_it():
    level = LevelGraph.from_graph(grid(1, 6))  # a path 0 - 1 - 2 - 3 - 4 - 5
    part = np.array([0, 0, 1, 1, 2, 2], dtype=np.int32)
    seeds = np.array([1, 2, 3, 4], dtype=np.int32)
    counts = seed_block_counts(level.indptr, level.indices, part, seeds, np.array([0, 0, 1, 1], dtype=np.int32),
                               2, 3)
    np.testing.assert_array_equal(counts, [[2, 2, 0], [0, 2, 2]])  # 1: {0, 1}; 2: {1, 0}; 3: {1, 2}; 4: {2, 1}


def test_fm_searches_depends_on_the_seeds_not_the_threads():
    assert fm_searches(10**6, 0) == 1
    assert fm_searches(199_999, 100_000) == 1
    assert fm_searches(200_000, 100_000) == 2
    assert fm_searches(399_999, 100_000) == 2  # a power of two, not 3
    assert fm_searches(400_000, 100_000) == 4
    assert fm_searches(10**9, 1000) == MAX_SEARCHES


def test_border_vertices_are_those_with_a_neighbour_of_another_owner():
    level = LevelGraph.from_graph(grid(1, 6))  # a path 0 - 1 - 2 - 3 - 4 - 5
    owner = np.array([0, 0, 0, 1, 1, 1], dtype=np.int32)
    np.testing.assert_array_equal(border_vertices(level.indptr, level.indices, owner,
                                                  np.arange(6, dtype=np.int32)), [2, 3])


def test_partition_runs_parallel_fm_and_stays_the_same_whatever_the_thread_count(monkeypatch):
    from apportion.partitioning.vertex import parallel_fm as parallel_fm_module

    rounds = []
    original = parallel_fm_module.run_chunked
    monkeypatch.setattr(parallel_fm_module, "run_chunked",
                        lambda kernel, chunks, *a: rounds.append(chunks) or original(kernel, chunks, *a))
    graph = grid(100, 100)
    options = preset_options("default", fm_search_seeds=300)
    one = apportion.partition(graph, 8, seed=3, threads=1, preset=options)
    assert rounds and min(rounds) >= 2  # searches side by side ran
    two = apportion.partition(graph, 8, seed=3, threads=2, preset=options)
    np.testing.assert_array_equal(one.assignment, two.assignment)
    assert one.balanced


def test_fm_search_seeds_must_be_a_count():
    for bad in (-1, 2.5, True, "50000"):
        with pytest.raises(apportion.InputError, match="fm_search_seeds must be an integer >= 0"):
            preset_options("default", fm_search_seeds=bad)
    assert preset_options("default", fm_search_seeds=0).fm_search_seeds == 0
