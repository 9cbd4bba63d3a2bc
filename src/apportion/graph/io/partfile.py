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
    """Read a `.part` file; checks the line count against n (when given) and that ids are non-negative ints."""
    path = str(path)
    with open(path, "rb") as handle:
        data = handle.read()
    lines = data.split(b"\n")
    if lines and lines[-1].strip() == b"":
        lines.pop()
    values = np.empty(len(lines), dtype=np.int64)
    for number, raw in enumerate(lines, start=1):
        token = raw.strip()
        try:
            value = int(token)
        except ValueError:
            shown = token.decode("utf-8", "replace")[:40]
            raise InputError(f"expected one block id per line, got {shown!r}", path=path, line=number) from None
        if value < 0:
            raise InputError(f"negative block id {value}", path=path, line=number)
        values[number - 1] = value
    if n is not None and values.shape[0] != n:
        raise InputError(f"partition has {values.shape[0]} lines but the graph has {n} vertices", path=path)
    return values
