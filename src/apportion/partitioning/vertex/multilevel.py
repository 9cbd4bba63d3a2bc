"""`partition`: the multilevel k-way vertex partitioner with heterogeneous block targets.

Seed 000 ch. 4-5 (coarsen by matching, partition the coarsest graph, project and refine level by level), with
this project's additions (notes, part B): label-propagation clustering, unequal block targets as a first-class
input, and an explicit rebalancer at every level so the result always meets
block_weight[b, c] <= floor((1 + imbalance) * ceil(targets[b] * W[c])) (METIS's and KaMinPar's limit).
"""

from __future__ import annotations

import time
from dataclasses import replace

import numba
import numpy as np

from apportion import ui
from apportion._chunked import using_threads
from apportion._memory import release_free_memory
from apportion.checks import check_imbalance, check_k, check_seed, check_shares, check_threads
from apportion.errors import InputError, UnavailableError
from apportion.graph._degree_kernels import degree_extremes
from apportion.graph.csr import as_graph
from apportion.graph.metrics import imbalance_against, whole_target_weights
from apportion.graph.reorder import locality_spread, renumber_breadth_first
from apportion.partitioning.vertex import deep
from apportion.partitioning.vertex._partition_kernels import block_weights, edge_cut, edge_cut_parallel
from apportion.partitioning.vertex._balance_kernels import place_isolated
from apportion.partitioning.vertex.balance import check_feasible, max_block_weights, rebalance_partition
from apportion.partitioning.vertex.coarsen import coarsen, level_threads
from apportion.partitioning.vertex.context import PartitionContext
from apportion.partitioning.vertex.contract import (LevelGraph, core_level, kernel_edge_weights,
                                                    kernel_vertex_weights, project_partition)
from apportion.partitioning.vertex.initial import initial_partition
from apportion.partitioning.vertex.options import PartitionOptions, preset_options
from apportion.partitioning.vertex.periphery import (HUB_BLOCK_MIN_RATIO, PERIPHERY_MIN_SLACK, hub_block_candidate,
                                                     periphery_candidate)
from apportion.partitioning.vertex.refine import refine
from apportion.partitioning.vertex.result import Partition
from apportion.platform.cuda import CudaKernel, numba_cuda_device_count, simulator_enabled

#: a call shows a progress line (on a terminal only) when its expected work, vertices x multilevel cycles
#: (x 4 where flow refinement runs on the input's level), is at least this: `fast` and `default` from 200,000
#: vertices, `strong` (flows on every level) from 50,000, `quality` (3 runs + 2 V-cycles with flows) from 10,000
PROGRESS_MIN_WORK = 200_000

#: the devices `partition` accepts
DEVICES = ("cpu", "cuda", "auto")
#: device="auto" runs on a GPU from this many vertices on. Not yet measured on a GPU (docs/gpu.md): a
#: conservative guess, so that "auto" only moves graphs to the GPU where the copies are surely paid for
GPU_MIN_VERTICES = 1_000_000
#: one GPU multilevel cycle (loaded on first use: `import apportion` and the CPU path never import numba.cuda)
_GPU_CYCLE = CudaKernel("apportion.partitioning.vertex.gpu_multilevel", "gpu_multilevel")
_GPU_RELEASE = CudaKernel("apportion.partitioning.vertex.gpu_multilevel", "release")


