"""`PartitionContext`: the state of one partitioning run, built once in `partition()` and passed down.

KaMinPar's `PartitionContext` and METIS's `ctrl_t` play the same part: every phase reads k, the block targets,
the limits, the options and the seed from one record instead of a hand-threaded list of positional arguments.
A phase that works on a different problem (the core of a graph without its isolated vertices, one bisection of
the initial partitioning, an independent run with other options) derives its own context with `derive`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from apportion import ui
from apportion.partitioning.vertex.options import PartitionOptions


@dataclass(frozen=True, eq=False)
class PartitionContext:
    """What one multilevel run needs to know.

    Attributes:
        k: number of blocks.
        targets: float64 (k,), the normalised target shares (sum 1); the one name for block shares from the
            public API down to the kernels.
        epsilon: the imbalance the phases aim for (the coarsening's cluster-weight cap and the initial
            bisections derive their tolerances from it); for the core of a graph with many isolated vertices
            it is larger than the user's.
        max_block_weights: int64 (k, ncon), the hard limits every level is rebalanced to
            (`balance.max_block_weights`).
        options: the preset's `PartitionOptions`.
        seed: the seed of this run; phases derive theirs from it by fixed offsets.
        threads: Numba threads for levels large enough to use them (None: leave the setting alone).
        watch: the per-phase stopwatch the whole call shares.
        progress: the call's progress task (`apportion.ui.progress`; a null task when no line is shown): each
            multilevel cycle advances it by one.
        device: where each multilevel cycle coarsens and refines: "cpu", or "cuda" (`gpu_multilevel`: the
            graph on the GPU, the coarsest graph partitioned on the CPU).
    """

    k: int
    targets: np.ndarray
    epsilon: float
    max_block_weights: np.ndarray
    options: PartitionOptions
    seed: int
    threads: int | None = None
    watch: ui.Stopwatch = field(default_factory=ui.Stopwatch)
    progress: object = field(default_factory=ui._NullTask)
    device: str = "cpu"

    def derive(self, **changes) -> "PartitionContext":
        """A copy with the named fields changed (the stopwatch and the progress task stay shared)."""
        return replace(self, **changes)
