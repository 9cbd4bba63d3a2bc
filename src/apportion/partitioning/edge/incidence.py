"""Edge ids of a CSR graph's stored entries: which canonical edge every (u→v) entry belongs to.

Canonical edge e is the e-th entry (u, v) with u < v in CSR order (graph.edges()). Every undirected edge is
stored twice; `reverse[i]` is the position of the twin of entry i, and `edge_of_entry[i]` its canonical id.
Both come from one O(n + m) pass over the rows (_incidence_kernels.twin_entries_kernel).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from apportion.partitioning.edge._incidence_kernels import twin_entries_kernel


@dataclass(frozen=True)
class EdgeIncidence:
    """Arrays aligned with the graph's CSR entries (length 2m) and its canonical edges (length m)."""

    sources: np.ndarray         # (2m,) int64, source vertex of each entry
    targets: np.ndarray         # (2m,) int64, target vertex of each entry
    reverse: np.ndarray         # (2m,) int64, position of the twin entry
    edge_of_entry: np.ndarray   # (2m,) int64, canonical edge id of each entry
    upper_entries: np.ndarray   # (m,) int64, the entry (u→v, u < v) of each canonical edge
    u: np.ndarray               # (m,) int64, smaller endpoint of each canonical edge
    v: np.ndarray               # (m,) int64, larger endpoint


def edge_incidence(graph) -> EdgeIncidence:
    """Compute the entry ↔ edge correspondence of `graph` (O(n + m); needs sorted neighbour lists and no
    self-loops, which every apportion Graph has)."""
    src = graph.sources().astype(np.int64)
    dst = graph.indices.astype(np.int64)
    reverse, edge_of_entry, upper_entries = twin_entries_kernel(graph.indptr.astype(np.int64), dst)
    return EdgeIncidence(src, dst, reverse, edge_of_entry, upper_entries, src[upper_entries], dst[upper_entries])
