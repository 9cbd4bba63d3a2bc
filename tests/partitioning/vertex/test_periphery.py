"""The core-periphery candidates (`periphery.py`): the periphery block for graphs with many isolated vertices, and
the hub block for graphs with hubs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import apportion
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.partitioning.vertex import multilevel
from apportion.partitioning.vertex.balance import max_block_weights
from apportion.partitioning.vertex.contract import LevelGraph
from apportion.partitioning.vertex._partition_kernels import hub_block_bound
from apportion.partitioning.vertex.options import preset_options
from apportion.partitioning.vertex.periphery import hub_block_candidate, periphery_candidate


def _core_periphery(seed=0, core=150, leaves=150, isolated=200):
    """A dense core, leaves hanging off it by one or two edges, and isolated vertices (R-MAT's shape)."""
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for a in range(core) for b in range(a + 1, core) if rng.random() < 0.15]
    for leaf in range(core, core + leaves):
        for hub in rng.choice(core, size=int(rng.integers(1, 3)), replace=False):
            pairs.append((int(hub), leaf))
    pairs = np.array(pairs)
    return Graph.from_edges(pairs[:, 0], pairs[:, 1], n=core + leaves + isolated)


def _degree_split_cut(graph, limit):
    """The candidate for k = 2 recomputed independently: the lowest-degree vertices (isolated first) fill one
    block up to its limit, the rest is the other block."""
    order = np.lexsort((np.arange(graph.n), graph.degrees()))
    part = np.zeros(graph.n, dtype=np.int32)
    part[order[:limit]] = 1
    u, v, _ = graph.edges()
    return int(np.count_nonzero(part[u] != part[v]))


def test_k2_finds_the_periphery_split(monkeypatch):
    graph = _core_periphery()
    limit = int(np.floor(1.03 * graph.n / 2))
    reference = _degree_split_cut(graph, limit)
    with_candidate = apportion.partition(graph, 2, seed=1)
    assert with_candidate.balanced
    assert with_candidate.cut <= reference
    monkeypatch.setattr(multilevel, "PERIPHERY_MIN_SLACK", float("inf"))
    without = apportion.partition(graph, 2, seed=1)
    # the multilevel partitioner alone splits the core; the candidate is what finds the cheap split here
    assert without.cut > with_candidate.cut


@pytest.mark.parametrize("targets", [[3, 1, 1], [1, 1]])
def test_candidate_respects_limits(targets):
    graph = _core_periphery(seed=2)
    level = LevelGraph.from_graph(graph)
    shares = np.asarray(targets, float) / sum(targets)
    limits = max_block_weights(level.vertex_weights.sum(axis=0), shares, 0.03)

    def partition_core(sub, blocks, sub_shares, epsilon, sub_limits):
        result = apportion.partition(Graph._trusted(sub.indptr, sub.indices, None, None, "core"), blocks,
                                     targets=sub_shares, imbalance=epsilon)
        return result.assignment

    part = periphery_candidate(level, len(targets), shares, limits, partition_core)
    assert part is not None
    weights = np.bincount(part, minlength=len(targets))
    assert np.all(weights <= limits[:, 0])
    biggest = int(np.argmax(shares))
    assert np.all(part[graph.degrees() == 0] == biggest)


def test_candidate_does_not_apply_to_small_blocks_or_several_constraints():
    graph = _core_periphery(seed=3)
    level = LevelGraph.from_graph(graph)
    shares = np.full(8, 1 / 8)
    limits = max_block_weights(level.vertex_weights.sum(axis=0), shares, 0.03)
    assert periphery_candidate(level, 8, shares, limits, None) is None
    two = graph.with_weights(vertex_weights=np.ones((graph.n, 2), dtype=np.int64))
    level2 = LevelGraph.from_graph(two)
    shares2 = np.array([0.5, 0.5])
    assert periphery_candidate(level2, 2, shares2, max_block_weights(level2.vertex_weights.sum(axis=0), shares2,
                                                                      0.03), None) is None