def partition(graph, k: int, *, targets=None, imbalance: float = 0.03, seed: int = 0,
              preset: str | PartitionOptions = "default", threads: int | None = None,
              device: str = "cpu") -> Partition:
    """Partition the vertices of `graph` into k blocks of prescribed relative sizes with a small edge cut.

    Args:
        graph: an `apportion.Graph` (vertex weights with one or several constraints and edge weights honoured).
        k: number of blocks, 1 <= k <= n.
        targets: relative block sizes (e.g. device speeds), length k, positive; None = equal blocks.
        imbalance: epsilon >= 0; every block b ends with weight <= floor((1 + epsilon) * ceil(targets[b] * W))
            in every constraint c (W = the constraint's total vertex weight; a hard guarantee). The share is
            rounded up to a whole weight before the tolerance applies, as METIS and KaMinPar do ((1 + epsilon) *
            ceil(W / k) for equal blocks), so with unit vertex weights every k <= n has a partition, even at
            epsilon = 0.
        seed: every random choice derives from it; same seed and thread count, same result.
        preset: "fast", "default", "strong", "quality" (see `options.PRESETS`) or a `PartitionOptions`.
        threads: Numba threads for the parallel kernels (default: Numba's current setting).
        device: "cpu" (default), "cuda" (coarsening and refinement on the GPU, the coarsest graph partitioned
            on the CPU: `gpu_multilevel`, docs/gpu.md; one vertex-weight constraint; under
            NUMBA_ENABLE_CUDASIM=1 the CUDA simulator) or "auto" (the GPU when a real one exists, the graph
            has at least GPU_MIN_VERTICES vertices and one constraint; else the CPU). Same limits, presets and
            seeds either way; the two devices give different partitions.

    Returns a `Partition` (assignment, block weights, cut, imbalance, per-phase times). Its `imbalance` is
    max over b, c of block_weight / ceil(targets[b] * W) - 1, against the same rounded-up target as the limit,
    so it is <= epsilon (up to floating-point rounding) exactly when every block is within its limit.
    Raises InputError for k < 1, k > n, bad targets, negative imbalance, an unknown device, device="cuda" with
    several vertex-weight constraints, or when no partition within the imbalance can exist (a vertex heavier
    than every block's limit); UnavailableError for device="cuda" without a GPU (and without the simulator).

    Phases: reorder (the breadth-first renumbering of a large graph with scattered ids, `PartitionOptions.reorder`;
    the result is in the caller's ids), coarsen (seed 000 ch. 4.3.2 / 5.2.1-5.2.2), initial (ch. 4.3.3 /
    5.2.3), uncoarsen = project + rebalance + refine (ch. 4.3.4 / 5.2.4) at every level.
    """
    started = time.perf_counter()
    graph = as_graph(graph)
    k = check_k(k, graph.n)
    epsilon = check_imbalance(imbalance)
    seed = check_seed(seed)
    threads = check_threads(threads)
    options = preset_options(preset)
    preset_name = preset if isinstance(preset, str) else "custom"
    vertex_weights = kernel_vertex_weights(graph)
    total = vertex_weights.sum(axis=0)
    sizes = check_shares(targets, k, normalise=False, vector=True)  # the limits take the exact ratios
    targets = check_shares(sizes, k)
    limits = max_block_weights(total, sizes, epsilon)
    check_feasible(vertex_weights, total, limits, epsilon)
    device = resolve_device(device, graph.n, vertex_weights.shape[1])
    fine = None  # the kernels' view of the graph (`LevelGraph`), made when needed (`_partition_without_isolated`)

    previous_threads = numba.get_num_threads()
    use_threads = previous_threads if threads is None else threads
    cycles = _cycle_count(options, k)
    flows = options.flow_rounds > 0 and graph.n >= options.flow_min_vertices
    show = ui.progress_enabled() and graph.n * cycles * (4 if flows else 1) >= PROGRESS_MIN_WORK
    try:
        with ui.progress("partitioning", total=cycles) if show else _no_progress() as task:
            ctx = PartitionContext(k=k, targets=targets, epsilon=epsilon, max_block_weights=limits,
                                   options=options, seed=int(seed), threads=use_threads, progress=task,
                                   device=device)
            watch = ctx.watch
            new_of_old = None
            if wants_reorder(graph, options, device):
                with watch.phase("reorder"):
                    graph, new_of_old = renumber_breadth_first(graph)
                    vertex_weights = kernel_vertex_weights(graph)
            hub_block = options.hub_block and device == "cpu" and k > 1 and is_skewed(graph, HUB_BLOCK_MIN_RATIO)
            # one multilevel cycle: the hub block is built before its finest level is refined, so that FM there
            # can give up once it cannot beat it; several: it competes with their result
            single_cycle = _cycle_count(options, k) == 1
            alternative = _hub_block_alternative(ctx) if hub_block and single_cycle else None
            part, levels, fine = _partition_without_isolated(graph, vertex_weights, ctx, alternative)
            if part is None:
                fine = LevelGraph.from_graph(graph, vertex_weights)
                part, levels = _cycles(fine, ctx, alternative)
            if hub_block and not single_cycle:
                part = _try_hub_block(fine, ctx, part)
        level_threads(fine.n, use_threads)
        with watch.phase("metrics"):
            bw = block_weights(fine.vertex_weights, part, k)
            cut = edge_cut_parallel(fine.indptr, fine.indices, fine.edge_weights, part)
    finally:
        numba.set_num_threads(previous_threads)
        if device == "cuda":
            _GPU_RELEASE()
    with watch.phase("metrics"):
        target_weights = np.outer(ctx.targets, total.astype(np.float64))
        imbalance_value = imbalance_against(bw, whole_target_weights(target_weights))
    times = dict(watch.times)
    times["total"] = time.perf_counter() - started
    single = fine.vertex_weights.shape[1] == 1 and (graph.vertex_weights is None or graph.vertex_weights.ndim == 1)
    squeeze = (lambda a: a[:, 0].copy()) if single else (lambda a: a)
    if new_of_old is not None:
        part = part[new_of_old]  # back to the caller's ids
    return Partition(assignment=part, k=k, block_weights=squeeze(bw), targets=ctx.targets,
                     target_weights=squeeze(target_weights), max_block_weights=squeeze(limits), cut=cut,
                     imbalance=imbalance_value, epsilon=epsilon, times=times, levels=levels, preset=preset_name,
                     seed=ctx.seed, device=device)


