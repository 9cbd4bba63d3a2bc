"""METIS `.graph` files (the format of METIS, KaHIP, KaMinPar, Chaco and the Walshaw/DIMACS10 archives).

Format (METIS manual, section 4.1.1): lines starting with `%` are comments. The first other line is the header
`n m [fmt [ncon]]`; then line i (i = 1..n) describes vertex i: `[size] [w_1 … w_ncon] u_1 [e_1] u_2 [e_2] …`
with 1-based neighbour ids. `fmt` has up to three binary digits: the units digit says edges carry weights,
the tens digit that vertices carry `ncon` weights (ncon defaults to 1), the hundreds digit that each vertex
starts with its size (communication volume). An isolated vertex is an empty line.

apportion reads sizes, checks them (non-negative) and drops them: a `Graph` has no slot for them. Edge weights
must be positive, vertex weights non-negative. The header's m must equal half the number of neighbour entries
(self-loop entries may be counted or not). Self-loops are dropped with a warning (an error with
`strict=True`); a neighbour listed twice and an asymmetric adjacency (u lists v but v does not list u, or with
another weight) are errors naming the line and the pair in the file's 1-based ids.
"""

from __future__ import annotations

import os

import numpy as np

from apportion._atomic import atomic_output
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.io import _parse_kernels as K
from apportion.graph.io._common import checked_adjacency_graph, stem
from apportion.graph.io._limits import check_vertex_count
from apportion.graph.io._source import Source, quoted, sourced
from apportion.graph.io._text import iter_head_lines, read_head, tokenize


def _parse_header(source: Source) -> tuple[int, int, int, int, int, int, int, int]:
    """(n, m, has_size, has_vertex_weights, has_edge_weights, ncon, header line, body offset) of a METIS file."""
    path = source.name
    head = read_head(source)
    if not head.strip():
        raise InputError("empty file (no METIS header 'n m [fmt [ncon]]')", path=path)
    for number, next_offset, raw in iter_head_lines(head):
        text = raw.strip()
        if not text or text.startswith(b"%"):
            continue
        shown = quoted(text)
        parts = text.split()
        if not 2 <= len(parts) <= 4 or not all(p.isdigit() for p in parts):
            raise InputError(f"bad METIS header {shown}: expected 'n m [fmt [ncon]]' with non-negative integers",
                             path=path, line=number)
        n, m = int(parts[0]), int(parts[1])
        fmt = parts[2].decode() if len(parts) > 2 else "0"
        if len(fmt) > 3 or any(c not in "01" for c in fmt):
            raise InputError(f"bad METIS header {shown}: fmt {fmt!r} must be up to three digits 0/1 "
                             "(sizes, vertex weights, edge weights)", path=path, line=number)
        fmt = fmt.rjust(3, "0")
        has_size, has_vw, has_ew = int(fmt[0]), int(fmt[1]), int(fmt[2])
        ncon = int(parts[3]) if len(parts) > 3 else 1
        if len(parts) > 3 and ncon < 1:
            raise InputError(f"bad METIS header {shown}: ncon must be at least 1", path=path, line=number)
        if ncon > 1 and not has_vw:
            raise InputError(f"bad METIS header {shown}: ncon = {ncon} but fmt {fmt!r} has no vertex weights",
                             path=path, line=number)
        if n > np.iinfo(np.int64).max // 4 or m > np.iinfo(np.int64).max // 4:
            raise InputError(f"bad METIS header {shown}: counts too large", path=path, line=number)
        return n, m, has_size, has_vw, has_ew, ncon, number, next_offset
    raise InputError("no METIS header 'n m [fmt [ncon]]' in the first 64 KiB (only comments)", path=path)


def read_metis(path: str | os.PathLike | Source, *, strict: bool = False, name: str | None = None) -> Graph:
    """Read a METIS `.graph` file (every fmt code, ncon ≥ 1, comments, empty lines for isolated vertices).

    `path` may be compressed (gzip, bzip2, xz: recognised by content), `-` (standard input) or a pipe.
    Raises InputError naming the file, line and problem for malformed input (see the module docstring).
    """
    with sourced(path) as source:
        return _read_metis(source, strict, name)


