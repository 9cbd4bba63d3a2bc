"""One gate for the library's graph arguments (`as_graph`): apportion Graphs pass, NetworkX graphs and SciPy
sparse matrices are converted, anything else is an InputError naming its type; the conversions never double
reciprocal weights and explain what to do with non-integer weights."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from apportion.apps.mst import mst
from apportion.errors import InputError
from apportion.graph.csr import Graph, as_graph
from apportion.graph.metrics import edge_partition_metrics, vertex_partition_metrics
from apportion.partitioning.edge.api import partition_edges


def _same(a: Graph, b: Graph) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.edges()[:2], b.edges()[:2])) and \
        np.array_equal(a.edge_weight_array(), b.edge_weight_array())


def test_a_graph_passes_unchanged():
    graph = Graph.from_edges([0, 1], [1, 2])
    assert as_graph(graph) is graph


@pytest.mark.parametrize("obj,kind", [([[0, 1], [1, 0]], "got list"), ("karate", "got str"), (None, "NoneType"),
                                      (np.eye(3), "numpy.ndarray (a dense adjacency matrix: wrap it")])
def test_other_objects_are_refused_naming_their_type(obj, kind):
    with pytest.raises(InputError, match="expected an apportion Graph, a NetworkX graph or a SciPy sparse"):
        as_graph(obj)
    with pytest.raises(InputError) as info:
        as_graph(obj)
    assert kind in str(info.value)


@pytest.mark.parametrize("entry", ["edge_partition", "mst", "vertex_metrics", "edge_metrics"])
@pytest.mark.parametrize("source", ["networkx", "scipy"])
def test_library_functions_take_networkx_and_scipy_graphs(entry, source):
    """Each gives the same result as on the converted Graph (it raised AttributeError: no attribute 'n')."""
    nx_graph = nx.karate_club_graph()
    obj = nx_graph if source == "networkx" else nx.to_scipy_sparse_array(nx_graph, weight=None)
    graph = Graph.from_networkx(nx_graph) if source == "networkx" else Graph.from_scipy(obj)
    calls = {
        "edge_partition": lambda g: partition_edges(g, 3, seed=2).assignment.tolist(),
        "mst": lambda g: mst(g).to_dict()["total_weight"],
        "vertex_metrics": lambda g: vertex_partition_metrics(g, np.arange(34) % 2).cut,
        "edge_metrics": lambda g: edge_partition_metrics(g, np.arange(78) % 3).vertex_copies,
    }
    assert calls[entry](obj) == calls[entry](graph)


def test_library_functions_refuse_other_objects_with_input_error():
    for call in (lambda: partition_edges([1, 2], 2), lambda: mst("g"), lambda: vertex_partition_metrics({}, [0]),
                 lambda: edge_partition_metrics(3, [0])):
        with pytest.raises(InputError, match="expected an apportion Graph"):
            call()


# ---------------------------------------------------------------------------------------------- conversions
def test_digraph_reciprocal_arcs_keep_the_larger_weight_never_the_sum():
    d = nx.DiGraph()
    d.add_edge(0, 1, weight=3)
    d.add_edge(1, 0, weight=5)
    d.add_edge(1, 2, weight=2)
    d.add_edge(2, 2, weight=9)            # self-loop: dropped, like every reader
    graph = Graph.from_networkx(d)
    u, v, w = graph.edges()
    assert (u.tolist(), v.tolist(), w.tolist()) == ([0, 1], [1, 2], [5, 2])


def test_multidigraph_adds_parallel_arcs_then_takes_the_larger_direction():
    m = nx.MultiDiGraph()
    m.add_edge(0, 1, weight=2)
    m.add_edge(0, 1, weight=3)            # 0→1 weighs 5 in all
    m.add_edge(1, 0, weight=4)
    assert Graph.from_networkx(m).edges()[2].tolist() == [5]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.data())
def test_a_digraph_made_from_an_undirected_graph_converts_to_the_same_graph(n, data):
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(1, 9)),
                               max_size=30))
    undirected = nx.Graph()
    undirected.add_nodes_from(range(n))
    for a, b, w in pairs:
        if a != b:
            undirected.add_edge(a, b, weight=w)
    if undirected.number_of_edges() == 0:
        return
    assert _same(Graph.from_networkx(undirected.to_directed()), Graph.from_networkx(undirected))
    assert _same(Graph.from_scipy(nx.to_scipy_sparse_array(undirected)), Graph.from_networkx(undirected))


def test_float_matrix_says_how_to_proceed():
    a = sp.csr_array(np.array([[0, 0.5, 0], [0.5, 0, 2.0], [0, 2.0, 0]]))
    with pytest.raises(InputError) as info:
        Graph.from_scipy(a)
    message = str(info.value)
    assert "non-integer values (2 of 4, the first 0.5)" in message
    assert "weighted=False" in message and ".rint()" in message
    # both ways it suggests work
    assert Graph.from_scipy(a, weighted=False).m == 2
    assert Graph.from_scipy((a * 100).rint()).edges()[2].tolist() == [50, 200]


def test_float_networkx_weights_say_how_to_proceed():
    g = nx.Graph()
    g.add_edge(0, 1, weight=0.25)
    with pytest.raises(InputError, match="edge attribute 'weight' has non-integer values.*weight=None"):
        Graph.from_networkx(g)
    assert Graph.from_networkx(g, weight=None).m == 1
    g[0][1]["weight"] = 2.0               # integral floats are integers
    assert Graph.from_networkx(g).edges()[2].tolist() == [2]