#: `reorder="auto"` leaves graphs whose maximum degree is at least this many times the average alone: on rmat
#: 2^21 (k = 64) the breadth-first numbering saved nothing (`fast` 7.65 -> 7.79 s without its own 0.6 s), the
#: hubs' rows being read from everywhere whatever the numbering
REORDER_MAX_SKEW = 100.0


def wants_reorder(graph, options: PartitionOptions, device: str) -> bool:
    """Whether `partition` renumbers `graph` in breadth-first order first (`PartitionOptions.reorder`)."""
    if options.reorder != "auto":
        return options.reorder == "bfs"
    return (device == "cpu" and graph.n >= options.reorder_min_vertices
            and not is_skewed(graph, REORDER_MAX_SKEW) and locality_spread(graph) >= options.reorder_min_spread)


def resolve_device(device: str, n: int, ncon: int) -> str:
    """"cpu" or "cuda" for `partition`'s `device` argument (see there); raises InputError for an unknown
    device or for "cuda" with several vertex-weight constraints, UnavailableError for "cuda" without a CUDA
    device."""
    if device not in DEVICES:
        raise InputError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "cpu":
        return "cpu"
    if device == "auto":
        if ncon == 1 and n >= GPU_MIN_VERTICES and not simulator_enabled() and numba_cuda_device_count() > 0:
            return "cuda"
        return "cpu"
    if ncon != 1:
        raise InputError(f"device='cuda' partitions with one vertex-weight constraint; this graph has {ncon} "
                         "(use device='cpu')")
    if numba_cuda_device_count() == 0:
        raise UnavailableError("no CUDA device: no NVIDIA GPU with numba-cuda, and the CUDA simulator is off "
                               "(NUMBA_ENABLE_CUDASIM=1 turns it on); use device='cpu'")
    return "cuda"


#: isolated vertices are set aside when they are at least this fraction of the vertices
ISOLATED_MIN_FRACTION = 0.01

#: a single cycle's alternative (the hub block) is taken without refining the finest level when it cuts at
#: most this fraction of that level's projected partition. Over R-MAT 2^10-2^20 (seed 0; 2^19 seeds 0-1),
#: Barabasi-Albert 2^12-2^16, astro-ph, PGPgiantcompo, hep-th, polblogs and wiki-Vote at k = 2-256 (`default`,
#: 2026-11-27), every alternative at or under 0.8 x the projected cut beat the refined multilevel result, except
#: R-MAT at k = 2 (at 0.05-0.19 x, where FM finds the hub split by itself and wins by at most 0.8 %); the
#: nearest the other way was wiki-Vote at k = 8, 0.874 x, which lost by 9 %. Between 0.7 (the value before)
#: and 0.8 lie R-MAT 2^18 / 2^19 at k = 64 (0.747 / 0.74 x), whose finest FM took 4.9 / 9.6 s to lose to it
#: (the whole run 11-15 s)
ALTERNATIVE_TAKEN_AT = 0.8


def _cycle_count(options: PartitionOptions, k: int) -> int:
    """The multilevel cycles `_cycles` runs: the independent runs, then the V-cycles (one for k = 1)."""
    return 1 if k == 1 else max(1, options.multilevel_runs) + options.vcycles


