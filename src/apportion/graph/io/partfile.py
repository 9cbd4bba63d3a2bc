"""METIS `.part` files: one block id per line, line i for vertex i (0-based block ids)."""

from __future__ import annotations

import os

import numpy as np

from apportion._atomic import atomic_output
from apportion.errors import InputError


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
    the file and line: a non-integer token, a line with no id or several, a negative id, a wrong line count.
    """
    from apportion.graph.io._text import tokenize

    path = str(path)
    if os.path.isdir(path):
        raise InputError("is a directory, not a partition file", path=path)
    body = tokenize(path, comments=b"", keep_blank=True, what="an integer block id")
    counts = body.counts()
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
    if n is not None and values.shape[0] != n:
        raise InputError(f"partition has {values.shape[0]:,} lines but the graph has {n:,} vertices", path=path)
    return values
