"""The result of an edge partition: the part of every edge plus the metrics users compare (seed 001 §3.1)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from apportion.partitioning.edge.metrics import copy_statistics


@dataclass(frozen=True, eq=False)
class EdgePartition:
    """A k-way edge partition.

    Attributes:
        assignment: int32 array of length m, the part of every edge in canonical order (graph.edges(): (u, v)
            with u < v, by u then v).
        k: number of parts.
        method: the algorithm that produced it ("spac", "hdrf", ...).
        edges_per_part: int64 array of length k.
        vertex_copies: Σ_v (p_v − 1), p_v = parts holding an edge of v (seed 001, Definition 3.1).
        replication_factor: Σ_v p_v / number of non-isolated vertices (= 1 + copies / that number).
        edge_imbalance: max(edges_per_part) / (m / k) − 1 (0 for an empty graph).
        time_s: seconds the method took (excluding metric computation).
        details: method-specific extras (e.g. the cut of SPAC's transformed graph); plain JSON values.
    """

    assignment: np.ndarray
    k: int
    method: str
    edges_per_part: np.ndarray
    vertex_copies: int
    replication_factor: float
    edge_imbalance: float
    time_s: float
    details: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.assignment.setflags(write=False)
        self.edges_per_part.setflags(write=False)

    @property
    def m(self) -> int:
        return int(self.assignment.shape[0])

    def to_dict(self, include_assignment: bool = False) -> dict:
        """Plain-JSON dictionary of the fields (the assignment only when asked)."""
        out = {
            "k": int(self.k),
            "method": self.method,
            "edges_per_part": [int(x) for x in self.edges_per_part],
            "vertex_copies": int(self.vertex_copies),
            "replication_factor": float(self.replication_factor),
            "edge_imbalance": float(self.edge_imbalance),
            "time_s": float(self.time_s),
            "details": dict(self.details),
        }
        if include_assignment:
            out["assignment"] = [int(x) for x in self.assignment]
        return out


def make_edge_partition(graph, assignment: np.ndarray, k: int, method: str, time_s: float,
                        details: dict | None = None) -> EdgePartition:
    """Wrap an assignment (canonical edge order) with its metrics, computed here once."""
    a = np.ascontiguousarray(assignment, dtype=np.int32)
    u, v, _ = graph.edges()
    m = a.shape[0]
    counts = np.bincount(a, minlength=k).astype(np.int64) if m else np.zeros(k, dtype=np.int64)
    copies, factor = copy_statistics(u, v, a, graph.n, k)
    imbalance = float(counts.max() / (m / k) - 1.0) if m else 0.0
    return EdgePartition(a, int(k), method, counts, int(copies), factor, imbalance, float(time_s),
                         dict(details or {}))