def _cycles(graph: LevelGraph, ctx: PartitionContext, alternative=None) -> tuple[np.ndarray, int]:
    """`options.multilevel_runs` independent multilevel cycles (different seeds; the smallest cut kept, the
    first on ties), then `options.vcycles` V-cycles on the kept partition. Every run ends balanced, so the
    kept one is too. Each cycle advances `ctx.progress` by one. `alternative` (see `_multilevel`) is for a
    single cycle only."""
    options = ctx.options
    runs = options.multilevel_runs if ctx.k > 1 else 1
    if alternative is not None and _cycle_count(options, ctx.k) != 1:
        raise ValueError("an alternative partition competes with a single multilevel cycle only")
    ctx.progress.update(description=_cycle_label("run", 1, runs))
    part, levels = _multilevel(graph, ctx.derive(options=_run_options(options, 0)), alternative=alternative)
    if ctx.k > 1 and options.multilevel_runs > 1:
        best_cut = int(edge_cut(graph.indptr, graph.indices, graph.edge_weights, part))
        for run in range(1, options.multilevel_runs):
            ctx.progress.update(description=_cycle_label("run", run + 1, runs))
            other, other_levels = _multilevel(graph, ctx.derive(options=_run_options(options, run),
                                                                seed=ctx.seed + 1_000_003 * run))
            other_cut = int(edge_cut(graph.indptr, graph.indices, graph.edge_weights, other))
            if other_cut < best_cut:
                part, levels, best_cut = other, other_levels, other_cut
    for cycle in range(options.vcycles if ctx.k > 1 else 0):
        ctx.progress.update(description=_cycle_label("V-cycle", cycle + 1, options.vcycles))
        part, _ = _multilevel(graph, ctx.derive(seed=ctx.seed + 7 * (cycle + 1)), given=part)
    return part, levels


def _cycle_label(kind: str, number: int, count: int) -> str:
    return "partitioning" if count <= 1 else f"partitioning: {kind} {number} of {count}"


def is_skewed(graph: LevelGraph, ratio: float) -> bool:
    """Whether the maximum degree is at least `ratio` times the average degree of the non-isolated vertices
    (never when ratio <= 0): the heavy-tailed graphs that `PartitionOptions.heavy_tailed` is for."""
    if ratio <= 0 or graph.n == 0:
        return False
    largest, connected = degree_extremes(graph.indptr)
    if connected == 0:
        return False
    return float(largest) >= ratio * float(graph.indptr[-1]) / connected


def _run_options(options: PartitionOptions, run: int) -> PartitionOptions:
    """The options of independent run `run`: `options` with the variant `options.runs[run % len]` applied
    (a portfolio: graphs differ in which suits them, and the best run is kept); `options` when there are
    none."""
    if not options.runs:
        return options
    return options.runs[run % len(options.runs)].apply(options)


