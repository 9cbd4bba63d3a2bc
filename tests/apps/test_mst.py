"""Borůvka minimum spanning forest: checked against SciPy's MST, SciPy's connected components and a Kruskal
reference with the same (weight, edge id) tie-break."""

from __future__ import annotations

import json

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from apportion import Graph
from apportion.apps.mst import SpanningForest, mst
from apportion.errors import InputError

TWO_THREADS = min(2, numba.config.NUMBA_NUM_THREADS)


# ---------------------------------------------------------------------------------------------- references
def scipy_total(graph: Graph) -> int:
    # SciPy drops explicit zeros only; our weights are positive, so its forest weight is the reference.
    return int(round(minimum_spanning_tree(graph.to_scipy().astype(np.float64)).sum()))


def scipy_component_count(graph: Graph) -> int:
    return int(connected_components(graph.to_scipy(), directed=False)[0])


def kruskal_reference(graph: Graph) -> set[tuple[int, int]]:
    """The unique forest under the (weight, canonical edge id) order, by plain Kruskal with union-find."""
    u, v, w = graph.edges()
    w = np.ones(u.shape[0], dtype=np.int64) if w is None else w
    order = np.lexsort((np.arange(u.shape[0]), w))  # by weight, then canonical id
    parent = list(range(graph.n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    chosen = set()
    for e in order.tolist():
        a, b = find(int(u[e])), find(int(v[e]))
        if a != b:
            parent[a] = b
            chosen.add((int(u[e]), int(v[e])))
    return chosen


def check_forest(graph: Graph, forest: SpanningForest) -> None:
    """Every invariant of a minimum spanning forest, recounted independently."""
    components = scipy_component_count(graph)
    assert forest.n == graph.n
    assert forest.components == components
    assert forest.edge_count == graph.n - components
    assert forest.u.shape == forest.v.shape == forest.weights.shape
    assert np.all(forest.u < forest.v)
    # canonical order, no duplicates
    keys = forest.u * max(graph.n, 1) + forest.v
    assert np.all(np.diff(keys) > 0)
    # every forest edge is a graph edge with the reported weight
    adjacency = graph.to_scipy().tocsr()
    if forest.edge_count:
        assert np.array_equal(np.asarray(adjacency[forest.u, forest.v]).ravel(), forest.weights)
    assert forest.total_weight == int(forest.weights.sum())
    # n - c edges that connect each of the c components: spanning and acyclic
    import scipy.sparse as sp

    tree = sp.coo_array((np.ones(forest.edge_count), (forest.u, forest.v)), shape=(graph.n, graph.n))
    assert connected_components(tree, directed=False)[0] == components
    assert forest.total_weight == scipy_total(graph)


def random_graph(seed: int, n: int, m: int, max_weight: int | None) -> Graph:
    rng = np.random.default_rng(seed)
    s = rng.integers(0, max(n, 1), m)
    t = rng.integers(0, max(n, 1), m)
    w = None if max_weight is None else rng.integers(1, max_weight + 1, m)
    return Graph.from_edges(s, t, w, n=n)


# ---------------------------------------------------------------------------------------------- properties
@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(0, 70), density=st.floats(0, 4),
       max_weight=st.sampled_from([None, 1, 2, 5, 1000, 2**40]))
def test_random_graphs_match_scipy_and_kruskal(seed, n, density, max_weight):
    graph = random_graph(seed, n, int(density * n), max_weight)
    forest = mst(graph)
    check_forest(graph, forest)
    assert set(zip(forest.u.tolist(), forest.v.tolist())) == kruskal_reference(graph)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), pieces=st.integers(2, 6), size=st.integers(1, 30))
def test_disconnected_graphs_give_one_tree_per_component(seed, pieces, size):
    rng = np.random.default_rng(seed)
    sources, targets, weights = [], [], []
    for piece in range(pieces):  # dense random blocks on disjoint vertex ranges
        base = piece * size
        count = 3 * size
        sources.append(base + rng.integers(0, size, count))
        targets.append(base + rng.integers(0, size, count))
        weights.append(rng.integers(1, 10, count))
    graph = Graph.from_edges(np.concatenate(sources), np.concatenate(targets), np.concatenate(weights),
                             n=pieces * size + 3)  # plus three isolated vertices
    forest = mst(graph)
    check_forest(graph, forest)
    assert forest.components >= pieces + 3


@pytest.mark.parametrize("weighted", [False, True])
def test_all_ties_give_spanning_forest(weighted):
    # a complete graph and a grid with every weight equal: everything is a tie
    n = 40
    s, t = np.triu_indices(n, 1)
    for graph in (Graph.from_edges(s, t, np.full(s.shape[0], 7) if weighted else None, n=n),
                  grid_graph(25, 30, weighted)):
        forest = mst(graph)
        check_forest(graph, forest)
        assert forest.components == 1
        assert forest.total_weight == (graph.n - 1) * (7 if weighted else 1)
        assert set(zip(forest.u.tolist(), forest.v.tolist())) == kruskal_reference(graph)


