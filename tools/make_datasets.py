"""Rebuild the graphs shipped in `apportion.datasets` from the shared graphs folder (maintainers only).

    python tools/make_datasets.py [GRAPHS_FOLDER]     (default: $APPORTION_GRAPHS or ../shared/graphs)

Each dataset of the catalog is read from its original file with apportion's own reader, checked against the
file's SHA-256 and the catalog's n and m, and written as a compressed `.npz` archive in the layout of
`apportion.graph.io.npz` (so `read_npz` loads and validates it); ids are stored as int32 and weights in the
smallest integer type that holds them, which the reader widens back to int64.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

from apportion.datasets import DATA_DIR, DATASETS
from apportion.datasets.shared import shared_graphs_dir
from apportion.graph.io import read_graph
from apportion.graph.io.npz import FORMAT, VERSION


def _small(values: np.ndarray) -> np.ndarray:
    """The narrowest signed integer array holding `values` exactly (compresses better)."""
    for dtype in (np.int8, np.int16, np.int32):
        info = np.iinfo(dtype)
        if values.size == 0 or (values.min() >= info.min and values.max() <= info.max):
            return values.astype(dtype)
    return values


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else shared_graphs_dir()
    if folder is None or not folder.is_dir():
        sys.stderr.write("make_datasets: graphs folder not found (pass it or set APPORTION_GRAPHS)\n")
        return 2
    for entry in DATASETS:
        source = folder / entry.source_file
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        if digest != entry.source_sha256:
            sys.stderr.write(f"make_datasets: {source}: SHA-256 {digest} differs from the catalog's\n")
            return 1
        graph = read_graph(source)
        if (graph.n, graph.m) != (entry.n, entry.m):
            sys.stderr.write(f"make_datasets: {source}: n, m = {graph.n}, {graph.m}; catalog {entry.n}, {entry.m}\n")
            return 1
        arrays = {"format": np.array(FORMAT), "version": np.array(VERSION, dtype=np.int64),
                  "indptr": _small(graph.indptr), "indices": _small(graph.indices), "name": np.array(entry.name)}
        if graph.edge_weights is not None:
            arrays["edge_weights"] = _small(graph.edge_weights)
        if graph.vertex_weights is not None:
            arrays["vertex_weights"] = _small(graph.vertex_weights)
        target = DATA_DIR / entry.file
        np.savez_compressed(target, **arrays)
        print(f"{entry.name:18s} n={graph.n:>7,} m={graph.m:>8,} {target.stat().st_size / 1024:8.1f} KiB  {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
