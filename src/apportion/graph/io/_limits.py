"""Size limits: a count read from a file or asked of a generator must fit the arrays that would hold it.

A size line of 10^12 rows or an edge-list id of 10^12 would make NumPy try to allocate terabytes and fail with
`MemoryError` (or `OverflowError` past int64). These checks turn such sizes into an `InputError` up front,
saying how much memory the graph would need against what this machine has. The estimate is a lower bound
(the CSR arrays alone: 8 bytes per vertex offset, 4 or 8 per neighbour entry), so nothing that could fit is
refused; a size that passes can still run out of memory in a later step, which is then the machine's limit,
not a malformed input.
"""

from __future__ import annotations

import os

from apportion.errors import InputError

INT64_MAX = (1 << 63) - 1
INT32_MAX = (1 << 31) - 1


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine (None when the system does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def format_bytes(count: float) -> str:
    """'8.0 TB'-style size, decimal units up to exabytes."""
    for unit in ("bytes", "kB", "MB", "GB", "TB", "PB"):
        if count < 1000 or unit == "PB":
            return f"{count:,.0f} {unit}" if unit == "bytes" else f"{count:,.1f} {unit}"
        count /= 1000
    return f"{count:,.1f} PB"


def graph_bytes(n: int, entries: int = 0) -> int:
    """Lower bound of the memory a graph with n vertices and `entries` neighbour entries (2m) needs: the CSR
    offsets (int64) and neighbour ids (int32 up to 2^31 − 1 vertices, else int64)."""
    return 8 * (n + 1) + entries * (4 if n <= INT32_MAX else 8)


def check_memory(needed: int, what: str, *, path: str | None = None, line: int | None = None) -> None:
    """InputError when `needed` bytes exceed this machine's physical memory; `what` names what is too large
    ('the size line declares 10 vertices')."""
    available = physical_memory()
    if available is not None and needed > available:
        raise InputError(f"{what}: too large, would need at least {format_bytes(needed)} of memory "
                         f"(this machine has {format_bytes(available)})", path=path, line=line)


def check_vertex_count(n: int, *, path: str | None = None, line: int | None = None, what: str = "",
                       entries: int = 0) -> None:
    """InputError unless a graph of n vertices (and `entries` neighbour entries) can be held: n ≤ 2^63 − 2
    (int64 offsets and ids) and its arrays fit in memory. `what` starts the message ('the size line declares')."""
    subject = f"{what} {n:,} vertices" if what else f"a graph of {n:,} vertices"
    if n > INT64_MAX - 1:
        raise InputError(f"{subject}: more than int64 vertex ids can number", path=path, line=line)
    check_memory(graph_bytes(n, entries), subject, path=path, line=line)
