"""METIS `.part` files: one block id per line, line i for vertex i (0-based block ids)."""

from __future__ import annotations

import os

import numpy as np

from apportion._atomic import atomic_output
from apportion.errors import InputError
from apportion.graph.io._limits import INT32_MAX, check_memory
from apportion.graph.io._source import is_stdin, sourced


def write_partition(path: str | os.PathLike, assignment: np.ndarray) -> None:
    """Write one block id per line, as METIS's gpmetis does (atomically)."""
    values = np.asarray(assignment, dtype=np.int64)
    with atomic_output(path, "w") as handle:
        if values.size:
            handle.write("\n".join(map(str, values.tolist())))
            handle.write("\n")


def read_partition(path: str | os.PathLike, n: int | None = None) -> np.ndarray:
    """Read a `.part` file: one non-negative integer block id per line, line i for vertex i.

    Checks the line count against n (when given). Vectorised (Numba tokenizer); errors are InputErrors naming
    the file and line: a non-integer token, a line with no id or several, a negative id, a block id of 2^31 or
    more (METIS's 32-bit ids; k-sized arrays must also fit in memory), a wrong line count. `path` may be
    compressed, `-` (standard input) or a pipe.
    """
    from apportion.graph.io._text import tokenize  # Numba: only when a file is read

    if not is_stdin(path) and os.path.isdir(str(path)):
        raise InputError("is a directory, not a partition file", path=str(path))
    with sourced(path) as source:
        source.text_head()
        body = tokenize(source, comments=b"", keep_blank=True, what="an integer block id")
    path = source.name
    counts = body.counts()
    filled = np.flatnonzero(counts)
    counts = counts[:int(filled[-1]) + 1] if filled.size else counts[:0]  # blank lines at the end are no lines
    wrong = np.flatnonzero(counts != 1)
    if wrong.size:
        k = int(wrong[0])
        got = "an empty line" if counts[k] == 0 else f"{int(counts[k])} numbers"
        raise InputError(f"expected one block id per line, got {got}", path=path, line=int(body.line_number[k]))
    values = body.values
    negative = np.flatnonzero(values < 0)
    if negative.size:
        k = int(negative[0])
        raise InputError(f"negative block id {int(values[k])}", path=path, line=int(body.line_number[k]))
    if values.size:
        top = int(values.max())
        line = int(body.line_number[int(np.argmax(values))])
        if top > INT32_MAX - 1:
            raise InputError(f"block id {top:,} is too large (block ids must be below {INT32_MAX:,})", path=path,
                             line=line)
        # the metrics hold a few k-sized int64/float64 arrays (block weights, targets, sizes, connectivity)
        check_memory(4 * 8 * (top + 1), f"block id {top:,} (k = {top + 1:,} blocks)", path=path, line=line)
    if n is not None and values.shape[0] != n:
        raise InputError(f"partition has {values.shape[0]:,} lines but the graph has {n:,} vertices", path=path)
    return values