def grid_graph(rows: int, cols: int, weighted: bool) -> Graph:
    ids = np.arange(rows * cols).reshape(rows, cols)
    s = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    t = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return Graph.from_edges(s, t, np.full(s.shape[0], 7) if weighted else None, n=rows * cols)


def test_long_chain_of_hooks():
    # a path whose weights rise along it: every vertex hooks to its left neighbour (one deep tree in round 1)
    n = 5000
    s = np.arange(n - 1)
    graph = Graph.from_edges(s, s + 1, np.arange(1, n), n=n)
    forest = mst(graph)
    check_forest(graph, forest)
    assert forest.rounds == 1


def test_star_and_tiny_graphs():
    star = Graph.from_edges(np.zeros(99, dtype=np.int64), np.arange(1, 100), np.arange(99, 0, -1), n=100)
    check_forest(star, mst(star))
    for graph in (Graph.from_edges([], [], n=0), Graph.from_edges([], [], n=5), Graph.from_edges([0], [1], n=2)):
        forest = mst(graph)
        check_forest(graph, forest)
        assert forest.components == graph.n - graph.m


@pytest.mark.parametrize("seed", range(6))
def test_parallel_rounds_path(monkeypatch, seed):
    # force every round through the parallel edge-list kernels (small graphs normally finish serially)
    import apportion.apps.mst as mst_module

    monkeypatch.setattr(mst_module, "SERIAL_FINISH_EDGES", 1)
    monkeypatch.setattr(mst_module, "PARALLEL_MIN_ENTRIES", 1)
    graph = random_graph(seed, [3, 40, 400, 1000, 2000, 5000][seed], 1500, [None, 3, 1000][seed % 3])
    forest = mst(graph, threads=TWO_THREADS)
    check_forest(graph, forest)
    assert set(zip(forest.u.tolist(), forest.v.tolist())) == kruskal_reference(graph)


@pytest.mark.parametrize("kind", ["rmat", "ba", "delaunay"])
def test_generated_graphs_parallel_and_serial(monkeypatch, kind):
    # power-law graphs keep many parallel edges between few components for several rounds (the in-place
    # relabelling path of the contraction); isolated vertices drop out of the numbering
    import apportion
    import apportion.apps.mst as mst_module

    base = apportion.generate(kind, 2**11, seed=4)
    u, v, _ = base.edges()
    graph = Graph.from_edges(u, v, np.random.default_rng(4).integers(1, 50, u.shape[0]), n=base.n)
    serial = mst(graph, threads=1)
    monkeypatch.setattr(mst_module, "SERIAL_FINISH_EDGES", 1)
    monkeypatch.setattr(mst_module, "PARALLEL_MIN_ENTRIES", 1)
    parallel = mst(graph, threads=TWO_THREADS)
    for forest in (serial, parallel):
        check_forest(graph, forest)
        assert set(zip(forest.u.tolist(), forest.v.tolist())) == kruskal_reference(graph)


def test_same_result_for_any_thread_count():
    graph = random_graph(3, 3000, 9000, 4)
    one = mst(graph, threads=1)
    many = mst(graph, threads=numba.config.NUMBA_NUM_THREADS)
    for field in ("u", "v", "weights"):
        assert np.array_equal(getattr(one, field), getattr(many, field))
    assert one.total_weight == many.total_weight
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS  # restored after the call


def test_to_dict_keys_and_values():
    graph = random_graph(5, 200, 500, 9)
    forest = mst(graph)
    summary = forest.to_dict()
    assert set(summary) >= {"n", "edges", "total_weight", "components", "rounds", "time_s"}
    assert summary["edges"] == forest.edge_count == graph.n - summary["components"]
    assert summary["total_weight"] == scipy_total(graph)
    json.dumps(summary)


def test_bad_input_raises_input_error():
    with pytest.raises(InputError):
        mst("not a graph")
    graph = random_graph(1, 10, 20, None)
    for threads in (0, -1, 1.5, 10**6):
        with pytest.raises(InputError):
            mst(graph, threads=threads)


# ---------------------------------------------------------------------------------------------- shared graphs
@pytest.mark.parametrize("name", ["4elt", "PGPgiantcompo", "polblogs", "test_mgraph", "jazz"])
def test_shipped_graphs(name):
    from apportion import datasets

    graph = datasets.load(name)
    check_forest(graph, mst(graph))
    rng = np.random.default_rng(11)
    u, v, _ = graph.edges()
    reweighted = Graph.from_edges(u, v, rng.integers(1, 100, u.shape[0]), n=graph.n)
    forest = mst(reweighted, threads=TWO_THREADS)
    check_forest(reweighted, forest)
    assert set(zip(forest.u.tolist(), forest.v.tolist())) == kruskal_reference(reweighted)


