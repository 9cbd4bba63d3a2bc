"""Numba kernel for multi-pattern text search over text segments (seed 000 ch. 3.4 string search)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def search_segments(text, seg_offsets, seg_starts, seg_bases, patterns, pattern_offsets):
    """Matches of every pattern starting at the first seg_starts[s] positions of each segment.

    text: concatenated segments (uint8); segment s begins at seg_offsets[s] in `text`, its position 0 is global
    position seg_bases[s]; a segment holds seg_starts[s] start positions plus enough trailing bytes for the
    longest pattern (as far as the text goes). Returns an (m, 2) int64 array of (global position, pattern id),
    ordered by position then pattern id.
    """
    n_patterns = pattern_offsets.shape[0] - 1
    count = 0
    for phase in range(2):
        if phase == 1:
            out = np.empty((count, 2), dtype=np.int64)
            count = 0
        for s in range(seg_offsets.shape[0] - 1):
            begin = seg_offsets[s]
            end = seg_offsets[s + 1]
            for i in range(seg_starts[s]):
                position = begin + i
                for p in range(n_patterns):
                    p0 = pattern_offsets[p]
                    length = pattern_offsets[p + 1] - p0
                    if position + length > end:
                        continue
                    match = True
                    for j in range(length):
                        if text[position + j] != patterns[p0 + j]:
                            match = False
                            break
                    if match:
                        if phase == 1:
                            out[count, 0] = seg_bases[s] + i
                            out[count, 1] = p
                        count += 1
    return out