# --- the hub block -------------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(0, 120), st.integers(1, 5), st.integers(0, 2**31 - 1), st.booleans())
def test_hub_block_bound_counts_what_it_says(n, edges, k, seed, chunked):
    """The bound's two sums, on one chunk or in ranges of equal arc counts on several."""
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, edges), rng.integers(0, n, edges)
    keep = u != v
    graph = Graph.from_edges(u[keep], v[keep], rng.integers(1, 9, int(keep.sum())), n=n)
    level = LevelGraph.from_graph(graph)
    hub = rng.random(n) < 0.3
    part = rng.integers(0, k, n).astype(np.int32)
    a, b, w = graph.edges()
    w = np.ones(a.shape[0], dtype=np.int64) if w is None else w
    across = int(w[hub[a] != hub[b]].sum())
    rest_cut = int(w[~hub[a] & ~hub[b] & (part[a] != part[b])].sum())
    from apportion.partitioning.vertex import _partition_kernels

    saved = _partition_kernels.PARALLEL_CUT_MIN_ENTRIES
    _partition_kernels.PARALLEL_CUT_MIN_ENTRIES = 0 if chunked else saved
    try:
        found = hub_block_bound(level.indptr, level.indices, level.edge_weights, hub, part)
    finally:
        _partition_kernels.PARALLEL_CUT_MIN_ENTRIES = saved
    assert found == (across, rest_cut)


def _hub_options(preset="fast", **changes):
    # small R-MAT graphs have hubs 30-70 times the average degree: below the presets' heavy-tailed ratio
    return preset_options(preset, heavy_tailed_ratio=10.0, **changes)


@pytest.mark.parametrize("k", [4, 8, 16])
def test_hub_block_cuts_less_on_rmat(k):
    graph = apportion.generate("rmat", n=4096, seed=0)
    with_hub = apportion.partition(graph, k, preset=_hub_options(), seed=0)
    without = apportion.partition(graph, k, preset=_hub_options(hub_block=False), seed=0)
    assert with_hub.balanced
    # measured: 11,488 / 22,753 / 31,949 against 27,618 / 36,300 / 40,279
    assert with_hub.cut < 0.9 * without.cut
    degrees = graph.degrees()
    hubs = np.argsort(-degrees, kind="stable")[:20]
    assert np.unique(with_hub.assignment[hubs]).shape[0] == 1  # the largest hubs share one block


@pytest.mark.parametrize("preset", ["fast", "default"])
def test_presets_as_shipped_build_the_hub_block_on_small_rmat(preset):
    # max degree 46 x the average: below the heavy-tailed ratio (100), above HUB_BLOCK_MIN_RATIO (10)
    graph = apportion.generate("rmat", n=4096, seed=0)
    shipped = apportion.partition(graph, 4, preset=preset, seed=0)
    without = apportion.partition(graph, 4, preset=preset_options(preset, hub_block=False), seed=0)
    assert shipped.balanced
    assert shipped.cut < 0.9 * without.cut  # measured: 11,488 against 20,604 (fast) and 17,005 (default)


@pytest.mark.parametrize("targets", [[1, 1, 1, 1], [1, 4, 2, 1], [5, 1]])
def test_hub_candidate_respects_limits_and_puts_hubs_in_the_largest_block(targets):
    graph = apportion.generate("rmat", n=2048, seed=3)
    level = LevelGraph.from_graph(graph)
    shares = np.asarray(targets, float) / sum(targets)
    limits = max_block_weights(level.vertex_weights.sum(axis=0), shares, 0.03)
    seen = []

    def partition_rest(sub, blocks, sub_shares, epsilon, sub_limits):
        seen.append((sub.n, blocks))
        result = apportion.partition(Graph._trusted(sub.indptr, sub.indices, None, None, "rest"), blocks,
                                     targets=sub_shares, imbalance=epsilon)
        return result.assignment

    part = hub_block_candidate(level, len(targets), shares, limits, partition_rest)
    assert part is not None and part.min() >= 0
    assert np.all(np.bincount(part, minlength=len(targets)) <= limits[:, 0])
    biggest = int(np.argmax(shares))
    top = np.argsort(-graph.degrees(), kind="stable")[:10]
    assert np.all(part[top] == biggest)
    assert seen == ([] if len(targets) == 2 else [seen[0]]) and (not seen or seen[0][1] == len(targets) - 1)


def test_hub_candidate_is_declined_when_its_estimate_does_not_pay():
    graph = apportion.generate("rmat", n=2048, seed=3)
    level = LevelGraph.from_graph(graph)
    shares = np.full(4, 0.25)
    limits = max_block_weights(level.vertex_weights.sum(axis=0), shares, 0.03)

    def never(*args):
        raise AssertionError("the rest must not be partitioned when the estimate says no")

    current = np.zeros(graph.n, dtype=np.int32)
    # a current cut of 1 cannot be beaten: the hubs' edges into the rest alone cut more
    assert hub_block_candidate(level, 4, shares, limits, never, current, 1) is None
    # several constraints: not applicable
    two = graph.with_weights(vertex_weights=np.ones((graph.n, 2), dtype=np.int64))
    level2 = LevelGraph.from_graph(two)
    limits2 = max_block_weights(level2.vertex_weights.sum(axis=0), shares, 0.03)
    assert hub_block_candidate(level2, 4, shares, limits2, never) is None


