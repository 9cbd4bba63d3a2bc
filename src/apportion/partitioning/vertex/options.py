"""Knobs of the multilevel vertex partitioner and its presets (`fast`, `default`, `strong`) as data.

A preset is a `PartitionOptions` value, never a code path: `multilevel.partition` reads the fields and every
phase behaves accordingly (the way KaMinPar's Context presets work).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from apportion.errors import InputError


@dataclass(frozen=True)
class PartitionOptions:
    """Every tunable of the multilevel partitioner (seed 000, ch. 4-5; KaMinPar-style deep multilevel).

    Coarsening:
        coarsening: "matching" (heavy-edge matching in rounds), "clustering" (size-constrained label
            propagation), or "auto" (clustering, falling back to/mixing with matching by measured shrink rate).
        skewed_degree_ratio: when > 0 and a graph's maximum degree is at least this many times its average
            (non-isolated) degree, it is coarsened with `skewed_coarsening` instead (heavy-tailed graphs: on
            rmat scale 18, ratio 579, clustering builds hub clusters whose projected partition FM cannot
            repair, 1.16 x METIS at k = 8; matching first gives 0.91).
        skewed_fm_passes: when >= 0, the k-way FM passes per level on such heavy-tailed graphs instead of
            `fm_passes` (-1: the same). FM's moves around hubs are costly: on rmat scale 18 at k = 8, two passes
            took 2 of `fast`'s 3 s for a cut 8 % lower.
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
            rounds (a third round there costs as much as the first and moves ~5 % of the vertices).
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
    Refinement:
        lp_refine_passes: passes (each an up and a down half-pass) of the two-direction request-buffer refiner.
        fm_passes: k-way FM passes per level (0 disables FM).
        fm_stop_fraction: an FM pass stops after this many non-improving moves (as a fraction of the boundary,
            at least 64).
        fm_min_improvement: no further FM pass after one that lowered the cut by less than this fraction.
        flow_rounds: rounds of flow-based refinement of adjacent block pairs per level (0 disables; `flow.py`:
            KaFFPa's flow refinement with FlowCutter's balanced cuts). A round visits the quotient graph's
            edges heaviest first; later rounds only pairs with a block changed in the round before.
        flow_region_fraction: the region grown inside block A for the pair (A, B) may weigh up to B's free room
            plus this fraction of B's limit (and likewise inside B): larger regions find more cuts, cost more.
        flow_region_depth: ... and reach at most this many hops from the common boundary (0: no limit; bounds
            the regions of large blocks, where the weight bound alone allows 10^5 vertices).
        flow_max_piercings: a pair's search for a balanced cut gives up after this many piercings that needed
            more flow (each a max-flow update of the whole region: on astro-ph, k = 2, unbounded searches took
            4 s per finest level for a 1 % gain).
        flow_min_vertices: flows run only on levels with at least this many vertices (the finer levels).
        flow_max_degree_ratio: when > 0, no flows on graphs whose maximum degree is at least this many times the
            average (hubs make every region large and the quotient graph nearly complete: on rmat scale 18,
            k = 64, `strong` spent 55 % of 690 s in flows for a 0.6 % lower cut).
    Repetitions:
        multilevel_runs: independent multilevel cycles with different seeds; the one with the smallest cut is
            kept (and the V-cycles then improve it).
        run_coarsest_per_block: when not empty, run r coarsens to run_coarsest_per_block[r % len] * k vertices
            (a portfolio: some graphs partition best from a larger coarsest graph, some from a smaller one).
        run_clustering_rating: likewise for `clustering_rating` (normalized ratings suit some power-law graphs,
            heavy ones others).
        run_coarsening: likewise for `coarsening` (matching first, "auto", suits rmat graphs: 0.91 x METIS at
            k = 8 where clustering gives 1.16).
    V-cycles:
        vcycles: after the first multilevel cycle, this many more, each coarsening with clusters confined to the
            blocks of the current partition and starting from it at the coarsest level (never worse).
    """

    coarsening: str = "clustering"
    matching: str = "mutual"
    skewed_degree_ratio: float = 0.0
    skewed_coarsening: str = "auto"
    skewed_fm_passes: int = -1
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
    lp_refine_passes: int = 3
    fm_passes: int = 2
    fm_stop_fraction: float = 0.05
    fm_min_improvement: float = 0.002
    flow_rounds: int = 0
    flow_region_fraction: float = 0.5
    flow_region_depth: int = 0
    flow_max_piercings: int = 16
    flow_min_vertices: int = 0
    flow_max_degree_ratio: float = 0.0
    vcycles: int = 0
    multilevel_runs: int = 1
    run_coarsest_per_block: tuple[int, ...] = ()
    run_clustering_rating: tuple[str, ...] = ()
    run_coarsening: tuple[str, ...] = ()

    def validated(self) -> "PartitionOptions":
        if any(c not in ("matching", "clustering", "auto")
               for c in (self.coarsening, self.skewed_coarsening, *self.run_coarsening)):
            raise InputError(f"unknown coarsening {self.coarsening!r} (matching, clustering, auto)")
        if any(r not in ("heavy", "normalized") for r in (self.clustering_rating, *self.run_clustering_rating)):
            raise InputError(f"unknown clustering rating {self.clustering_rating!r} (heavy, normalized)")
        if self.matching not in ("mutual", "suitor"):
            raise InputError(f"unknown matching {self.matching!r} (mutual, suitor)")
        return self


PRESETS: dict[str, PartitionOptions] = {
    "fast": PartitionOptions(clustering_rounds=3, clustering_batches=4, initial_tries=5, initial_fm_passes=2,
                             lp_refine_passes=2, fm_passes=2, fm_stop_fraction=0.1, coarsest_per_block=20,
                             skewed_degree_ratio=100.0, skewed_coarsening="clustering", skewed_fm_passes=0),
    "default": PartitionOptions(clustering_rounds=3, coarsest_per_block=30, initial_tries=8, fm_passes=8,
                                fm_stop_fraction=0.25, skewed_degree_ratio=100.0),
    "strong": PartitionOptions(clustering_rounds=6, clustering_batches=16, clustering_stop_fraction=0.005,
                               initial_tries=20, initial_fm_passes=6, lp_refine_passes=4, fm_passes=16,
                               fm_stop_fraction=0.5, fm_min_improvement=0.0, coarsest_per_block=60, vcycles=2,
                               large_level_clustering_rounds=6, run_coarsest_per_block=(60, 20, 60),
                               run_clustering_rating=("heavy", "normalized", "heavy"),
                               run_coarsening=("clustering", "clustering", "auto"), multilevel_runs=3,
                               flow_rounds=1, flow_region_fraction=0.25, flow_region_depth=8,
                               flow_max_degree_ratio=100.0),
}


def preset_options(preset: str | PartitionOptions, **overrides) -> PartitionOptions:
    """The options of a named preset (or the given options), with field overrides applied."""
    if isinstance(preset, PartitionOptions):
        options = preset
    else:
        try:
            options = PRESETS[preset]
        except KeyError:
            raise InputError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}") from None
    if overrides:
        options = replace(options, **overrides)
    return options.validated()
