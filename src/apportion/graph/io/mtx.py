"""Matrix Market `.mtx` files (coordinate format) as graphs, and as SciPy matrices with their values
(`read_matrix`: the apps that multiply matrices).

Banner `%%MatrixMarket matrix coordinate FIELD SYMMETRY`, then `%` comments, a size line `rows cols nnz`, and
nnz entry lines `i j [value]` with 1-based indices.

- FIELD `pattern`: no values. `integer`: values are edge weights and must be positive. `real`: the values
  become edge weights when every one of them is a positive integer (e.g. `2` or `2.0e0`); otherwise the
  graph is the pattern (values dropped, one warning). `complex` is refused.
- SYMMETRY `symmetric` (entries of one triangle; mirrored), `skew-symmetric` (mirrored; values dropped,
  since a_ji = −a_ij), `general`: the graph of A + Aᵀ (an entry in either direction is an edge; entries for
  the same pair are merged and keep their largest weight). `hermitian` is refused (complex only).
- `bipartite=True`: the bipartite row/column graph instead: n = rows + cols, vertex i (0-based) is row i,
  vertex rows + j is column j, entry (i, j) is the edge {i, rows + j}; works for any shape.
- A non-square matrix without `bipartite=True` is an error. Diagonal entries are self-loops: dropped with a
  warning (errors with `strict=True`).
Writing: `coordinate pattern symmetric` (or `integer symmetric` with edge weights), lower triangle, 1-based.

`read_matrix(path)` reads any Matrix Market file SciPy reads (coordinate or array, every symmetry) as a CSR
matrix with its values, compressed or from standard input; complex values are refused.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from apportion._atomic import atomic_output
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.io import _parse_kernels as K
from apportion.graph.io._common import DroppedValuesWarning, graph_from_pairs, stem, warn_file
from apportion.graph.io._limits import check_vertex_count
from apportion.graph.io._source import HEAD_BYTES, Source, is_stdin, quoted, sourced
from apportion.graph.io._text import iter_head_lines, read_head, tokenize

_FIELDS = ("pattern", "integer", "real", "double")
_SYMMETRIES = ("general", "symmetric", "skew-symmetric")


def _parse_header(source: Source):
    """(rows, cols, nnz, field, symmetry, size line number, body offset)."""
    path = source.name
    head = read_head(source)
    if not head.strip():
        raise InputError("empty file (no %%MatrixMarket banner)", path=path)
    lines = iter_head_lines(head)
    number, offset, banner = next(lines)
    words = banner.strip().lower().split()
    shown = quoted(banner.strip(), 80)
    if len(words) != 5 or words[0] != b"%%matrixmarket" or words[1] != b"matrix":
        raise InputError(f"bad Matrix Market banner {shown}: expected "
                         "'%%MatrixMarket matrix coordinate FIELD SYMMETRY'", path=path, line=1)
    layout, field, symmetry = (w.decode("utf-8", "replace") for w in words[2:])
    if layout != "coordinate":
        raise InputError(f"Matrix Market layout {quoted(words[2], 40)} is not supported (only 'coordinate')", path=path, line=1)
    if field not in _FIELDS:
        raise InputError(f"Matrix Market field {quoted(words[3], 40)} is not supported (pattern, integer or real)",
                         path=path, line=1)
    if symmetry not in _SYMMETRIES:
        raise InputError(f"Matrix Market symmetry {quoted(words[4], 40)} is not supported "
                         "(general, symmetric or skew-symmetric)", path=path, line=1)
    for number, offset, raw in lines:
        text = raw.strip()
        if not text or text.startswith(b"%"):
            continue
        parts = text.split()
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise InputError(f"bad Matrix Market size line {quoted(text)}: "
                             "expected 'rows cols entries'", path=path, line=number)
        rows, cols, nnz = (int(p) for p in parts)
        return rows, cols, nnz, field, symmetry, number, offset
    if len(head) >= HEAD_BYTES:
        raise InputError("no size line 'rows cols entries' in the first 64 KiB (only the banner and comments)",
                         path=path)
    raise InputError("truncated file: no size line 'rows cols entries' after the banner", path=path)


def read_mtx(path: str | os.PathLike | Source, *, strict: bool = False, bipartite: bool = False,
             name: str | None = None) -> Graph:
    """Read a coordinate Matrix Market file as an undirected graph (rules in the module docstring).

    `path` may be compressed (gzip, bzip2, xz: recognised by content), `-` (standard input) or a pipe."""
    with sourced(path) as source:
        return _read_mtx(source, strict, bipartite, name)


def _read_mtx(source: Source, strict: bool, bipartite: bool, name: str | None) -> Graph:
    path = source.name
    rows, cols, nnz, field, symmetry, size_line, offset = _parse_header(source)
    if symmetry != "general" and rows != cols:
        raise InputError(f"a {symmetry} matrix must be square, got {rows:,}×{cols:,}", path=path, line=size_line)
    if rows != cols and not bipartite:
        raise InputError(f"the matrix is {rows:,}×{cols:,}, not square: use bipartite=True (--bipartite) for "
                         "its row/column graph", path=path, line=size_line)
    vertices = rows + cols if bipartite else rows
    check_vertex_count(vertices, path=path, line=size_line,
                       what="the size line declares" if not bipartite else "rows + columns make")
    want_float = field in ("real", "double")
    body = tokenize(source, start=offset, first_line=size_line + 1, comments=b"%", keep_blank=False,
                    want_float=want_float, what="a number" if want_float else "an integer")
    columns = 2 if field == "pattern" else 3
    counts = body.counts()
    wrong = np.flatnonzero(counts != columns)
    if wrong.size:
        k = int(wrong[0])
        raise InputError(f"expected {columns} numbers per entry ('row col{'' if columns == 2 else ' value'}'), "
                         f"got {int(counts[k])}", path=path, line=int(body.line_number[k]))
    if body.lines != nnz:
        what = "truncated file: " if body.lines < nnz else ""
        raise InputError(f"{what}the size line declares {nnz:,} entries but {body.lines:,} entry lines follow",
                         path=path, line=size_line)
    table = body.values.reshape(nnz, columns)
    line_number = body.line_number
    if want_float:
        flags = body.is_integer.reshape(nnz, columns)
        bad = np.flatnonzero(flags[:, :2].min(axis=1) == 0) if nnz else np.empty(0, np.int64)
        if bad.size:
            k = int(bad[0])
            raise InputError("row and column indices must be integers", path=path, line=int(line_number[k]))
    i = table[:, 0] - 1
    j = table[:, 1] - 1
    for index, limit, what in ((i, rows, "row"), (j, cols, "column")):
        out = np.flatnonzero((index < 0) | (index >= limit))
        if out.size:
            k = int(out[0])
            raise InputError(f"{what} index {int(index[k]) + 1} is out of range 1..{limit}", path=path,
                             line=int(line_number[k]))
    weights = None
    if field == "integer":
        weights = np.ascontiguousarray(table[:, 2])
        bad = np.flatnonzero(weights <= 0)
        if bad.size:
            k = int(bad[0])
            raise InputError(f"edge weight {int(weights[k])} must be positive (integer matrices give edge "
                             "weights)", path=path, line=int(line_number[k]))
    elif want_float and nnz and symmetry != "skew-symmetric":
        value_is_int = body.is_integer.reshape(nnz, columns)[:, 2].astype(bool)
        values = table[:, 2]
        if value_is_int.all() and (values > 0).all():
            if not (values == 1).all():
                weights = np.ascontiguousarray(values)
        else:
            warn_file(path, "real values that are not all positive integers: read as a pattern graph "
                            "(values dropped)", DroppedValuesWarning)
    if symmetry == "skew-symmetric":
        weights = None
    if bipartite:
        if symmetry != "general":
            off = i != j
            i, j = np.concatenate([i, j[off]]), np.concatenate([j, i[off]])
            if weights is not None:
                weights = np.concatenate([weights, weights[off]])
            pair_line = np.concatenate([np.arange(nnz), np.flatnonzero(off)])
        else:
            pair_line = None
        src, dst, n = i, j + rows, rows + cols

        def line_of_pair(k: int) -> int:
            return int(line_number[k if pair_line is None else pair_line[k]])

        def label(v: int) -> str:
            return f"row {v + 1}" if v < rows else f"column {v - rows + 1}"
    else:
        src, dst, n = i, j, rows

        def line_of_pair(k: int) -> int:
            return int(line_number[k])

        def label(v: int) -> str:
            return str(v + 1)

    return graph_from_pairs(path, src, dst, weights, n, strict=strict, line_of_pair=line_of_pair, label=label,
                            name=stem(source.path) if name is None else name)


def write_mtx(graph: Graph, path: str | os.PathLike) -> None:
    """Write the symmetric adjacency (lower triangle, 1-based) as `coordinate pattern|integer symmetric`.

    Vertex weights cannot be stored in Matrix Market: a warning says they were dropped.
    """
    if graph.vertex_weights is not None:
        warn_file(str(path), "Matrix Market files cannot store vertex weights; they were not written")
    u, v, w = graph.edges()
    # lower triangle: row = larger id; order by row then column
    row = v.astype(np.int64) + 1
    col = u.astype(np.int64) + 1
    order = np.lexsort((col, row))
    columns = [row[order], col[order]] + ([w[order].astype(np.int64)] if w is not None else [])
    values = np.stack(columns, axis=1).ravel() if row.size else np.empty(0, np.int64)
    line_start = np.arange(0, values.shape[0] + 1, len(columns), dtype=np.int64)
    text = K.join_int_lines(values, line_start)
    field = "integer" if w is not None else "pattern"
    with atomic_output(path, "wb") as handle:
        handle.write(f"%%MatrixMarket matrix coordinate {field} symmetric\n".encode())
        handle.write(f"% written by apportion: undirected graph {_comment_text(graph.name or '')}\n".encode())
        handle.write(f"{graph.n} {graph.n} {graph.m}\n".encode())
        handle.write(memoryview(text))


def _comment_text(text: str, limit: int = 200) -> str:
    """`text` fit for one comment line: line breaks and other control characters as spaces, text that cannot
    be encoded as UTF-8 (a file name's undecodable bytes) as replacement marks, at most `limit` characters."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    return "".join(c if c.isprintable() else " " for c in text)[:limit]


def read_matrix(path: str | os.PathLike):
    """The Matrix Market file `path` as a SciPy CSR matrix with its values (SciPy's reader; gzip, bzip2 and xz
    data recognised by content; `-` reads standard input). InputError for a file that does not exist or cannot
    be read as Matrix Market, and for complex values."""
    import scipy.io
    import scipy.sparse as sp

    path = str(path)
    if not is_stdin(path) and not Path(path).exists():
        raise InputError("no such file", path=path)
    try:
        with sourced(path) as source:
            matrix = scipy.io.mmread(io.BytesIO(source.read_all()))
    except (ValueError, OSError, IndexError, EOFError) as error:
        raise InputError(f"not a readable Matrix Market file ({error})", path=path) from None
    if np.iscomplexobj(matrix.data if sp.issparse(matrix) else matrix):
        raise InputError("complex values are not supported (real or integer matrices only)", path=path)
    return (matrix if sp.issparse(matrix) else sp.csr_matrix(np.asarray(matrix))).tocsr()