def test_meshes_never_build_the_hub_block(monkeypatch):
    from apportion.partitioning.vertex import multilevel as ml
    calls = []
    monkeypatch.setattr(ml, "hub_block_candidate", lambda *a, **kw: calls.append(1))
    apportion.partition(apportion.generate("grid2d", rows=40, cols=40), 8, seed=0)
    assert calls == []


def _context(level, k, options):
    from apportion.partitioning.vertex.context import PartitionContext
    shares = np.full(k, 1.0 / k)
    limits = max_block_weights(level.vertex_weights.sum(axis=0), shares, 0.03)
    return PartitionContext(k=k, targets=shares, epsilon=0.03, max_block_weights=limits, options=options, seed=0)


def _recording_refine(monkeypatch):
    calls = []
    real = multilevel.refine

    def refine(graph, part, bw, ctx, seed, finest=True, give_up_above=-1):
        calls.append((graph.n, finest, give_up_above))
        return real(graph, part, bw, ctx, seed, finest=finest, give_up_above=give_up_above)

    monkeypatch.setattr(multilevel, "refine", refine)
    return calls


def test_a_single_cycle_keeps_the_hub_block_and_its_finest_fm_knows_what_to_beat(monkeypatch):
    """With the hub block as its alternative, a multilevel cycle on R-MAT returns the candidate, and only the
    finest level's refinement is told the candidate's cut (that of the rest, a cycle of its own, is not);
    without an alternative, or with one that returns nothing, the cycle is what it was."""
    graph = apportion.generate("rmat", n=4096, seed=0)
    level = LevelGraph.from_graph(graph)
    options = _hub_options("default")
    plain, _ = multilevel._multilevel(level, _context(level, 8, options))
    unused, _ = multilevel._multilevel(level, _context(level, 8, options), alternative=lambda g, p, c: (None, -1))
    np.testing.assert_array_equal(plain, unused)
    built = []
    hub_block = multilevel._hub_block_alternative(_context(level, 8, options))

    def alternative(g, p, c):
        assert c == multilevel.edge_cut(g.indptr, g.indices, g.edge_weights, p)
        built.append(hub_block(g, p, c))
        return built[-1]

    calls = _recording_refine(monkeypatch)
    # never taken unrefined here (the hub block cuts under 0.7 x the projected partition: the next test)
    monkeypatch.setattr(multilevel, "ALTERNATIVE_TAKEN_AT", 0.0)
    kept, _ = multilevel._multilevel(level, _context(level, 8, options), alternative=alternative)
    candidate, candidate_cut = built[0]
    assert candidate is not None and candidate_cut > 0
    np.testing.assert_array_equal(kept, candidate)
    cut = lambda p: int(multilevel.edge_cut(level.indptr, level.indices, level.edge_weights, p))  # noqa: E731
    assert cut(kept) == candidate_cut < 0.9 * cut(plain)  # measured: 22,653 against 29,003
    # every other refinement (the coarser levels, the rest's own cycle inside the candidate) knows nothing
    assert [call for call in calls if call[2] != -1] == [(level.n, True, candidate_cut)]


