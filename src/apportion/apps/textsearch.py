"""Multi-pattern text search in chunks (seed 000 ch. 3.4: "finds all strings that match certain patterns").

The text is cut into `n_chunks` ranges of *start positions*; a chunk's segment carries its own range plus the
next (longest pattern - 1) bytes, and reports only matches that START inside its own range. A match that spans
a chunk boundary therefore belongs to exactly one chunk (the one holding its first byte): found exactly once.
Overlapping matches (e.g. "aa" twice in "aaa") are all reported. Result: (m, 2) int64 (position, pattern id)
sorted by position then pattern id. Work: one byte comparison per start position and pattern (counted as one
"FLOP" for performance models); bytes in = the segment, bytes out = 16 per expected match (small).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from apportion.errors import InputError
from apportion.platform.cuda import CudaKernel
from apportion.platform.device import KernelSet, Work
from apportion.schedule.pool import Workload, chunk_bounds, contiguous_runs


def _cpu_search(text, seg_offsets, seg_starts, seg_bases, patterns, pattern_offsets):
    from apportion.apps._textsearch_kernels import search_segments

    return search_segments(text, seg_offsets, seg_starts, seg_bases, patterns, pattern_offsets)


# the GPU implementation: numba-cuda kernels (apps/_textsearch_cuda.py; the CUDA simulator runs them in CI)
TEXTSEARCH_KERNELS = KernelSet(cpu=_cpu_search, gpu=CudaKernel("apportion.apps._textsearch_cuda", "search_segments_cuda"),
                               name="textsearch")


def _pattern_arrays(patterns: Sequence[bytes | str]) -> tuple[np.ndarray, np.ndarray]:
    encoded = [p.encode() if isinstance(p, str) else bytes(p) for p in patterns]
    if not encoded or any(len(p) == 0 for p in encoded):
        raise InputError("textsearch: needs at least one non-empty pattern")
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(p) for p in encoded])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), offsets


def textsearch_reference(text: bytes, patterns: Sequence[bytes | str]) -> np.ndarray:
    """Sequential reference with bytes.find: every (possibly overlapping) match, sorted."""
    found = []
    for pid, pattern in enumerate(patterns):
        pattern = pattern.encode() if isinstance(pattern, str) else bytes(pattern)
        start = text.find(pattern)
        while start >= 0:
            found.append((start, pid))
            start = text.find(pattern, start + 1)
    found.sort()
    return np.array(found, dtype=np.int64).reshape(-1, 2)


class TextSearchWorkload(Workload):
    """Search `patterns` in `text` (bytes, or None with `size` for a size-only simulated load)."""

    def __init__(self, text: bytes | np.ndarray | None, patterns: Sequence[bytes | str], n_chunks: int, *,
                 size: int | None = None):
        self.name = "textsearch"
        self.patterns, self.pattern_offsets = _pattern_arrays(patterns)
        self.n_patterns = len(self.pattern_offsets) - 1
        self.overlap = int(np.diff(self.pattern_offsets).max()) - 1
        if text is None:
            self.text = None
            self.size = int(size or 0)
            self.materialized = False
        else:
            self.text = np.frombuffer(text, dtype=np.uint8) if isinstance(text, (bytes, bytearray)) \
                else np.ascontiguousarray(text, dtype=np.uint8)
            self.size = int(self.text.size)
            self.materialized = True
        self.bounds = chunk_bounds(self.size, int(n_chunks))
        self.n_chunks = int(n_chunks)
        self.kernels = TEXTSEARCH_KERNELS
        self._parts: dict[int, np.ndarray] = {}

    def payload(self, chunk_ids):
        runs = contiguous_runs(chunk_ids)
        pieces, offsets, starts, bases = [], [0], [], []
        for s, e in runs:
            lo, hi = int(self.bounds[s]), int(self.bounds[e])
            piece = self.text[lo:min(self.size, hi + self.overlap)]
            pieces.append(piece)
            offsets.append(offsets[-1] + piece.size)
            starts.append(hi - lo)
            bases.append(lo)
        text = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
        return (np.ascontiguousarray(text), np.asarray(offsets, dtype=np.int64), np.asarray(starts, dtype=np.int64),
                np.asarray(bases, dtype=np.int64), self.patterns, self.pattern_offsets)

    def store(self, chunk_ids, result) -> None:
        result = np.asarray(result, dtype=np.int64).reshape(-1, 2)
        for s, e in contiguous_runs(chunk_ids):
            for c in range(s, e):
                lo, hi = self.bounds[c], self.bounds[c + 1]
                inside = (result[:, 0] >= lo) & (result[:, 0] < hi)
                self._parts[c] = result[inside]

    def work(self, chunk_ids) -> Work:
        positions = float(sum(self.bounds[e] - self.bounds[s] for s, e in contiguous_runs(chunk_ids)))
        return Work(flops=positions * self.n_patterns, bytes_in=positions + self.overlap,
                    bytes_out=16.0 * positions / 1000.0, chunks=len(chunk_ids), workload=self.name)

    def reset(self) -> None:
        self._parts = {}

    def result(self) -> np.ndarray:
        parts = [self._parts[c] for c in range(self.n_chunks)]
        out = np.concatenate(parts) if parts else np.empty((0, 2), dtype=np.int64)
        order = np.lexsort((out[:, 1], out[:, 0]))
        return out[order]


def random_text(size: int, seed: int = 0, alphabet: bytes = b"acgt") -> bytes:
    """`size` random bytes over `alphabet` (a DNA-like text has many matches), reproducible by seed."""
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(alphabet, dtype=np.uint8)
    return letters[rng.integers(0, letters.size, size)].tobytes()
