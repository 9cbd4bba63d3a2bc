"""Edge lists (SNAP style): one edge per line, `u v` or `u v w`, any blanks between, `#`/`%` comment lines.

Reading rules (documented in docs/io.md):
- every data line has the same number of columns, 2 or 3; a third column is a positive integer edge weight
  (`weighted=False` ignores it);
- ids are integers ≥ `base` (0 by default; `base=1` for 1-based files);
- the input is treated as directed and symmetrised: (u, v) and (v, u) are the same undirected edge; repeated
  pairs are merged and keep their largest weight; self-loops are dropped with a warning (errors with
  `strict=True`);
- vertex count: a SNAP header comment `# Nodes: N Edges: M` (in the leading comment block) is honoured — M must
  equal the number of data lines, and if the ids do not fit in base..base+N−1 but exactly N distinct ids
  occur, the ids are *compacted*: the k-th smallest id becomes vertex k (this is how SNAP's wiki-Vote.txt, with
  ids up to 8,297, gives its 7,115 vertices). Without such a header n = largest id − base + 1 and ids are kept
  (ids that never occur are isolated vertices). `relabel=True` always compacts, `relabel=False` never does.

Writing: a `# Nodes: N Edges: M` header (so isolated vertices survive a round trip), then each undirected edge
once as `u v [w]`, 0-based, u < v.
"""

from __future__ import annotations

import os
import re

import numpy as np

from apportion._atomic import atomic_output
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.io import _parse_kernels as K
from apportion.graph.io._common import graph_from_pairs, stem, warn_file
from apportion.graph.io._limits import check_vertex_count
from apportion.graph.io._source import Source, sourced
from apportion.graph.io._text import iter_head_lines, read_head, tokenize

_SNAP_HEADER = re.compile(rb"Nodes:\s*(\d+)\s*,?\s*Edges:\s*(\d+)", re.IGNORECASE)


def _declared_counts(source: Source) -> tuple[int | None, int | None, int | None]:
    """(N, M, line) from a `# Nodes: N Edges: M` comment in the leading comment block, else Nones."""
    head = read_head(source)
    for number, _, raw in iter_head_lines(head):
        text = raw.strip()
        if not text:
            continue
        if not text.startswith((b"#", b"%")):
            break
        match = _SNAP_HEADER.search(text)
        if match:
            return int(match.group(1)), int(match.group(2)), number
    return None, None, None


def read_edgelist(path: str | os.PathLike | Source, *, strict: bool = False, base: int = 0,
                  relabel: bool | None = None, weighted: bool | None = None, name: str | None = None) -> Graph:
    """Read an edge list (see the module docstring for every rule). Returns an undirected simple Graph.

    `path` may be compressed (gzip, bzip2, xz: recognised by content), `-` (standard input) or a pipe."""
    with sourced(path) as source:
        return _read_edgelist(source, strict, base, relabel, weighted, name)


