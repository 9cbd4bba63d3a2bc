"""Pieces the readers share: self-loop policy, warnings, and the final checked CSR → Graph step."""

from __future__ import annotations

import os
import warnings
from typing import Callable

import numpy as np

from apportion.errors import InputError
from apportion.graph.csr import Graph, index_dtype
from apportion.graph.io import _parse_kernels as K
from apportion.graph.io._source import is_stdin, strip_compression


class GraphFileWarning(UserWarning):
    """Something in a graph file was repaired while reading (self-loops dropped, weights ignored)."""


class DroppedValuesWarning(GraphFileWarning):
    """A matrix's values could not be edge weights (real, zero or negative) and the graph is its pattern: a
    command that needs the weights (`run sssp`, `run pbf`) turns it into an error."""


def warn_file(path: str, message: str, category: type[GraphFileWarning] = GraphFileWarning) -> None:
    """One warning about a file (readers issue at most one per kind per file)."""
    warnings.warn(f"{path}: {message}", category, stacklevel=3)


def checked_adjacency_graph(
    path: str,
    indptr: np.ndarray,
    adjacency: np.ndarray,
    edge_weights: np.ndarray | None,
    vertex_weights: np.ndarray | None,
    *,
    strict: bool,
    line_of_vertex: Callable[[int], int | None],
    label: Callable[[int], str],
    name: str,
) -> Graph:
    """Check an adjacency read from `path` (0-based int64 ids already in range) and wrap it as a Graph.

    Self-loops are dropped with one warning (an InputError when `strict`); a neighbour listed twice and an
    asymmetric pair are InputErrors located at the line of the vertex that lists it; `label(v)` writes a
    vertex id the way the file does (e.g. 1-based).
    """
    ew = np.empty(0, np.int64) if edge_weights is None else edge_weights
    count, first, indptr, adjacency, ew = K.drop_self_loops(indptr, adjacency, ew)
    if count:
        v = int(first)
        if strict:
            raise InputError(f"self-loop at vertex {label(v)}", path=path, line=line_of_vertex(v))
        warn_file(path, f"dropped {count} self-loop{'s' if count > 1 else ''} "
                        f"(first at vertex {label(v)}, line {line_of_vertex(v)})")
    # rows out of order are sorted in place (hand-written row sort, a row at a time); then the symmetry check
    fault, v, u = K.row_order_fault(indptr, adjacency)
    if fault == 2:
        K.sort_rows(indptr, adjacency, ew)
        fault, v, u = K.row_order_fault(indptr, adjacency)
    if fault == 1:
        raise InputError(f"vertex {label(int(v))} lists neighbour {label(int(u))} more than once",
                         path=path, line=line_of_vertex(int(v)))
    if ew.shape[0] == 0:  # sequential key passes + NumPy's sort
        symmetric = K.unweighted_is_symmetric(indptr, adjacency)
    else:  # weights must match too: compare with the transpose (one counting-sort pass)
        t_indptr, t_adj, t_w = K.transpose_csr(indptr, adjacency, ew)
        symmetric = (np.array_equal(t_indptr, indptr) and np.array_equal(t_adj, adjacency)
                     and np.array_equal(t_w, ew))
    v, u, kind = (-1, -1, 0) if symmetric else K.find_asymmetry(indptr, adjacency, ew)
    if v >= 0:
        v, u = int(v), int(u)
        if kind == 1:
            problem = (f"asymmetric adjacency: vertex {label(v)} lists neighbour {label(u)} "
                       f"but vertex {label(u)} does not list {label(v)}")
        else:
            problem = (f"asymmetric edge weights: edge ({label(v)}, {label(u)}) has different weights "
                       f"in the lines of vertices {label(v)} and {label(u)}")
        raise InputError(problem, path=path, line=line_of_vertex(v))
    return Graph._trusted(indptr, adjacency, vertex_weights, None if edge_weights is None else ew, name)


def graph_from_pairs(
    path: str,
    src: np.ndarray,
    dst: np.ndarray,
    weights: np.ndarray | None,
    n: int,
    *,
    strict: bool,
    line_of_pair: Callable[[int], int | None],
    label: Callable[[int], str],
    name: str,
) -> Graph:
    """Undirected simple graph of the pairs (0-based, in range): self-loop policy, then symmetric merge."""
    loops = src == dst
    if loops.any():
        i = int(np.flatnonzero(loops)[0])
        count = int(np.count_nonzero(loops))
        if strict:
            raise InputError(f"self-loop at vertex {label(int(src[i]))}", path=path, line=line_of_pair(i))
        warn_file(path, f"dropped {count} self-loop{'s' if count > 1 else ''} "
                        f"(first at vertex {label(int(src[i]))}, line {line_of_pair(i)})")
        keep = ~loops
        src, dst = src[keep], dst[keep]
        if weights is not None:
            weights = weights[keep]
    w = np.empty(0, np.int64) if weights is None else np.ascontiguousarray(weights, dtype=np.int64)
    if weights is None:  # NumPy's sort of the pair keys, then one pass that leaves the rows sorted
        indptr, adjacency = K.simple_graph_csr(src, dst, n, index_dtype(n))
        return Graph._trusted(indptr, adjacency, None, None, name)
    indptr, adjacency, ew = K.pairs_to_csr(np.ascontiguousarray(src, dtype=np.int64),
                                           np.ascontiguousarray(dst, dtype=np.int64), w, n)
    return Graph._trusted(indptr, adjacency, None, None if weights is None else ew, name)


def stem(path: str) -> str:
    """The graph's default name: the file name without compression suffix and extension ('stdin' for `-`)."""
    if is_stdin(path):
        return "stdin"
    base = os.path.basename(strip_compression(path))
    return base.rsplit(".", 1)[0] if "." in base else base