def _read_metis(source: Source, strict: bool, name: str | None) -> Graph:
    path = source.name
    n, m, has_size, has_vw, has_ew, ncon, header_line, offset = _parse_header(source)
    check_vertex_count(n, path=path, line=header_line, what="the header declares")
    body = tokenize(source, start=offset, first_line=header_line + 1, comments=b"%", keep_blank=True,
                    what="an integer")
    if body.lines < n:
        raise InputError(f"truncated file: the header declares {n:,} vertices but only {body.lines:,} vertex "
                         "lines follow", path=path, line=body.end_line if body.lines else header_line)
    if body.lines > n:
        extra = body.counts()[n:]
        nonempty = np.flatnonzero(extra)
        if nonempty.size:
            line = int(body.line_number[n + nonempty[0]])
            raise InputError(f"more vertex lines than the {n:,} vertices the header declares", path=path, line=line)
    line_start = body.line_start[:n + 1]
    nvw = ncon if has_vw else 0
    status, vertex, value, indptr, adjacency, ew, vw, _sizes = K.assemble_metis(
        body.values, line_start, n, has_size, nvw, has_ew)
    if status != K.METIS_OK:
        v = int(vertex)
        line = int(body.line_number[v])
        value = int(value)
        expect = ("a size, " if has_size else "") + (f"{nvw} vertex weight{'s' if nvw > 1 else ''}, " if nvw else "")
        messages = {
            K.METIS_FEW_TOKENS: f"vertex {v + 1}: expected {expect}then neighbours, but the line has only "
                                f"{value} number{'s' if value != 1 else ''} (wrong number of vertex weights)",
            K.METIS_ODD_TOKENS: f"vertex {v + 1}: fmt {has_size}{has_vw}{has_ew} needs a weight after every "
                                "neighbour, but the last neighbour has none",
            K.METIS_ID_RANGE: f"vertex {v + 1}: neighbour id {value} is out of range 1..{n}",
            K.METIS_EDGE_WEIGHT: f"vertex {v + 1}: edge weight {value} must be positive",
            K.METIS_VERTEX_WEIGHT: f"vertex {v + 1}: vertex weight {value} must be non-negative",
            K.METIS_VERTEX_SIZE: f"vertex {v + 1}: vertex size {value} must be non-negative",
        }
        raise InputError(messages[int(status)], path=path, line=line)
    entries = int(indptr[n])
    if entries != 2 * m:
        sources = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        loops = int(np.count_nonzero(adjacency == sources))
        if entries - loops != 2 * m:
            raise InputError(f"the header declares m = {m:,} edges but the vertex lines list {entries - loops:,} "
                             f"neighbour entries (2m = {2 * m:,} expected)", path=path, line=header_line)
    vertex_weights = None
    if has_vw:
        vertex_weights = vw[:, 0].copy() if ncon == 1 else vw
    line_number = body.line_number
    return checked_adjacency_graph(
        path, indptr, adjacency, ew if has_ew else None, vertex_weights, strict=strict,
        line_of_vertex=lambda v: int(line_number[v]), label=lambda v: str(v + 1),
        name=stem(source.path) if name is None else name)


#: write_metis formats the vertex lines in slices of about this many arcs, so that its temporaries (the tokens as
#: int64 and their text, about 40 bytes an arc) stay bounded instead of growing to ten times the graph's arrays
#: (rmat 2^21: the process's peak 1.41 -> 2.35 GB when the whole text was made at once)
WRITE_SLICE_ARCS = 1 << 22


def metis_header(graph: Graph) -> str:
    """The METIS header line of `graph`: n, m, and fmt (and ncon when > 1) when it has weights."""
    has_vw = graph.vertex_weights is not None
    has_ew = graph.edge_weights is not None
    header = f"{graph.n} {graph.m}"
    if has_vw or has_ew:
        header += f" {10 * int(has_vw) + int(has_ew)}"
        if graph.ncon > 1 and has_vw:
            header += f" {graph.ncon}"
    return header


def metis_text_lines(graph: Graph, lo: int = 0, hi: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The integer tokens and line starts of the METIS vertex lines of vertices lo..hi-1 of `graph`."""
    hi = graph.n if hi is None else hi
    has_vw = graph.vertex_weights is not None
    has_ew = graph.edge_weights is not None
    ncon = graph.ncon if has_vw else 0
    first, last = int(graph.indptr[lo]), int(graph.indptr[hi])
    deg = np.diff(graph.indptr[lo:hi + 1]).astype(np.int64)
    stride = 2 if has_ew else 1
    per_line = ncon + deg * stride
    line_start = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(per_line, out=line_start[1:])
    values = np.empty(int(line_start[-1]), dtype=np.int64)
    if has_vw:
        vwm = graph.vertex_weight_matrix()
        for c in range(ncon):  # loop over constraints, not vertices
            values[line_start[:-1] + c] = vwm[lo:hi, c]
    local = np.arange(last - first, dtype=np.int64) - np.repeat(graph.indptr[lo:hi] - first, deg)
    position = np.repeat(line_start[:-1] + ncon, deg) + local * stride
    values[position] = graph.indices[first:last].astype(np.int64) + 1
    if has_ew:
        values[position + 1] = graph.edge_weights[first:last]
    return values, line_start


def row_slices(indptr: np.ndarray, arcs: int) -> list[tuple[int, int]]:
    """Consecutive vertex ranges (lo, hi) covering every vertex, each with about `arcs` arcs (a vertex with
    more arcs than that is a range of its own)."""
    n = indptr.shape[0] - 1
    slices, lo = [], 0
    while lo < n:
        hi = int(np.searchsorted(indptr, indptr[lo] + arcs, side="right")) - 1
        hi = min(max(hi, lo + 1), n)
        slices.append((lo, hi))
        lo = hi
    return slices


def write_metis(graph: Graph, path: str | os.PathLike) -> None:
    """Write `graph` as a METIS `.graph` file (fmt 0/1/10/11, ncon when > 1), atomically; the vertex lines are
    formatted a slice at a time (WRITE_SLICE_ARCS)."""
    with atomic_output(path, "wb") as handle:
        handle.write(metis_header(graph).encode() + b"\n")
        for lo, hi in row_slices(graph.indptr, WRITE_SLICE_ARCS):
            values, line_start = metis_text_lines(graph, lo, hi)
            handle.write(memoryview(K.join_int_lines(values, line_start)))
