"""Knobs of the multilevel vertex partitioner and its presets (`fast`, `default`, `strong`, `quality`)
as data.

A preset is a `PartitionOptions` value, never a code path: `multilevel.partition` reads the fields and every
phase behaves accordingly (the way KaMinPar's presets.cc builds whole contexts). What differs between graphs or
runs is a `Variant`, a whole named override of some fields applied together (the options for heavy-tailed
graphs, the options of each independent run), rather than a family of prefixed fields.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from apportion._registry import Registry
from apportion.errors import InputError


@dataclass(frozen=True)
class Variant:
    """A whole named override of `PartitionOptions` fields, applied together (`apply`).

    `changes` is a tuple of (field name, value) pairs; build one with `Variant.of(name, field=value, ...)`.
    """

    name: str
    changes: tuple[tuple[str, object], ...]

    @classmethod
    def of(cls, name: str, **changes) -> "Variant":
        return cls(name, tuple(changes.items()))

    def apply(self, options: "PartitionOptions") -> "PartitionOptions":
        """`options` with this variant's fields replaced."""
        return replace(options, **dict(self.changes))


@dataclass(frozen=True)
class PartitionOptions:
    """Every tunable of the multilevel partitioner (seed 000, ch. 4-5; KaMinPar-style deep multilevel). The
    measurements behind the presets' values: docs/partition.md ("Measurements behind the defaults").

    Coarsening:
        coarsening: "matching" (heavy-edge matching in rounds), "clustering" (size-constrained label
            propagation), or "auto" (matching while it shrinks a level by a third, clustering from then on).
        matching_first_max_n: with "auto", a graph of more vertices than this starts with clustering (0: no
            limit). On heavy-tailed graphs each matching level keeps 90-95 % of the edges for five or more
            levels, a hierarchy of about six times the input; that pays on rmat 2^18 (k = 8: cut 17 % lower
            than clustering's) and costs on larger ones (rmat 2^19 and 2^20: cut 26 % and 80 % higher, up to
            2.3x the time and twice the memory; docs/partition.md).
        matching: "mutual" (thesis ch. 4: every vertex picks its heaviest neighbour, mutual picks pair up, in
            rounds) or "suitor" (thesis ch. 5: Suitor-style proposals; a better proposal evicts a worse one).
        matching_rounds: rounds of mutual-choice matching per level.
        clustering_rounds: label-propagation rounds per level.
        clustering_rating: "heavy" (join the most strongly connected cluster) or "normalized" (connection
            divided by the cluster's weight, KaHyPar's rating).
        clustering_batches: synchronous sub-rounds per LP round (more = closer to sequential LP).
        clustering_stop_fraction: a level's label propagation stops after a round that moved fewer than this
            fraction of the vertices.
        large_level: levels with at least this many vertices run at most `large_level_clustering_rounds`
            rounds (a third round there costs as much as the first and moves few vertices).
        coarsest_per_block: stop coarsening when n <= coarsest_per_block * k ...
        coarsest_min: ... or n <= coarsest_min (whichever is larger).
        min_shrink: stop when a level keeps more than this fraction of the vertices (thesis: 0.85).
        cluster_weight_fraction: cap on a coarse vertex's weight, as a fraction of epsilon * smallest target
            weight (KaMinPar's max cluster weight).
        two_hop_threshold: run 2-hop matching of leaves/twins when a level shrank to more than this fraction.
    Initial partitioning:
        initial_tries: greedy-graph-growing tries per bisection (best kept).
        initial_fm_passes: 2-way FM passes after each growing try and at each level of a bisection.
        bisection_coarsest: each bisection of recursive bisection is itself multilevel, coarsened to about this
            many vertices.
        deep_from_k: from this k on (0: never) a multilevel cycle runs deep (`deep.py`) where its plain
            coarsest graph would hold at least `deep_coarsest_fraction` of the vertices: coarsened to a
            bisection's coarsest size, its groups of blocks split further during uncoarsening.
        deep_coarsest_fraction: see `deep_from_k`.
        deep_per_group: a deep cycle splits its groups of blocks on the first level with at least this many
            vertices per group; the coarsening's cluster-weight cap is sized for those groups.
        deep_initial_tries: greedy-growing tries per bisection when a deep cycle splits its groups.
        deep_flat_vertices: a deep cycle's groups of at most this many vertices are split with flat bisections
            (one kernel call), larger ones with multilevel bisections coarsened to half of it.
    Refinement:
        lp_refine_passes: passes (each an up and a down half-pass) of the two-direction request-buffer refiner.
        fm_passes: k-way FM passes per level (0 disables FM).
        fm_stop_fraction: an FM pass stops after this many non-improving moves (as a fraction of the boundary,
            at least 256).
        fm_max_patience: ... and after at most this many whatever the boundary (0: no such cap). The moves after
            a pass's best prefix are undone, so on large boundaries most of a pass was moves made to be undone,
            while a new best came after at most a few thousand moves without one (`_refine_kernels.fm_patience`).
        fm_finest_only: k-way FM runs only on the finest level of each multilevel cycle (the coarser levels get
            the two-direction passes alone).
        fm_min_improvement: no further FM pass after one that lowered the cut by less than this fraction.
        fm_search_seeds: k-way FM without a gain cache runs as searches side by side on the threads, a power
            of two of them with at least this many seeds each, where that makes two or more (`parallel_fm.py`;
            0: one serial search). A count of the input, not of the threads, so the partition stays the same
            whatever the thread count; smaller values give more threads work on smaller boundaries, each
            search's id range thinner (a 2^21-vertex 3-D grid, `default`: at k = 64 4 searches cut 168,173, the
            serial kernel 168,887; at k = 256 8 searches 306,640, serial 304,075).
        flow_rounds: rounds of flow-based refinement of adjacent block pairs per level (0 disables; `flow.py`:
            KaFFPa's flow refinement with FlowCutter's balanced cuts). A round visits the quotient graph's
            edges heaviest first; later rounds only pairs with a block changed in the round before.
        flow_region_fraction: the region grown inside block A for the pair (A, B) may weigh up to B's free room
            plus this fraction of B's limit (and likewise inside B): larger regions find more cuts, cost more.
        flow_region_depth: ... and reach at most this many hops from the common boundary (0: no limit; bounds
            the regions of large blocks, where the weight bound alone allows 10^5 vertices).
        flow_max_piercings: a pair's search for a balanced cut gives up after this many piercings that needed
            more flow (each a max-flow update of the whole region; unbounded searches cost much for little).
        flow_min_vertices: flows run only on levels with at least this many vertices (the finer levels).
        flow_finest_only: flows run only on the finest level of each multilevel cycle (where a cut edge is an
            edge of the input; the coarser levels' flows cost more per unit of cut they save).
    Repetitions:
        multilevel_runs: independent multilevel cycles with different seeds; the one with the smallest cut is
            kept (and the V-cycles then improve it).
        runs: when not empty, run r uses these options with the variant runs[r % len(runs)] applied (a
            portfolio: some graphs partition best from a larger coarsest graph, with normalized ratings, or
            with matching first, others not; the best run is kept).
    V-cycles:
        vcycles: after the first multilevel cycle, this many more, each coarsening with clusters confined to the
            blocks of the current partition and starting from it at the coarsest level (never worse).
    Heavy-tailed graphs:
        heavy_tailed_ratio: when > 0, a graph whose maximum degree is at least this many times its average
            (non-isolated) degree is heavy-tailed (`multilevel.is_skewed`) ...
        heavy_tailed: ... and every multilevel cycle on it runs with this variant applied (None: none). Hubs
            defeat clustering (hub clusters whose projected partition FM cannot repair; matching first does
            better), make k-way FM's moves costly and every flow region large.
        hub_block: on a graph with hubs (maximum degree at least `periphery.HUB_BLOCK_MIN_RATIO` times the
            average), also consider the hub-block candidate (`periphery.hub_block_candidate`: the highest-degree
            vertices in the largest block, the rest split among the others) and keep it when it cuts less than
            the multilevel result; it is built only where a cheap estimate of its cut says it may.
        hub_rest_fm_stop_fraction: when > 0, FM's `fm_stop_fraction` while the hub block's rest is partitioned
            (0: the preset's own). Every vertex of the rest borders the hub block, and a long patience there
            finds little: `default`'s 0.25 against 0.1 on R-MAT 2^14-2^18 (seeds 0-2, k = 8-256) gave the same
            cut on 33 of 36 instances and at most 0.16 % more, and rmat 2^21 at k = 64 the same cut in 15.1
            against 17.0 s.
        hub_rest_fm_passes: when > 0, FM's `fm_passes` while the hub block's rest is partitioned (0: the
            preset's own). FM is the one serial step of a level, and on the rest's finest level its later passes
            find little (measurements: `_DEFAULT`).
    Memory layout:
        reorder: "auto" (the graph is first renumbered in breadth-first order, `graph.reorder`, when it has at
            least `reorder_min_vertices` vertices, its ids are scattered — `locality_spread` at least
            `reorder_min_spread` — and it is not heavy-tailed; on the CPU only), "bfs" (always renumbered) or
            "none". The partition comes back in the caller's ids either way; only the order of equal choices
            differs. Random ids make every per-arc read of a neighbour's label a cache miss once the graph
            outgrows the caches: delaunay 2^22, k = 64, `fast` 3.79 -> 1.86 s and `default` 4.77 -> 2.72 s on
            the renumbered graph, for 0.5 s of renumbering (docs/partition.md, "Renumbering for locality").
        reorder_min_vertices: ... from this many vertices (below, the graph's arrays stay in the caches).
        reorder_min_spread: ... when the median |u − v| / n over sampled arcs is at least this (random ids:
            about 0.3; meshes numbered along space: under 0.01).
    """

    coarsening: str = "clustering"
    matching_first_max_n: int = 0
    matching: str = "mutual"
    matching_rounds: int = 4
    clustering_rounds: int = 5
    clustering_rating: str = "heavy"
    clustering_batches: int = 8
    clustering_stop_fraction: float = 0.02
    large_level: int = 500_000
    large_level_clustering_rounds: int = 2
    coarsest_per_block: int = 40
    coarsest_min: int = 200
    min_shrink: float = 0.90
    cluster_weight_fraction: float = 1.0
    two_hop_threshold: float = 0.75
    initial_tries: int = 6
    initial_fm_passes: int = 4
    bisection_coarsest: int = 80
    deep_from_k: int = 1024
    deep_coarsest_fraction: float = 0.2
    deep_per_group: int = 2000
    deep_initial_tries: int = 4
    deep_flat_vertices: int = 16384
    lp_refine_passes: int = 3
    fm_passes: int = 2
    fm_stop_fraction: float = 0.05
    fm_max_patience: int = 8192
    fm_finest_only: bool = False
    fm_min_improvement: float = 0.002
    fm_search_seeds: int = 50_000
    flow_rounds: int = 0
    flow_region_fraction: float = 0.5
    flow_region_depth: int = 0
    flow_max_piercings: int = 16
    flow_min_vertices: int = 0
    flow_finest_only: bool = False
    vcycles: int = 0
    multilevel_runs: int = 1
    runs: tuple[Variant, ...] = ()
    heavy_tailed_ratio: float = 0.0
    heavy_tailed: Variant | None = None
    hub_block: bool = True
    hub_rest_fm_stop_fraction: float = 0.0
    hub_rest_fm_passes: int = 0
    reorder: str = "auto"
    reorder_min_vertices: int = 1 << 19
    reorder_min_spread: float = 0.05

    def validated(self) -> "PartitionOptions":
        """These options, or InputError naming the field that is wrong (inside a variant: the variant too)."""
        _check_fields(self, "")
        for variant in self.runs:
            _check_variant(self, variant, "runs")
        if self.heavy_tailed is not None:
            _check_variant(self, self.heavy_tailed, "heavy_tailed")
        return self