# ---------------------------------------------------------------------------------------------- command line
def write_edge_list(path, graph: Graph) -> None:
    u, v, w = graph.edges()
    w = np.ones_like(u) if w is None else w
    path.write_text("".join(f"{a} {b} {c}\n" for a, b, c in zip(u.tolist(), v.tolist(), w.tolist())))


def test_cli_json_and_edge_output(cli, tmp_path):
    graph = random_graph(7, 300, 900, 50)
    source = tmp_path / "g.txt"
    write_edge_list(source, graph)
    from apportion.graph.io import read_graph

    loaded = read_graph(source)
    out = tmp_path / "forest.txt"
    result = cli("mst", source, "-o", out, "--threads", "1", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert set(summary) >= {"total_weight", "edges", "components", "time_s", "rounds", "n"}
    assert summary["total_weight"] == scipy_total(loaded)
    assert summary["components"] == scipy_component_count(loaded)
    rows = np.loadtxt(out, dtype=np.int64, ndmin=2)
    assert rows.shape == (summary["edges"], 3)
    assert int(rows[:, 2].sum()) == summary["total_weight"]
    written = Graph.from_edges(rows[:, 0], rows[:, 1], rows[:, 2], n=loaded.n)
    assert scipy_component_count(written) == summary["components"]


def test_cli_table(cli):
    result = cli("mst", "dataset:4elt")
    assert result.returncode == 0, result.stderr
    for word in ("total weight", "edges", "components", "time"):
        assert word in result.stdout


def test_cli_bad_input_exit_2_without_output(cli, tmp_path):
    out = tmp_path / "forest.txt"
    missing = cli("mst", tmp_path / "missing.graph", "-o", out)
    assert missing.returncode == 2
    assert "Traceback" not in missing.stderr and len(missing.stderr.strip().splitlines()) == 1
    bad = tmp_path / "bad.graph"
    bad.write_text("3 2\n2 x\n1\n\n")
    malformed = cli("mst", bad, "-o", out)
    assert malformed.returncode == 2
    assert "Traceback" not in malformed.stderr
    good = tmp_path / "g.txt"
    good.write_text("0 1 3\n1 2 4\n")
    threads = cli("mst", good, "--threads", "0", "-o", out)
    assert threads.returncode == 2
    assert "Traceback" not in threads.stderr
    assert not out.exists()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_segmented_best_in_row_matches_brute_force_in_both_modes(seed):
    # the shared segmented arg-best: Borůvka's (min weight, edge id) and matching's (max weight, seeded hash)
    # with the per-entry skip filters, against a plain Python min over the eligible entries
    from apportion.graph._segmented_kernels import TIE_EDGE_ID, best_in_row, edge_hash

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    graph = random_graph(seed, n, int(rng.integers(0, 3 * n)), 4)
    label = rng.integers(0, 3, n).astype(np.int64)
    vweight = rng.integers(0, 5, (n, 2)).astype(np.int64)  # two constraints
    limit = np.array([2, 3], dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    no_weights = np.empty((0, 0), dtype=np.int64)
    ew = graph.edge_weight_array()
    for u in range(n):
        lo, hi = int(graph.indptr[u]), int(graph.indptr[u + 1])
        entries = list(range(lo, hi))
        canonical = {p: min(u, int(graph.indices[p])) * n + max(u, int(graph.indices[p])) for p in entries}
        expect = min(entries, key=lambda p: (ew[p], canonical[p]), default=-1)
        assert best_in_row(u, lo, hi, graph.indices, ew, 1, TIE_EDGE_ID, n, none, 0, no_weights, none) == expect
        eligible = [p for p in entries
                    if label[graph.indices[p]] != label[u] and (vweight[graph.indices[p]] <= limit).all()]
        hashed = {p: int(edge_hash(u, int(graph.indices[p]), 7)) for p in entries}
        expect = min(eligible, key=lambda p: (-ew[p], hashed[p]), default=-1)
        assert best_in_row(u, lo, hi, graph.indices, ew, -1, 7, n, label, label[u], vweight, limit) == expect
        expect = min(entries, key=lambda p: canonical[p], default=-1)  # empty primary: every key is 1
        assert best_in_row(u, lo, hi, graph.indices, none, 1, TIE_EDGE_ID, n, none, 0, no_weights, none) == expect
        for p in entries:
            assert hashed[p] >= 0 and hashed[p] == int(edge_hash(int(graph.indices[p]), u, 7))