def _partition_without_isolated(graph, vertex_weights: np.ndarray, ctx: PartitionContext,
                                alternative=None) -> tuple[np.ndarray | None, int, LevelGraph | None]:
    """Partition the non-isolated vertices under the full block limits (`alternative` handed to their
    `_cycles`), then fill the blocks with the isolated vertices (KaMinPar removes them the same way). Isolated
    vertices cost no cut wherever they go, so the rest of the graph may use all their weight as extra slack.
    Returns (None, 0, None) when there are too few isolated vertices for this to pay (fewer than
    ISOLATED_MIN_FRACTION of n) or nothing else; else (the partition, the levels, the whole graph's
    `LevelGraph`).

    Memory: the core is cut out of the `Graph`'s own arrays, and the whole graph's `LevelGraph` (the Graph's
    arrays, no copy where the dtypes allow) is made once the core's hierarchy is gone (rmat 2^20, k = 64: peak
    1.39 -> 1.0 GB when that level was a 12-byte-per-arc copy)."""
    k, limits, watch = ctx.k, ctx.max_block_weights, ctx.watch
    if k == 1:
        return None, 0, None
    isolated = graph.indptr[1:] == graph.indptr[:-1]
    count = int(isolated.sum())
    if count < ISOLATED_MIN_FRACTION * graph.n or count == graph.n:
        return None, 0, None
    with watch.phase("coarsen"):
        core_ids = np.flatnonzero(~isolated)
        core = core_level(graph.indptr, graph.indices, kernel_edge_weights(graph), vertex_weights, core_ids)
        core_total = core.vertex_weights.sum(axis=0).astype(np.float64)
        wanted = np.outer(ctx.targets, core_total)
        with np.errstate(divide="ignore", invalid="ignore"):
            slack = np.where(wanted > 0, limits / np.where(wanted > 0, wanted, 1.0), np.inf)
        core_epsilon = float(min(slack.min() - 1.0, 4.0))
    if core_epsilon < ctx.epsilon:
        return None, 0, None
    blocks = _blocks_for_core(limits, core_total, ctx.epsilon) \
        if alternative is None and slack.min() - 1.0 >= PACK_CORE_FROM else None
    if blocks is None:
        core_part, levels = _cycles(core, ctx.derive(epsilon=core_epsilon), alternative)
    else:  # the core packed into the fewest blocks that hold it within ε; the isolated vertices fill the rest
        packed = limits[blocks]
        packed_epsilon = float(packed[:, 0].sum() / core_total[0] - 1.0)
        core_part, levels = _cycles(core, ctx.derive(k=len(blocks), targets=packed[:, 0] / packed[:, 0].sum(),
                                                     max_block_weights=packed, epsilon=packed_epsilon))
        core_part = blocks[core_part].astype(np.int32)
        # one block runs one cycle where k run `_cycle_count`: the progress line counts k's
        ctx.progress.advance(_cycle_count(ctx.options, k) - _cycle_count(ctx.options, len(blocks)))
    with watch.phase("rebalance"):
        bw = block_weights(core.vertex_weights, core_part, k)
        del core
        fine = LevelGraph.from_graph(graph, vertex_weights)
        part = np.zeros(fine.n, dtype=np.int32)
        part[core_ids] = core_part
        loose = np.flatnonzero(isolated)
        heaviness = (fine.vertex_weights[loose] / np.maximum(limits.max(axis=0), 1)).sum(axis=1)
        loose = loose[np.argsort(-heaviness, kind="stable")]
        place_isolated(fine.vertex_weights, loose, part, bw, limits)
        rebalance_partition(fine, part, bw, limits, final=True)
    if core_epsilon >= PERIPHERY_MIN_SLACK:
        part = _try_periphery(fine, ctx, part)
    return part, levels, fine


#: a core that fills at most 1 / (1 + this) of every block's limit is packed into fewer blocks
PACK_CORE_FROM = 1.0


def _blocks_for_core(limits: np.ndarray, core_total: np.ndarray, epsilon: float) -> np.ndarray | None:
    """The fewest blocks, largest limits first, whose limits hold the core's weight (1 + ε) times over, as int64
    ids in ascending order; None when that is every block or there are several constraints.

    Isolated vertices go anywhere at no cost, so when they are most of the weight the core need not be spread
    over all k blocks: 10^5 delaunay vertices beside 9·10^5 isolated ones at k = 8192 cut 60,735 spread over
    every block (each holding 12 core vertices and up to 5 times that), 31,565 packed (KaMinPar: 31,873)."""
    if limits.shape[1] != 1:
        return None
    order = np.argsort(-limits[:, 0], kind="stable")
    room = np.cumsum(limits[order, 0].astype(np.float64))
    count = int(np.searchsorted(room, (1.0 + epsilon) * float(core_total[0]))) + 1
    if count >= limits.shape[0]:
        return None
    return np.sort(order[:count]).astype(np.int64)


def _try_periphery(fine: LevelGraph, ctx: PartitionContext, part: np.ndarray) -> np.ndarray:
    """`part`, or the core-periphery candidate (`periphery.py`) refined at the finest level when it cuts less."""

    def partition_core(graph, blocks, sub_targets, sub_epsilon, sub_limits):
        # the candidate partitions the core once more: its cycles join the progress line's total
        ctx.progress.update(total=_cycle_count(ctx.options, ctx.k) + _cycle_count(ctx.options, blocks))
        found, _ = _cycles(graph, ctx.derive(k=blocks, targets=sub_targets, epsilon=sub_epsilon,
                                             max_block_weights=sub_limits, seed=ctx.seed + 13))
        return found

    candidate = periphery_candidate(fine, ctx.k, ctx.targets, ctx.max_block_weights, partition_core)
    if candidate is None:
        return part
    limits, watch = ctx.max_block_weights, ctx.watch
    level_threads(fine.n, ctx.threads)
    with watch.phase("rebalance"):
        bw = block_weights(fine.vertex_weights, candidate, ctx.k)
        if np.any(bw > limits):
            return part
    with watch.phase("refine"):
        refine(fine, candidate, bw, ctx, ctx.seed + 29)
    with watch.phase("rebalance"):
        rebalance_partition(fine, candidate, bw, limits, final=True)
    cut = edge_cut_parallel(fine.indptr, fine.indices, fine.edge_weights, part)
    return candidate if edge_cut_parallel(fine.indptr, fine.indices, fine.edge_weights, candidate) < cut else part