#: the allowed values of the fields that name a method
_CHOICES = {"coarsening": ("matching", "clustering", "auto"), "matching": ("mutual", "suitor"),
            "clustering_rating": ("heavy", "normalized"), "reorder": ("auto", "bfs", "none")}
#: fields that hold a count of at least 1 (every other int field: at least 0)
_AT_LEAST_ONE = ("clustering_batches", "multilevel_runs")
#: fields a variant may not set (variants do not nest; the renumbering is decided once, before any cycle)
_NOT_IN_VARIANTS = ("runs", "heavy_tailed", "reorder", "reorder_min_vertices", "reorder_min_spread")


def _check_fields(options: "PartitionOptions", where: str) -> None:
    for spec in fields(options):
        name, value = spec.name, getattr(options, spec.name)
        label = f"{where}PartitionOptions.{name}"
        if name in _CHOICES:
            if value not in _CHOICES[name]:
                raise InputError(f"{label} = {value!r} is not one of {', '.join(_CHOICES[name])}")
        elif spec.type == "int":
            if isinstance(value, bool) or not isinstance(value, int) or value < (1 if name in _AT_LEAST_ONE else 0):
                least = 1 if name in _AT_LEAST_ONE else 0
                raise InputError(f"{label} must be an integer >= {least}, got {value!r}")
        elif spec.type == "bool":
            if not isinstance(value, bool):
                raise InputError(f"{label} must be True or False, got {value!r}")
        elif spec.type == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0:
                raise InputError(f"{label} must be a finite number >= 0, got {value!r}")
    if not isinstance(options.runs, tuple) or not all(isinstance(v, Variant) for v in options.runs):
        raise InputError(f"{where}PartitionOptions.runs must be a tuple of Variant, got {options.runs!r}")
    if options.heavy_tailed is not None and not isinstance(options.heavy_tailed, Variant):
        raise InputError(f"{where}PartitionOptions.heavy_tailed must be a Variant or None, "
                         f"got {options.heavy_tailed!r}")


