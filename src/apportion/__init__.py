"""apportion: divide work among heterogeneous processors so that they finish together and communicate little.

The top level re-exports the functions users call; each is imported on first use so `import apportion` stays
fast (Numba kernels compile only when a subsystem is used).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

# Numba's OpenMP threading layer spins while idle by default, which steals cores from the other devices apportion
# runs in threads beside it (and from other processes). Passive waiting costs little at apportion's region sizes.
# Must be set before the OpenMP runtime starts; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"

# public name -> (module, attribute). Partition functions are verb first: partition (the vertices of a graph),
# partition_edges, partition_grid.
_EXPORTS: dict[str, tuple[str, str]] = {
    "Graph": ("apportion.graph.csr", "Graph"),
    "InputError": ("apportion.errors", "InputError"),
    "read_graph": ("apportion.graph.io", "read_graph"),
    "write_graph": ("apportion.graph.io", "write_graph"),
    "generate": ("apportion.graph.generate", "generate"),
    "metrics": ("apportion.graph.metrics", None),
    "datasets": ("apportion.datasets", None),  # the small real graphs shipped with apportion
    # vertex partitioning (seed 000 ch. 4-5) and MST
    "partition": ("apportion.partitioning.vertex.multilevel", "partition"),
    "Partition": ("apportion.partitioning.vertex.result", "Partition"),
    "mst": ("apportion.apps.mst", "mst"),
    # edge partitioning (seed 001)
    "partition_edges": ("apportion.partitioning.edge.api", "partition_edges"),
    "edge_partition": ("apportion.partitioning.edge.api", "partition_edges"),  # its earlier name
    "EdgePartition": ("apportion.partitioning.edge.result", "EdgePartition"),
    # scheduling (seed 000 ch. 3)
    "run_divisible": ("apportion.schedule.api", "run_divisible"),
    # grid partitioning (seed 002)
    "partition_grid": ("apportion.partitioning.grid.api", "partition_grid"),
    # asynchronous multi-device graph runtime (seed 003)
    "place": ("apportion.runtime.placement", "place"),
    "Placement": ("apportion.runtime.placement", "Placement"),
    "bfs": ("apportion.apps.bfs", "bfs"),
    "sssp": ("apportion.apps.sssp", "sssp"),
    "pagerank": ("apportion.apps.pagerank", "pagerank"),
    "connected_components": ("apportion.apps.cc", "connected_components"),
    "pbf": ("apportion.apps.pbf_runtime", "pbf"),
    # sampling-based work partitioning of split algorithms (seed 004)
    "find_threshold": ("apportion.apps.threshold", "find_threshold"),
    "run_split": ("apportion.apps.threshold", "run_split"),
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    try:
        module_name, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'apportion' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
