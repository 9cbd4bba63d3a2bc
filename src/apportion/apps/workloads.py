"""Build the shipped workloads (apps matmul, textsearch, pbf) by name and size, for the CLI, demo, benchmarks.

Sizes: matmul — the matrix dimension n (n x n times n x n); textsearch — megabytes of text; pbf — millions of
elements. Simulated platforms get size-only workloads (no data is made, nothing is computed) unless
`materialize=True`; real platforms always get data (random, reproducible by `seed`).
"""

from __future__ import annotations

import numpy as np

from apportion.apps.matmul import matmul_workload, random_matrices
from apportion.apps.pbf import FilterWorkload
from apportion.apps.textsearch import TextSearchWorkload, random_text
from apportion.errors import InputError

WORKLOADS = ("matmul", "textsearch", "pbf")
DEFAULT_SIZE = {"simulated": {"matmul": 6000, "textsearch": 50, "pbf": 64},
                "real": {"matmul": 400, "textsearch": 4, "pbf": 8}}
TEXT_PATTERNS = ("gattaca", "acgtacgt", "tatata", "cgcg", "aaaaaa", "ggtcca", "ttgacc", "catcat")


def default_chunks(workload: str, size: float) -> int:
    """Chunks per load: matmul 10 rows per chunk, textsearch 100 kB, pbf 256 k elements (at least 8)."""
    if workload == "matmul":
        return max(8, int(size) // 10)
    if workload == "textsearch":
        return max(8, int(size * 1e6) // 100_000)
    return max(8, int(size * 1e6) // 262_144)


def build_workload(name: str, size: float, chunks: int | None = None, *, materialize: bool = True, seed: int = 0):
    """The workload `name` of `size` (see module docstring) cut into `chunks` chunks."""
    if name not in WORKLOADS:
        raise InputError(f"unknown workload {name!r} (choose from {', '.join(WORKLOADS)})")
    if not size > 0:
        raise InputError(f"size: must be > 0, got {size}")
    chunks = int(chunks) if chunks is not None else default_chunks(name, size)
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