def _check_variant(options: "PartitionOptions", variant: Variant, field_name: str) -> None:
    known = {spec.name for spec in fields(options)}
    for name, _ in variant.changes:
        if name not in known or name in _NOT_IN_VARIANTS:
            raise InputError(f"PartitionOptions.{field_name}: variant {variant.name!r} sets {name!r}, which is not "
                             "a field a variant may set")
    _check_fields(variant.apply(options), f"variant {variant.name!r} of PartitionOptions.{field_name}: ")


#: `default` and `strong` on heavy-tailed graphs: clustering from the first level, no flows (hubs make every region
#: large, the quotient graph nearly complete), k-way FM on the finest level only (on the coarse levels hub clusters
#: leave FM little to gain: over R-MAT 2^10-2^18, seeds 0-2, k = 2-256, the final cut moved by -0.31 % to +0.28 %
#: while the time fell by up to 4x, rmat 2^18 at k = 8 from 7.4 to 1.7 s; rmat 2^21 at k = 64 from 15.7 to 11.1 s,
#: its main cycle's coarse-level FM having cost 3 s for 0.5 % of a cut the hub block beat by a third). Until
#: 2026-11-27 graphs of up to 250,000 vertices were coarsened by matching first (clustering had built hub clusters
#: FM could not repair: rmat 2^18 at k = 8 1.16 x METIS's cut against 0.91 x); since the hub block decides those
#: cuts, clustering gives the same: over R-MAT 2^12-2^18 (seeds 0-1, k = 2 / 8 / 64 / 256) the cut moved by
#: -0.8 % to +0.15 % (the same on 16 of 32 instances) at 0.2-1.24 x the time (rmat 2^18: 2.8 -> 0.56 s at k = 2,
#: 3.8 -> 1.3 s at k = 64, 6.9 -> 3.9 s at k = 256), Barabasi-Albert 2^17 (two graphs, k = 2-256) -0.7 % to +0.12 %
#: at 0.8-1.05 x; larger graphs were clustered first already
HEAVY_TAILED_FINEST_FM = Variant.of("heavy-tailed: clustering, no flows, FM on the finest level",
                                    coarsening="clustering", flow_rounds=0, fm_finest_only=True)
