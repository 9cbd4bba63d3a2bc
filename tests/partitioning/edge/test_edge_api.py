"""partition_edges's input validation and the hypergraph method's missing-package error."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from apportion.errors import InputError, UnavailableError
from apportion.graph.csr import Graph
from apportion.partitioning.edge.api import partition_edges

G = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0])


@pytest.mark.parametrize("kwargs", [
    dict(k=0), dict(k=5), dict(k=2.5), dict(k=2, imbalance=-0.1), dict(k=2, imbalance=float("nan")),
    dict(k=2, method="metis"), dict(k=2, method="hdrf", dominant_weight=3), dict(k=2, method="spac", lam=2),
    dict(k=2, method="spac", vertex_partitioner="kahip"), dict(k=2, method="spac", dominant_weight=0),
    dict(k=2, method="hdrf", lam=-1.0), dict(k=2, seed=1.5),
    dict(k=2, method="spac", vertex_imbalance="0.1"), dict(k=2, method="wvp-random", vertex_imbalance=float("inf")),
    dict(k=2, method="spac", dominant_weight=10**30), dict(k=2, method="spac", refine_passes=10**30),
    dict(k=2, method="hdrf", lam=True),
])
def test_bad_arguments(kwargs):
    with pytest.raises(InputError):
        partition_edges(G, **kwargs)


@pytest.mark.parametrize("lam", [np.float32(1.0), np.int64(2), 0])
def test_numpy_numbers_are_options(lam):
    assert partition_edges(G, 2, method="hdrf", lam=lam).k == 2


def test_not_a_graph():
    with pytest.raises(InputError):
        partition_edges(np.zeros((3, 3)), 2)


def test_hypergraph_without_mtkahypar(monkeypatch):
    from apportion.partitioning.edge import hypergraph

    monkeypatch.setitem(sys.modules, "mtkahypar", None)
    monkeypatch.setattr(hypergraph, "_INITIALIZER", {})
    with pytest.raises(UnavailableError):
        partition_edges(G, 2, method="hypergraph")


def test_empty_graph_single_part():
    empty = Graph.from_edges([], [], n=3)
    result = partition_edges(empty, 1, method="hdrf")
    assert result.m == 0 and result.vertex_copies == 0