def _hub_block_rest(ctx: PartitionContext, graph: LevelGraph):
    """The `partition_rest` of `periphery.hub_block_candidate` on `graph`: the rest is partitioned with the
    options of the graph's own cycles (the heavy-tailed variant where it applies; FM's patience
    `options.hub_rest_fm_stop_fraction` and passes `options.hub_rest_fm_passes` where set), its isolated
    vertices set aside. The candidate is not refined at the finest level (on rmat 2^18 and 2^21 that gained
    under 0.1 % of its cut, and `default`'s FM took 160 s on rmat 2^21: every vertex of the rest is on the
    boundary of the hub block)."""
    options = ctx.options
    skewed = options.heavy_tailed is not None and is_skewed(graph, options.heavy_tailed_ratio)
    rest_options = options.heavy_tailed.apply(options) if skewed else options
    if options.hub_rest_fm_stop_fraction > 0:
        rest_options = replace(rest_options, fm_stop_fraction=options.hub_rest_fm_stop_fraction)
    if options.hub_rest_fm_passes > 0:
        rest_options = replace(rest_options, fm_passes=options.hub_rest_fm_passes)

    def partition_rest(graph, blocks, sub_targets, sub_epsilon, sub_limits):
        # most of the rest were vertices whose only neighbours were hubs: isolated now, set aside as at the top
        sub_ctx = ctx.derive(k=blocks, targets=sub_targets, epsilon=sub_epsilon, max_block_weights=sub_limits,
                             seed=ctx.seed + 19, options=rest_options)
        ctx.progress.update(total=_cycle_count(options, ctx.k) + _cycle_count(rest_options, blocks))
        found, _, _ = _partition_without_isolated(graph, graph.vertex_weights, sub_ctx)
        if found is None:
            level_threads(graph.n, ctx.threads)
            found, _ = _cycles(graph, sub_ctx)
        return found

    return partition_rest


def _hub_block_alternative(ctx: PartitionContext):
    """The `alternative` of a single multilevel cycle on a heavy-tailed graph: given its finest level, that
    level's partition before refinement and that partition's cut, (the hub-block candidate, its cut) when the
    candidate is built and keeps the limits, else (None, -1)."""

    def build(graph: LevelGraph, part: np.ndarray, cut: int) -> tuple[np.ndarray | None, int]:
        level_threads(graph.n, ctx.threads)
        # not inside a phase of its own: the rest's multilevel cycles time theirs
        candidate = hub_block_candidate(graph, ctx.k, ctx.targets, ctx.max_block_weights,
                                        _hub_block_rest(ctx, graph), part, cut)
        level_threads(graph.n, ctx.threads)
        limits = ctx.max_block_weights
        if candidate is None or np.any(block_weights(graph.vertex_weights, candidate, ctx.k) > limits):
            return None, -1
        return candidate, int(edge_cut_parallel(graph.indptr, graph.indices, graph.edge_weights, candidate))

    return build


def _try_hub_block(fine: LevelGraph, ctx: PartitionContext, part: np.ndarray) -> np.ndarray:
    """`part`, or the hub-block candidate (`_hub_block_alternative`) when it cuts less: for several multilevel
    cycles, whose result it competes with."""
    level_threads(fine.n, ctx.threads)
    cut = int(edge_cut_parallel(fine.indptr, fine.indices, fine.edge_weights, part))
    candidate, candidate_cut = _hub_block_alternative(ctx)(fine, part, cut)
    return part if candidate is None or candidate_cut >= cut else candidate


