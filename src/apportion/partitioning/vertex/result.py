"""The result of vertex partitioning: a frozen `Partition` that carries its own metrics."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, eq=False)
class Partition:
    """A k-way vertex partition with heterogeneous block targets.

    Attributes:
        assignment: int32 array (n,), the block in [0, k) of every vertex.
        k: number of blocks.
        block_weights: int64 (k,) for one vertex-weight constraint, (k, ncon) for several.
        targets: float64 (k,), the normalised target shares (sum 1).
        target_weights: float64, shaped like block_weights: targets[b] * total weight of each constraint.
        max_block_weights: int64, shaped like block_weights: floor((1 + epsilon) * ceil(target weight)), the
            hard limit every block meets (METIS's and KaMinPar's definition).
        cut: total weight of the edges whose ends lie in different blocks (each edge once).
        imbalance: max over blocks and constraints of block_weight / ceil(target_weight) - 1, against the same
            rounded-up target as the limit, so imbalance <= epsilon (up to rounding) exactly when `balanced`.
        epsilon: the allowed imbalance that was requested.
        times: seconds per phase (coarsen, initial, refine, ...), plus "total".
        levels: number of graphs in the hierarchy (1 = no coarsening).
        preset: the preset name used.
        seed: the seed used.
        device: where coarsening and refinement ran: "cpu" or "cuda" (device="auto" resolved).
    """

    assignment: np.ndarray
    k: int
    block_weights: np.ndarray
    targets: np.ndarray
    target_weights: np.ndarray
    max_block_weights: np.ndarray
    cut: int
    imbalance: float
    epsilon: float
    times: dict = field(default_factory=dict)
    levels: int = 1
    preset: str = "default"
    seed: int = 0
    device: str = "cpu"

    def __post_init__(self) -> None:
        for arr in (self.assignment, self.block_weights, self.targets, self.target_weights,
                    self.max_block_weights):
            arr.setflags(write=False)

    @property
    def n(self) -> int:
        return int(self.assignment.shape[0])

    @property
    def balanced(self) -> bool:
        """True when every block (every constraint) is within its maximum weight."""
        return bool(np.all(self.block_weights <= self.max_block_weights))

    def to_dict(self) -> dict:
        """Plain-JSON summary (without the assignment itself)."""
        return {
            "n": self.n,
            "k": self.k,
            "cut": int(self.cut),
            "imbalance": float(self.imbalance),
            "epsilon": float(self.epsilon),
            "balanced": self.balanced,
            "block_weights": self.block_weights.tolist(),
            "targets": self.targets.tolist(),
            "target_weights": self.target_weights.tolist(),
            "max_block_weights": self.max_block_weights.tolist(),
            "levels": int(self.levels),
            "preset": self.preset,
            "seed": int(self.seed),
            "device": self.device,
            "times": {name: float(t) for name, t in self.times.items()},
            "time_s": float(self.times.get("total", sum(self.times.values()))),
        }

    def __repr__(self) -> str:
        return (f"<Partition k={self.k} n={self.n:,} cut={self.cut:,} imbalance={self.imbalance:.4f} "
                f"preset={self.preset}>")
