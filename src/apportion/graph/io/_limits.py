"""Size limits: a count read from a file or asked of a generator must fit the arrays that would hold it.

A size line of 10^12 rows or an edge-list id of 10^12 would make NumPy try to allocate terabytes and fail with
`MemoryError` (or `OverflowError` past int64). These checks turn such sizes into an `InputError` up front,
saying how much memory the graph would need against what this process can still get (the memory the machine
has free, a container's limit, `ulimit -v`). The estimate is a lower bound (the CSR arrays and one value per
vertex: 16 bytes per vertex, 4 or 8 per neighbour entry), so nothing that could be used is refused; a size
that passes can still run out of memory in a later step, which is then the machine's limit, not a malformed
input.
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


def _meminfo_available() -> int | None:
    """Linux's estimate of the memory a new allocation can still get without swapping (MemAvailable)."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_room() -> int | None:
    """What this process's cgroup (v2) still allows it: memory.max − memory.current (None without a limit)."""
    try:
        with open("/proc/self/cgroup") as groups:
            entry = next((line.strip().split(":", 2)[2] for line in groups if line.startswith("0::")), None)
        if entry is None:
            return None
        folder = os.path.join("/sys/fs/cgroup", entry.lstrip("/"))
        with open(os.path.join(folder, "memory.max")) as limit:
            text = limit.read().strip()
        if text == "max":
            return None
        with open(os.path.join(folder, "memory.current")) as current:
            return max(0, int(text) - int(current.read().strip()))
    except (OSError, ValueError, StopIteration, IndexError):
        return None


def _address_space_room() -> int | None:
    """What RLIMIT_AS (`ulimit -v`) still allows this process (None without a limit)."""
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/statm") as statm:
            used = int(statm.read().split()[0]) * int(os.sysconf("SC_PAGE_SIZE"))
        return max(0, soft - used)
    except (ImportError, OSError, ValueError, AttributeError, IndexError):
        return None


def available_memory() -> tuple[int, str] | None:
    """(bytes a new graph can still take, what limits it): the least of the memory the system has free
    (MemAvailable, else the physical memory), the cgroup's room and `ulimit -v`'s room; None when nothing says."""
    limits = []
    free = _meminfo_available()
    if free is not None:
        limits.append((free, "free on this machine"))
    else:
        physical = physical_memory()
        if physical is not None:
            limits.append((physical, "this machine has"))
    room = _cgroup_room()
    if room is not None:
        limits.append((room, "left under this process's memory limit"))
    room = _address_space_room()
    if room is not None:
        limits.append((room, "left under this process's address-space limit (ulimit -v)"))
    return min(limits) if limits else None


def format_bytes(count: float) -> str:
    """'8.0 TB'-style size, decimal units up to exabytes."""
    for unit in ("bytes", "kB", "MB", "GB", "TB", "PB"):
        if count < 1000 or unit == "PB":
            return f"{count:,.0f} {unit}" if unit == "bytes" else f"{count:,.1f} {unit}"
        count /= 1000
    return f"{count:,.1f} PB"


def graph_bytes(n: int, entries: int = 0) -> int:
    """Lower bound of the memory a graph with n vertices and `entries` neighbour entries (2m) needs to be read
    and used: the CSR offsets (int64), the neighbour ids (int32 up to 2^31 − 1 vertices, else int64) and one
    8-byte value per vertex, which every use of a graph makes (its degrees, a block or a level per vertex: an
    edge list naming vertex 3·10^9 passed with its offsets alone at 24.0 of 24.8 GB free, and `info` was then
    killed for memory)."""
    return 8 * (n + 1) + 8 * n + entries * (4 if n <= INT32_MAX else 8)


def check_memory(needed: int, what: str, *, path: str | None = None, line: int | None = None) -> None:
    """InputError when `needed` bytes exceed the memory this process can still get (`available_memory`: what the
    machine has free, a cgroup's or `ulimit -v`'s room); `what` names what is too large ('the size line declares
    10 vertices')."""
    available = available_memory()
    if available is not None and needed > available[0]:
        raise InputError(f"{what}: too large, would need at least {format_bytes(needed)} of memory "
                         f"({format_bytes(available[0])} {available[1]})", path=path, line=line)


def check_vertex_count(n: int, *, path: str | None = None, line: int | None = None, what: str = "",
                       entries: int = 0) -> None:
    """InputError unless a graph of n vertices (and `entries` neighbour entries) can be held: n ≤ 2^63 − 2
    (int64 offsets and ids) and its arrays fit in memory. `what` starts the message ('the size line declares')."""
    subject = f"{what} {n:,} vertices" if what else f"a graph of {n:,} vertices"
    if n > INT64_MAX - 1:
        raise InputError(f"{subject}: more than int64 vertex ids can number", path=path, line=line)
    check_memory(graph_bytes(n, entries), subject, path=path, line=line)