#: `fast` on heavy-tailed graphs: clustering, no k-way FM (its moves around hubs are costly), one pass of the
#: two-direction refiner per level (nearly every vertex of the core is on the boundary: rmat 2^21 at k = 64, its
#: second pass cost 1.2 s, half of the refinement, for 0.2 % of the cut) and no flows
HEAVY_TAILED_NO_FM = Variant.of("heavy-tailed: clustering, no FM, one refinement pass, no flows",
                                coarsening="clustering", fm_passes=0, lp_refine_passes=1, flow_rounds=0)
#: `quality` on heavy-tailed graphs: no flows (hubs make every region large, the quotient graph nearly complete)
HEAVY_TAILED_NO_FLOWS = Variant.of("heavy-tailed: no flows", flow_rounds=0)
#: `quality`'s three independent runs: coarsest-graph size, LP rating and coarsening method
QUALITY_RUNS = (
    Variant.of("coarsest 60k, heavy rating, clustering", coarsest_per_block=60, clustering_rating="heavy",
               coarsening="clustering"),
    Variant.of("coarsest 20k, normalized rating, clustering", coarsest_per_block=20,
               clustering_rating="normalized", coarsening="clustering"),
    Variant.of("coarsest 60k, heavy rating, matching first", coarsest_per_block=60, clustering_rating="heavy",
               coarsening="auto"),
)

