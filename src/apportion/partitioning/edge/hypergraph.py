"""Hypergraph edge partitioning with Mt-KaHyPar — the quality reference (seed 001 §3.3.1).

Each graph edge (a task) is a hypergraph vertex; each graph vertex (a data object) is a net spanning its
incident edges. Under the connectivity objective (km1 = Σ_nets (λ − 1)) a hypergraph partition's cost is
exactly the vertex copies of the edge partition it induces. Needs the `mtkahypar` package (the `bench` extra).
"""

from __future__ import annotations

import os

import numpy as np

from apportion._registry import Registry
from apportion.errors import UnavailableError
from apportion.partitioning.edge.incidence import edge_incidence

_INITIALIZER: dict = {}
PRESETS = Registry("Mt-KaHyPar preset",
                   {name: name.upper() for name in ("default", "quality", "deterministic", "large_k")})


def _initializer(threads: int):
    try:
        import mtkahypar
    except ImportError as error:
        raise UnavailableError("method 'hypergraph' needs the mtkahypar package (install apportion[bench])") from error
    if "value" not in _INITIALIZER:   # Mt-KaHyPar is initialised once per process
        _INITIALIZER["value"] = (mtkahypar.initialize(threads, False), threads)
    return mtkahypar, _INITIALIZER["value"][0]


def hypergraph_partition(graph, k: int, imbalance: float, seed: int, *, threads: int | None = None,
                         preset: str = "default") -> tuple[np.ndarray, dict]:
    """Mt-KaHyPar, km1 objective, epsilon = max(imbalance, 0.001); returns (assignment, details)."""
    preset_type = PRESETS[preset]  # before Mt-KaHyPar is imported: an unknown name is an InputError
    mtkahypar, initializer = _initializer(threads or max(1, os.cpu_count() or 1))
    context = initializer.context_from_preset(getattr(mtkahypar.PresetType, preset_type))
    epsilon = max(float(imbalance), 0.001)
    context.set_partitioning_parameters(int(k), epsilon, mtkahypar.Objective.KM1)
    context.logging = False
    mtkahypar.set_seed(int(seed) % (2**31))  # its seed is a C int: 0 .. 2^32 - 1 folded into 0 .. 2^31 - 1
    inc = edge_incidence(graph)
    # nets: the incident edge ids of every vertex of degree ≥ 2 (a degree-1 net can never be cut)
    degrees = graph.degrees()
    nets = [inc.edge_of_entry[graph.indptr[x]:graph.indptr[x + 1]] for x in np.flatnonzero(degrees >= 2)]
    hypergraph = initializer.create_hypergraph(context, graph.m, len(nets), nets)
    partitioned = hypergraph.partition(context)
    assignment = np.asarray(partitioned.get_partition(), dtype=np.int32)
    return assignment, {"km1": int(partitioned.km1()), "epsilon": epsilon, "preset": preset,
                        "threads": _INITIALIZER["value"][1]}