def _multilevel(fine: LevelGraph, ctx: PartitionContext, given: np.ndarray | None = None,
                alternative=None) -> tuple[np.ndarray, int]:
    """Coarsen, partition the coarsest graph, then project / rebalance / refine back up; returns (part, levels).

    With `alternative` (a function of the finest level, its partition before refinement and that partition's
    cut, returning another balanced partition of that level and its cut, or (None, -1)), the cycle returns
    whichever of the two cuts less, and FM on the finest level gives up once it cannot reach the alternative's
    cut (`refine_fm`); an alternative cutting at most `ALTERNATIVE_TAKEN_AT` times the projected partition is
    taken unrefined.

    With `given` (a balanced partition of `fine`) this is a V-cycle (Walshaw; KaFFPa): clusters never cross
    its blocks, the coarsest graph inherits it instead of being partitioned anew, and refinement at every level
    can only lower its cut. On a heavy-tailed graph (`is_skewed` with `options.heavy_tailed_ratio`) the
    cycle runs with the variant `options.heavy_tailed` applied.
    """
    k, watch, options = ctx.k, ctx.watch, ctx.options
    if k == 1:
        ctx.progress.advance(1)
        return np.zeros(fine.n, dtype=np.int32), 1
    if options.heavy_tailed is not None and is_skewed(fine, options.heavy_tailed_ratio):
        ctx = ctx.derive(options=options.heavy_tailed.apply(options))
    if ctx.device == "cuda":
        return _GPU_CYCLE(fine, ctx, given)
    # deep multilevel (`deep.py`) for large k: `groups` are the groups of blocks the current level is split into
    groups = deep.Groups.root(k) if given is None and deep.wanted(ctx.options, k, fine.n) else None
    with watch.phase("coarsen"):
        if groups is None:
            hierarchy, cmaps, coarse_given = coarsen(fine, ctx, given)
        else:
            hierarchy, cmaps, coarse_given = coarsen(fine, ctx, None, deep.coarsest_vertices(ctx.options),
                                                     ctx.options.deep_per_group)
    step = 1.0 / (len(hierarchy) + 1)  # of this cycle's progress: coarsening, then one per level
    ctx.progress.advance(step)
    coarsest = hierarchy[-1]
    with watch.phase("initial"):
        level_threads(coarsest.n, ctx.threads)
        if coarse_given is not None:
            part = coarse_given.copy()
        elif groups is None:
            part = initial_partition(coarsest, ctx, ctx.seed + 17)
        else:
            part = None
    del coarsest
    levels = len(hierarchy)
    level_ctx = ctx
    for depth in range(levels - 1, -1, -1):
        graph = hierarchy[depth]
        level_threads(graph.n, ctx.threads)
        if depth < levels - 1:
            with watch.phase("project"):
                part = project_partition(cmaps[depth], part)
            cmaps[depth] = None  # the map is let go once the partition is projected through it
            release_free_memory()
        final = depth == 0
        if groups is not None and not groups.final:
            splits = k if final else groups.levels_for(graph.n, ctx.options.deep_per_group, int(part is None))
            if splits:
                with watch.phase("initial"), using_threads(ctx.threads):
                    part, groups = deep.extend(graph, part, groups, splits, ctx, ctx.seed + 17 + depth)
                level_ctx = groups.context(ctx)
        limits = level_ctx.max_block_weights  # a deep cycle's groups' limits until the finest level
        with watch.phase("rebalance"):
            bw = block_weights(graph.vertex_weights, part, level_ctx.k)
            rebalance_partition(graph, part, bw, limits, final=final)
        candidate, candidate_cut, cut = None, -1, -1
        if final and alternative is not None:
            cut = _cut(graph, part, watch)
            candidate, candidate_cut = alternative(graph, part, cut)
        if candidate is not None and candidate_cut <= ALTERNATIVE_TAKEN_AT * cut:
            part = candidate  # the finest level's refinement could not close the gap (ALTERNATIVE_TAKEN_AT)
            ctx.progress.advance(step)
            break
        with watch.phase("refine"):
            refine(graph, part, bw, level_ctx, ctx.seed + 101 * depth, finest=final, give_up_above=candidate_cut)
        with watch.phase("rebalance"):
            rebalance_partition(graph, part, bw, limits, final=final)
        if candidate is not None:
            with watch.phase("metrics"):
                if candidate_cut < edge_cut_parallel(graph.indptr, graph.indices, graph.edge_weights, part):
                    part = candidate
        if depth > 0:
            # a coarse level is let go once refined, before the finer partition is projected (on a mesh of 2^21
            # vertices the first coarse level is 40 MB, then held beside the finest level's partition)
            hierarchy[depth] = graph = None
        ctx.progress.advance(step)
    return part, levels


def _cut(graph: LevelGraph, part: np.ndarray, watch) -> int:
    with watch.phase("metrics"):
        return int(edge_cut_parallel(graph.indptr, graph.indices, graph.edge_weights, part))


class _no_progress:
    def __enter__(self):
        return ui._NullTask()

    def __exit__(self, *exc):
        return False