#: `fast` runs one very small flow round (regions of 0.05 of the limit beyond free room, 1 hop, 2 piercings) on
#: the finest level of graphs of at least 2 M vertices: its cut there was at the 1.05 x METIS's limit of issue 18
#: (delaunay 2^21 / 2^22 at k = 64: 40,870 / 57,840, 1.052 / 1.050 x); with it 39,199 / 55,502 (1.009 / 1.008 x)
#: for 8-15 % more time (in one process, best of 3: 1.27 -> 1.46 s and 2.52 -> 2.72 s).
#:
#: Deep multilevel (k >= 1024, `deep.py`) splits its groups with flat bisections up to 16,384 vertices: on a 1000²
#: grid at k = 8192 (`default`, 2 threads) flat up to 1,024 then multilevel cut 203,223, flat throughout 200,724 at
#: 0.89 x the time (median of 4 paired whole-process runs); delaunay 2^18 at k = 4096 116,999 against 117,353, the
#: same time. `fast` makes 2 growing tries per bisection there instead of 4: rmat 2^18 at k = 8192 4.5 -> 2.9 s for
#: the same cut (3.702 M / 3.704 M), delaunay 2^18 at k = 4096 2.8 -> 1.7 s for 2.3 % more (one run each).
#:
#: `default` refines the hub block's rest with two FM passes instead of eight: on its finest level the later
#: passes find little (rmat 2^21 at k = 64, one run each: 8 passes 3.75-4.44 s for a gain of 122,856, 2 passes
#: 2.88 s for 111,622, the final cut 0.06 % more); over R-MAT 2^14-2^19 (seeds 0-1, k = 8-256) the cut rose by
#: at most 0.15 % (rmat 2^14 at k = 16; 0.09 % from 2^16 up), on 10 of 31 instances not at all.
#:
#: The presets, each slower and better than the one before. `strong` is `default` with flow refinement on every
#: level and larger flow regions: on the full suite (docs/partition.md, 44 instances, k = 2-256, the run of
#: 2026-11-27 17:36) it cut 0.834 x METIS's in geometric mean at 1.68 x METIS's time, where `default` cut 0.887 at
#: 0.91 x, KaMinPar strong 0.867 at 2.89 x and Mt-KaHyPar default 0.860 at 3.08 x. `quality` (the `strong` of
#: before 2026-11-27: three independent runs with different coarsening, two V-cycles, long FM and flows) cut 0.811
#: at 14.4 x: 2.8 % less for 8.6 x the time of `strong`.
_DEFAULT = PartitionOptions(clustering_rounds=3, coarsest_per_block=30, initial_tries=8, fm_passes=8,
                            fm_stop_fraction=0.25, flow_rounds=1, flow_region_fraction=0.1, flow_region_depth=2,
                            flow_max_piercings=4, flow_min_vertices=2_000_000, flow_finest_only=True,
                            heavy_tailed_ratio=100.0, heavy_tailed=HEAVY_TAILED_FINEST_FM,
                            hub_rest_fm_stop_fraction=0.1, hub_rest_fm_passes=2)
PRESETS: Registry[PartitionOptions] = Registry("preset", {
    "fast": PartitionOptions(clustering_rounds=3, clustering_batches=4, initial_tries=5, initial_fm_passes=2,
                             lp_refine_passes=2, fm_passes=2, fm_stop_fraction=0.1, coarsest_per_block=20,
                             deep_initial_tries=2,
                             flow_rounds=1, flow_region_fraction=0.05, flow_region_depth=1, flow_max_piercings=2,
                             flow_min_vertices=2_000_000, flow_finest_only=True,
                             heavy_tailed_ratio=100.0, heavy_tailed=HEAVY_TAILED_NO_FM),
    "default": _DEFAULT,
    "strong": replace(_DEFAULT, flow_region_fraction=0.25, flow_region_depth=8, flow_max_piercings=16,
                      flow_min_vertices=0, flow_finest_only=False),
    "quality": PartitionOptions(clustering_rounds=6, clustering_batches=16, clustering_stop_fraction=0.005,
                                initial_tries=20, initial_fm_passes=6, lp_refine_passes=4, fm_passes=16,
                                fm_stop_fraction=0.5, fm_max_patience=0, fm_min_improvement=0.0,
                                coarsest_per_block=60, vcycles=2,
                                large_level_clustering_rounds=6, runs=QUALITY_RUNS, multilevel_runs=3,
                                flow_rounds=1, flow_region_fraction=0.25, flow_region_depth=8,
                                heavy_tailed_ratio=100.0, heavy_tailed=HEAVY_TAILED_NO_FLOWS),
})


def preset_options(preset: str | PartitionOptions, **overrides) -> PartitionOptions:
    """The options of a named preset (or the given options), with field overrides applied."""
    if isinstance(preset, PartitionOptions):
        options = preset
    else:
        options = PRESETS[preset]  # an unknown name is an InputError listing the presets
    if overrides:
        known = {spec.name for spec in fields(PartitionOptions)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise InputError(f"unknown PartitionOptions field {unknown[0]!r}")
        options = replace(options, **overrides)
    return options.validated()
