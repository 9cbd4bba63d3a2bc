"""The knobs of the edge partitioners, in one place, and which method reads which."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class EdgePartitionOptions:
    """Method options (keyword arguments of `partition_edges`).

    dominant_weight: SPAC's weight of dominant edges in the Ψ-transformed graph (paper: 1000).
    vertex_partitioner: "apportion" (apportion.partition) or "metis" (pymetis, a cross-check) for SPAC/WVP.
    vertex_imbalance: imbalance allowed to that vertex partitioner (None: max(imbalance, 0.03) for SPAC, max(imbalance, 0.01) for WVP).
    lam: HDRF's balance weight λ (default 1).
    threads: Mt-KaHyPar threads (None: all cores).
    preset: Mt-KaHyPar preset: default, quality, deterministic, large_k.
    vertex_preset: preset of apportion's vertex partitioner for SPAC/WVP: "fast", "default", "strong", "quality",
        or a PartitionOptions; None = the method's own (SPAC: its pinned run-graph options, spac.RUN_GRAPH_OPTIONS;
        WVP: "default").
    refine: run the group-move refinement (refine.py) after the method: None = the method's default
        (on for spac and ne, off for the others, which stay the published baselines).
    refine_passes: label-propagation passes of each refinement round (default 6).
    run_cap: SPAC partitions Ψ pre-clustered into runs of at most this many consecutive clones of a vertex
        (spac.clone_runs; default 32); 1 = the full Ψ of the paper.
    """

    dominant_weight: int = 1000
    vertex_partitioner: str = "apportion"
    vertex_imbalance: float | None = None
    lam: float = 1.0
    threads: int | None = None
    preset: str = "default"
    vertex_preset: object = None
    refine: bool | None = None
    refine_passes: int = 6
    run_cap: int = 32


_REFINE = ("refine", "refine_passes")

METHOD_OPTIONS: dict[str, tuple[str, ...]] = {
    "spac": ("dominant_weight", "vertex_partitioner", "vertex_imbalance", "vertex_preset", "run_cap") + _REFINE,
    "random": _REFINE,
    "dbh": _REFINE,
    "greedy": _REFINE,
    "hdrf": ("lam",) + _REFINE,
    "wvp-random": ("vertex_partitioner", "vertex_imbalance", "vertex_preset") + _REFINE,
    "wvp-greedy": ("vertex_partitioner", "vertex_imbalance", "vertex_preset") + _REFINE,
    "ne": _REFINE,
    "hypergraph": ("threads", "preset") + _REFINE,
}

REFINE_BY_DEFAULT = frozenset({"spac", "ne"})

METHODS = tuple(METHOD_OPTIONS)
OPTION_NAMES = tuple(f.name for f in fields(EdgePartitionOptions))
