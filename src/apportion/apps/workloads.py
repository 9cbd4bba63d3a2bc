"""Build the shipped workloads (apps matmul, textsearch, pbf) by name and size, for the CLI, demo, benchmarks.

Sizes: matmul — the matrix dimension n (n x n times n x n); textsearch — megabytes of text; pbf — millions of
elements. Simulated platforms get size-only workloads (no data is made, nothing is computed) unless
`materialize=True`; real platforms always get data (random, reproducible by `seed`).
"""

from __future__ import annotations

import math

import numpy as np

from apportion.apps.matmul import matmul_workload, random_matrices
from apportion.apps.pbf import FilterWorkload
from apportion.apps.textsearch import TextSearchWorkload, random_text
from apportion.errors import InputError
from apportion.graph.io._limits import INT64_MAX, check_memory

WORKLOADS = ("matmul", "textsearch", "pbf")
DEFAULT_SIZE = {"simulated": {"matmul": 6000, "textsearch": 50, "pbf": 64},
                "real": {"matmul": 400, "textsearch": 4, "pbf": 8}}
TEXT_PATTERNS = ("gattaca", "acgtacgt", "tatata", "cgcg", "aaaaaa", "ggtcca", "ttgacc", "catcat")


#: chunks of one load at most (the schedulers keep per-chunk state), and the items a load is cut over at most
#: (so that the chunk bounds, chunk index x items, stay within int64)
MAX_CHUNKS = 1_000_000
MAX_ITEMS = INT64_MAX // (MAX_CHUNKS + 1)


def default_chunks(workload: str, size: float) -> int:
    """Chunks per load: matmul 10 rows per chunk, textsearch 100 kB, pbf 256 k elements (at least 8, at most
    `MAX_CHUNKS`)."""
    if workload == "matmul":
        per_size = int(size) // 10
    elif workload == "textsearch":
        per_size = int(size * 1e6) // 100_000
    else:
        per_size = int(size * 1e6) // 262_144
    return min(MAX_CHUNKS, max(8, per_size))


def build_workload(name: str, size: float, chunks: int | None = None, *, materialize: bool = True, seed: int = 0):
    """The workload `name` of `size` (see module docstring) cut into `chunks` chunks."""
    if name not in WORKLOADS:
        raise InputError(f"unknown workload {name!r} (choose from {', '.join(WORKLOADS)})")
    if not 0 < size < math.inf:
        raise InputError(f"size: must be a finite number > 0, got {size}")
    if name == "matmul" and size != int(size):
        raise InputError(f"size: matmul's size is the matrix dimension, a whole number; got {size}")
    if materialize:  # the data made here: float64 matrices A, B and the product; text bytes; float32 values
        needed = {"matmul": 3 * 8 * int(size) ** 2, "textsearch": int(size * 1e6), "pbf": 4 * int(size * 1e6)}
        check_memory(needed[name], f"size {size:g} for {name}")
    items = int(size) if name == "matmul" else int(size * 1e6)
    if items > MAX_ITEMS:
        unit = {"matmul": "rows", "textsearch": "bytes", "pbf": "elements"}[name]
        raise InputError(f"size: {size:g} makes more {unit} ({float(items):.3g}) than the {MAX_ITEMS:,} a "
                         f"workload is cut over")
    chunks = int(chunks) if chunks is not None else default_chunks(name, size)
    if chunks > MAX_CHUNKS:
        raise InputError(f"chunks: at most {MAX_CHUNKS:,}, got {chunks:,}")
    if name == "matmul":
        n = int(size)
        if chunks > n:
            raise InputError(f"chunks: {chunks} chunks need at least that many rows, matrix has {n}")
        if not materialize:
            return matmul_workload(None, None, chunks, size=n)
        a, b = random_matrices(n, seed=seed)
        return matmul_workload(a, b, chunks)
    if name == "textsearch":
        nbytes = int(size * 1e6)
        if chunks > nbytes:
            raise InputError(f"chunks: more chunks ({chunks}) than bytes ({nbytes})")
        text = random_text(nbytes, seed=seed) if materialize else None
        return TextSearchWorkload(text, TEXT_PATTERNS, chunks, size=nbytes)
    count = int(size * 1e6)
    if chunks > count:
        raise InputError(f"chunks: more chunks ({chunks}) than elements ({count})")
    if not materialize:
        return FilterWorkload(None, 0.25, 0.75, chunks, size=count)
    values = np.random.default_rng(seed).random(count).astype(np.float32)
    return FilterWorkload(values, 0.25, 0.75, chunks)
