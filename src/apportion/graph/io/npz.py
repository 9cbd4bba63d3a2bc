"""apportion's binary graph format: an uncompressed NumPy `.npz` archive of the CSR arrays.

Arrays: `format` ("apportion-graph"), `version` (1; another value is refused, an absent one read as 1),
`indptr` (int64, n + 1), `indices` (int32/int64, 2m, sorted neighbour lists), optional `edge_weights` (int64,
2m, positive), optional `vertex_weights` (int64, (n,) or (n, ncon) with ncon ≥ 1, non-negative), `name` (str). Loading validates every invariant of `Graph` (offsets, id range,
no self-loops, sorted duplicate-free rows, symmetry with equal weights) so a damaged or hand-made file is an
InputError, never a broken Graph. Nothing is pickled (`allow_pickle=False`).
"""

from __future__ import annotations

import io
import os
import zipfile

import numpy as np

from apportion._atomic import atomic_output
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.io import _parse_kernels as K
from apportion.graph.io._common import stem
from apportion.graph.io._source import Source, compression_suffix, is_stdin, sourced

FORMAT = "apportion-graph"
VERSION = 1


def write_npz(graph: Graph, path: str | os.PathLike) -> None:
    """Write `graph` as an uncompressed `.npz` archive, atomically."""
    arrays = {
        "format": np.array(FORMAT),
        "version": np.array(VERSION, dtype=np.int64),
        "indptr": graph.indptr,
        "indices": graph.indices,
        "name": np.array(graph.name or ""),
    }
    if graph.edge_weights is not None:
        arrays["edge_weights"] = graph.edge_weights
    if graph.vertex_weights is not None:
        arrays["vertex_weights"] = graph.vertex_weights
    with atomic_output(path, "wb") as handle:
        if is_stdin(path) or compression_suffix(path):  # a zip archive seeks back: build it in memory first
            buffer = io.BytesIO()
            np.savez(buffer, **arrays)
            handle.write(buffer.getbuffer())
        else:
            np.savez(handle, **arrays)


def _integer_array(archive, key: str, path: str, ndim: tuple[int, ...]) -> np.ndarray:
    arr = archive[key]
    if not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"array {key!r} must hold integers, got dtype {arr.dtype}", path=path)
    if arr.ndim not in ndim:
        raise InputError(f"array {key!r} must have {' or '.join(map(str, ndim))} dimension(s), got {arr.ndim}",
                         path=path)
    return np.ascontiguousarray(arr, dtype=np.int64)


def read_npz(path: str | os.PathLike | Source, *, strict: bool = False, name: str | None = None) -> Graph:
    """Load and validate a graph written by `write_npz` (strict has no effect: a valid file has no loops).

    `path` may be compressed (gzip, bzip2, xz: recognised by content), `-` (standard input) or a pipe; those
    are read into memory first (a zip archive needs random access)."""
    with sourced(path) as source:
        return _read_npz(source, name)