def _read_edgelist(source: Source, strict: bool, base: int, relabel: bool | None, weighted: bool | None,
                   name: str | None) -> Graph:
    path = source.name
    if base not in (0, 1):
        raise InputError(f"base must be 0 or 1, got {base}", path=path)
    if source.is_empty():
        raise InputError("empty file (no edges)", path=path)
    declared_n, declared_m, header_line = _declared_counts(source)
    if declared_n is not None:
        check_vertex_count(declared_n, path=path, line=header_line, what="the header declares")
    body = tokenize(source, comments=b"#%", keep_blank=False, what="an integer vertex id or weight")
    counts = body.counts()
    lines = body.lines
    if lines == 0 and declared_n is None:
        raise InputError("empty file (only comments, no edges)", path=path)
    columns = int(counts[0]) if lines else 2
    if columns not in (2, 3):
        raise InputError(f"expected 'u v' or 'u v weight', got {columns} number{'s' if columns != 1 else ''}",
                         path=path, line=int(body.line_number[0]))
    wrong = np.flatnonzero(counts != columns)
    if wrong.size:
        k = int(wrong[0])
        raise InputError(f"expected {columns} numbers like the first edge line, got {int(counts[k])}",
                         path=path, line=int(body.line_number[k]))
    if declared_m is not None and declared_m != lines:
        raise InputError(f"the header declares {declared_m:,} edges but the file has {lines:,} edge lines",
                         path=path, line=header_line)
    table = body.values.reshape(lines, columns)
    ids = table[:, :2]
    weights = None
    if columns == 3 and weighted is not False:
        weights = np.ascontiguousarray(table[:, 2])
        bad = np.flatnonzero(weights <= 0)
        if bad.size:
            k = int(bad[0])
            raise InputError(f"edge weight {int(weights[k])} must be positive", path=path,
                             line=int(body.line_number[k]))
    low = int(ids.min()) if lines else base
    if low < base:
        row = int(np.flatnonzero((ids < base).any(axis=1))[0])
        raise InputError(f"vertex id {int(ids[row].min())} is below the base {base} "
                         f"({'use base=0 for 0-based ids' if base == 1 else 'ids must be non-negative'})",
                         path=path, line=int(body.line_number[row]))
    top = int(ids.max()) if lines else base - 1
    labels = None  # file id of every vertex when compacted
    zero_based = ids - base
    span = top - base + 1
    compact = relabel
    if compact is None:
        compact = declared_n is not None and span > declared_n
    if compact:
        if span <= 4 * max(lines, 1) + 1024:
            present = np.zeros(span, dtype=bool)
            present[zero_based.ravel()] = True
            new_id = np.cumsum(present) - 1
            labels = np.flatnonzero(present) + base
            zero_based = new_id[zero_based]
        else:
            labels, inverse = np.unique(ids, return_inverse=True)
            zero_based = inverse.reshape(ids.shape)
        n = int(labels.shape[0])
        if declared_n is not None and relabel is None and n != declared_n:
            raise InputError(f"the header declares {declared_n:,} nodes but {n:,} distinct ids occur "
                             f"(ids range {base}..{top})", path=path, line=header_line)
        if declared_n is not None and n < declared_n:
            n = declared_n
    else:
        n = span
        if declared_n is None and lines:
            row = int(np.flatnonzero((ids == top).any(axis=1))[0])
            try:
                check_vertex_count(n, path=path, line=int(body.line_number[row]), entries=2 * lines,
                                   what=f"vertex id {top:,} makes")
            except InputError as error:
                raise InputError(error.problem + " — relabel=True (--relabel) numbers the ids that occur "
                                 "0..n−1", path=path, line=error.line) from None
        if declared_n is not None:
            if span > declared_n:
                row = int(np.flatnonzero((ids >= declared_n + base).any(axis=1))[0])
                raise InputError(f"vertex id {int(ids[row].max())} is out of range for the {declared_n:,} "
                                 "nodes the header declares", path=path, line=int(body.line_number[row]))
            n = declared_n
    line_number = body.line_number

    def label(v: int) -> str:
        return str(int(labels[v]) if labels is not None else v + base)

    return graph_from_pairs(path, np.ascontiguousarray(zero_based[:, 0]), np.ascontiguousarray(zero_based[:, 1]),
                            weights, n, strict=strict, line_of_pair=lambda i: int(line_number[i]), label=label,
                            name=stem(source.path) if name is None else name)


def write_edgelist(graph: Graph, path: str | os.PathLike) -> None:
    """Write `# Nodes: N Edges: M`, then each edge once as `u v [w]` (0-based, u < v), atomically.

    Vertex weights cannot be stored in an edge list: a warning says they were dropped.
    """
    if graph.vertex_weights is not None:
        warn_file(str(path), "edge lists cannot store vertex weights; they were not written")
    u, v, w = graph.edges()
    columns = [u.astype(np.int64), v.astype(np.int64)] + ([w.astype(np.int64)] if w is not None else [])
    values = np.stack(columns, axis=1).ravel() if columns[0].size else np.empty(0, np.int64)
    line_start = np.arange(0, values.shape[0] + 1, len(columns), dtype=np.int64)
    text = K.join_int_lines(values, line_start)
    with atomic_output(path, "wb") as handle:
        handle.write(f"# Nodes: {graph.n} Edges: {graph.m}\n".encode())
        handle.write(f"# undirected, 0-based, each edge once as 'u v{' weight' if w is not None else ''}'\n"
                     .encode())
        handle.write(memoryview(text))