def test_a_single_cycle_ignores_an_alternative_that_cuts_more():
    graph = apportion.generate("delaunay", n=3000, seed=1)
    level = LevelGraph.from_graph(graph)
    options = preset_options("default")
    plain, _ = multilevel._multilevel(level, _context(level, 4, options))
    worse = np.repeat(np.arange(4, dtype=np.int32), -(-level.n // 4))[:level.n]
    np.random.default_rng(0).shuffle(worse)
    worse_cut = int(multilevel.edge_cut(level.indptr, level.indices, level.edge_weights, worse))
    kept, _ = multilevel._multilevel(level, _context(level, 4, options), alternative=lambda g, p, c: (worse, worse_cut))
    np.testing.assert_array_equal(kept, plain)


def test_an_alternative_far_under_the_projected_cut_is_taken_without_refining_the_finest_level(monkeypatch):
    """rmat 2^12 at k = 4: the hub block cuts under ALTERNATIVE_TAKEN_AT times the main cycle's projected
    partition, so the finest level is not refined (no refinement is told its cut); refining it anyway (the
    bound at 0) finds the same answer, the FM there giving up against the candidate."""
    graph = apportion.generate("rmat", n=4096, seed=0)
    calls = _recording_refine(monkeypatch)
    taken = apportion.partition(graph, 4, preset="default", seed=0)
    skipped = list(calls)
    assert [give_up for _, _, give_up in skipped if give_up >= 0] == []
    calls.clear()
    monkeypatch.setattr(multilevel, "ALTERNATIVE_TAKEN_AT", 0.0)
    refined = apportion.partition(graph, 4, preset="default", seed=0)
    told = [call for call in calls if call[2] >= 0]
    assert len(told) == 1 and told[0][2] == taken.cut and told[0][1]
    assert len(calls) == len(skipped) + 1 and told[0][0] == max(n for n, _, _ in calls)
    np.testing.assert_array_equal(refined.assignment, taken.assignment)


def test_the_hub_block_is_built_inside_one_cycle_or_after_several(monkeypatch):
    graph = apportion.generate("rmat", n=4096, seed=0)
    after = []
    real = multilevel._try_hub_block
    monkeypatch.setattr(multilevel, "_try_hub_block", lambda *a: after.append(1) or real(*a))
    calls = _recording_refine(monkeypatch)
    single = apportion.partition(graph, 4, preset="default", seed=0)
    assert after == [] and single.cut == 11_488  # the candidate, measured, taken inside the single cycle
    calls.clear()
    several = apportion.partition(graph, 4, preset=preset_options("default", multilevel_runs=2), seed=0)
    assert after == [1] and all(give_up == -1 for _, _, give_up in calls)
    assert several.balanced
    with pytest.raises(ValueError, match="single multilevel cycle"):
        level = LevelGraph.from_graph(graph)
        multilevel._cycles(level, _context(level, 4, preset_options("default", vcycles=1)),
                           alternative=lambda g, p, c: (None, -1))


def _fm_settings_by_k(monkeypatch, options) -> list:
    """Partition rmat 2^12 into 8 blocks with `options` and return (k, FM's stop fraction, FM's passes) of every
    `_partition_without_isolated` call: the top level (k = 8) first, then the hub block's rest (k = 7)."""
    graph = apportion.generate("rmat", n=4096, seed=0)
    seen = []
    real = multilevel._partition_without_isolated

    def spy(level, vertex_weights, ctx, alternative=None):
        seen.append((ctx.k, ctx.options.fm_stop_fraction, ctx.options.fm_passes))
        return real(level, vertex_weights, ctx, alternative)

    monkeypatch.setattr(multilevel, "_partition_without_isolated", spy)
    assert apportion.partition(graph, 8, preset=options, seed=0).balanced
    return seen


@pytest.mark.parametrize("rest_stop, expected", [(None, 0.1), (0.0, 0.25), (0.4, 0.4)])
def test_the_hub_blocks_rest_is_refined_with_its_own_fm_patience(monkeypatch, rest_stop, expected):
    """`default` partitions the rest (k - 1 blocks) with FM's patience `hub_rest_fm_stop_fraction` (0.1);
    0 leaves the preset's own 0.25; the top-level cycle keeps the preset's."""
    options = preset_options("default") if rest_stop is None else \
        preset_options("default", hub_rest_fm_stop_fraction=rest_stop)
    seen = [(k, stop) for k, stop, _ in _fm_settings_by_k(monkeypatch, options)]
    assert seen[0] == (8, 0.25) and (7, expected) in seen[1:]


@pytest.mark.parametrize("rest_passes, expected", [(None, 2), (0, 8), (1, 1), (5, 5)])
def test_the_hub_blocks_rest_is_refined_with_its_own_fm_passes(monkeypatch, rest_passes, expected):
    """`hub_rest_fm_passes` sets FM's passes while the rest (k - 1 blocks) is partitioned; 0 leaves the
    preset's own (8 for `default`); the top-level cycle keeps the preset's. `default` sets 2."""
    options = preset_options("default") if rest_passes is None else \
        preset_options("default", hub_rest_fm_passes=rest_passes)
    seen = [(k, passes) for k, _, passes in _fm_settings_by_k(monkeypatch, options)]
    assert seen[0] == (8, 8) and (7, expected) in seen[1:]


def test_a_negative_hub_rest_fm_passes_count_is_refused():
    with pytest.raises(InputError, match="hub_rest_fm_passes"):
        preset_options("default", hub_rest_fm_passes=-1)


def test_a_negative_hub_rest_patience_is_refused():
    with pytest.raises(InputError, match="hub_rest_fm_stop_fraction"):
        preset_options("default", hub_rest_fm_stop_fraction=-0.1)