def _read_npz(source: Source, name: str | None) -> Graph:
    path = source.name
    if source.is_empty():
        raise InputError("empty file (not an .npz archive)", path=path)
    if source.head(4) == b"PK\x05\x06":
        raise InputError("not an apportion graph archive (an empty zip archive: no arrays)", path=path)
    if source.head(4) != b"PK\x03\x04":
        raise InputError("not a valid .npz archive (no zip signature at the start)", path=path)
    try:
        archive = np.load(source.plain_path if source.plain_path is not None else io.BytesIO(source.read_all()),
                          allow_pickle=False)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as error:
        raise InputError(f"not a valid .npz archive ({type(error).__name__}: {error})", path=path) from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise InputError("not an .npz archive (a single .npy array)", path=path)
    with archive:
        try:
            keys = set(archive.files)
            fmt = str(archive["format"]) if "format" in keys else None
            if fmt != FORMAT:
                raise InputError(f"not an apportion graph archive (array 'format' is {fmt!r}, expected {FORMAT!r})",
                                 path=path)
            version = archive["version"] if "version" in keys else np.array(VERSION)  # absent: hand-made, read as 1
            if version.shape != () or not np.issubdtype(version.dtype, np.integer) or int(version) != VERSION:
                raise InputError(f"archive version {version.tolist()!r} is not one this apportion reads (version "
                                 f"{VERSION}; a newer apportion may have written it)", path=path)
            for key in ("indptr", "indices"):
                if key not in keys:
                    raise InputError(f"array {key!r} is missing", path=path)
            indptr = _integer_array(archive, "indptr", path, (1,))
            indices = _integer_array(archive, "indices", path, (1,))
            ew = _integer_array(archive, "edge_weights", path, (1,)) if "edge_weights" in keys else None
            vw = _integer_array(archive, "vertex_weights", path, (1, 2)) if "vertex_weights" in keys else None
            label = str(archive["name"]) if "name" in keys else stem(source.path)
        except InputError:
            raise  # already one line about this archive (InputError is a ValueError too)
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as error:
            raise InputError(f"damaged .npz archive ({type(error).__name__}: {error})", path=path) from None
    if indptr.shape[0] < 1:
        raise InputError("array 'indptr' is empty (needs n + 1 entries)", path=path)
    n = indptr.shape[0] - 1
    code, position, value = K.check_csr_shape(indptr, indices, n)
    if code == 1:
        raise InputError(f"indptr[0] must be 0, got {int(value)}", path=path)
    if code == 2:
        raise InputError(f"indptr decreases at vertex {int(position)} (0-based)", path=path)
    if code == 3:
        raise InputError(f"indptr ends at {int(value)} but 'indices' has {indices.shape[0]} entries", path=path)
    if code == 4:
        v = int(np.searchsorted(indptr, position, side="right") - 1)
        raise InputError(f"vertex {v} has neighbour id {int(value)} out of range [0, {n}) (0-based ids)", path=path)
    if ew is not None:
        if ew.shape != indices.shape:
            raise InputError(f"'edge_weights' has {ew.shape[0]} entries, 'indices' {indices.shape[0]}", path=path)
        if ew.size and ew.min() <= 0:
            raise InputError(f"edge weights must be positive, found {int(ew.min())}", path=path)
    if vw is not None:
        if vw.shape[0] != n:
            raise InputError(f"'vertex_weights' has {vw.shape[0]} rows but the graph has {n} vertices", path=path)
        if vw.size and vw.min() < 0:
            raise InputError(f"vertex weights must be non-negative, found {int(vw.min())}", path=path)
        if vw.ndim == 2 and vw.shape[1] == 0:
            raise InputError("'vertex_weights' has no columns (one per constraint, at least one; leave the array "
                             "out for unit weights)", path=path)
        if vw.ndim == 2 and vw.shape[1] == 1:
            vw = np.ascontiguousarray(vw[:, 0])
    sources = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    loops = np.flatnonzero(sources == indices)
    if loops.size:
        raise InputError(f"self-loop at vertex {int(sources[loops[0]])} (0-based ids)", path=path)
    if indices.size > 1:
        same_row = sources[1:] == sources[:-1]
        unsorted = np.flatnonzero(same_row & (indices[1:] <= indices[:-1]))
        if unsorted.size:
            k = int(unsorted[0])
            raise InputError(f"neighbour list of vertex {int(sources[k])} is not strictly increasing "
                             "(unsorted or a duplicate edge; 0-based ids)", path=path)
    ew_or_empty = np.empty(0, np.int64) if ew is None else ew
    v, u, kind = (-1, -1, 0) if K.is_symmetric(indptr, indices, ew_or_empty) else \
        K.find_asymmetry(indptr, indices, ew_or_empty)
    if v >= 0:
        what = "has no reverse" if kind == 1 else "has a reverse of another weight"
        raise InputError(f"asymmetric adjacency: entry ({int(v)}, {int(u)}) {what} (0-based ids)", path=path)
    return Graph._trusted(indptr, indices, vw, ew, label if name is None else name)
