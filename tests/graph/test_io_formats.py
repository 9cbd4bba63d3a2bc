"""Format details of each reader: every METIS fmt code, comments, Matrix Market variants, edge-list options."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from apportion import datasets
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.io import format_of, read_graph, write_graph
from apportion.graph.io._common import GraphFileWarning
from apportion.graph.io.partfile import read_partition, write_partition

# a triangle 1-2-3 plus a pendant 4 on 3 and an isolated vertex 5 (1-based, as a METIS file names them)
EDGES = [(1, 2, 5), (1, 3, 2), (2, 3, 7), (3, 4, 1)]
N = 5
VW = [[3, 1], [0, 2], [4, 4], [1, 0], [2, 9]]
SIZES = [7, 1, 2, 3, 4]


def _metis_text(fmt: str, ncon: int) -> str:
    has_size, has_vw, has_ew = (int(c) for c in fmt.rjust(3, "0"))
    adjacency = {v: [] for v in range(1, N + 1)}
    for u, v, w in EDGES:
        adjacency[u].append((v, w))
        adjacency[v].append((u, w))
    header = f"{N} {len(EDGES)} {fmt}" + (f" {ncon}" if ncon > 1 else "")
    lines = ["% a comment before the header", header]
    for v in range(1, N + 1):
        tokens = []
        if has_size:
            tokens.append(SIZES[v - 1])
        if has_vw:
            tokens.extend(VW[v - 1][:ncon])
        for u, w in adjacency[v]:
            tokens.append(u)
            if has_ew:
                tokens.append(w)
        lines.append(" ".join(map(str, tokens)) + ("  \t" if v == 2 else ""))  # trailing blanks
        if v == 3:
            lines.append("% a comment between vertex lines")
    return "\n".join(lines) + "\n"


FMT_CASES = [(fmt, ncon) for fmt in ["0", "1", "10", "11", "100", "101", "110", "111", "011", "001"]
             for ncon in (1, 2) if ncon == 1 or fmt.rjust(3, "0")[1] == "1"]


@pytest.mark.parametrize(("fmt", "ncon"), FMT_CASES)
def test_metis_every_fmt_code(fmt, ncon, tmp_path):
    has_size, has_vw, has_ew = (int(c) for c in fmt.rjust(3, "0"))
    path = tmp_path / "g.graph"
    path.write_text(_metis_text(fmt, ncon))
    graph = read_graph(path)
    expected = Graph.from_edges([u - 1 for u, _, _ in EDGES], [v - 1 for _, v, _ in EDGES],
                                [w for _, _, w in EDGES] if has_ew else None, n=N)
    assert np.array_equal(graph.indptr, expected.indptr)
    assert np.array_equal(graph.indices, expected.indices)
    if has_ew:
        assert np.array_equal(graph.edge_weights, expected.edge_weights)
    else:
        assert graph.edge_weights is None
    if has_vw:
        want = np.array(VW)[:, :ncon]
        assert np.array_equal(graph.vertex_weight_matrix(), want)
        assert graph.ncon == ncon
    else:
        assert graph.vertex_weights is None
    assert graph.degrees()[4] == 0


def test_metis_self_loop_dropped_with_one_warning_or_strict_error(tmp_path):
    path = tmp_path / "loops.graph"
    # loops at vertices 1 and 3; the header counts them (entries 2m + loops = 6 → m = 2 without loops)
    path.write_text("3 2\n1 2\n1 3\n2 3\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = read_graph(path)
    assert len(caught) == 1 and issubclass(caught[0].category, GraphFileWarning)
    assert "2 self-loops" in str(caught[0].message) and "line 2" in str(caught[0].message)
    assert graph.m == 2
    with pytest.raises(InputError, match=r"loops.graph:2: self-loop at vertex 1"):
        read_graph(path, strict=True)


def test_metis_crlf_and_missing_final_newline(tmp_path):
    path = tmp_path / "crlf.graph"
    path.write_bytes(b"3 2\r\n2\r\n1 3\r\n2")
    graph = read_graph(path)
    assert graph.n == 3 and graph.m == 2


def test_metis_isolated_last_vertices(tmp_path):
    path = tmp_path / "iso.graph"
    path.write_text("4 1\n2\n1\n\n\n")
    graph = read_graph(path)
    assert graph.n == 4 and graph.m == 1
    assert list(graph.degrees()) == [1, 1, 0, 0]


def test_metis_reader_matches_networkx_adjlist(real_graph_file, tmp_path):
    """The METIS body is an adjacency list: NetworkX's read_adjlist over the body gives the same graph (two
    original files, and the 4elt mesh as apportion's writer writes it)."""
    mesh = tmp_path / "4elt.graph"
    write_graph(datasets.load("4elt"), mesh)
    for path in (real_graph_file("karate.graph"), real_graph_file("jazz.graph"), mesh):
        lines = path.read_text().splitlines()
        content = [line for line in lines if not line.lstrip().startswith("%")]
        body = content[1:1 + int(content[0].split()[0])]
        adj = tmp_path / "adj.txt"
        adj.write_text("\n".join(f"{i + 1} {line}" for i, line in enumerate(body)) + "\n")
        reference = nx.read_adjlist(adj, nodetype=int)
        graph = read_graph(path)
        assert graph.n == reference.number_of_nodes()
        assert graph.m == reference.number_of_edges()
        ours = {(int(u) + 1, int(v) + 1) for u, v in zip(*graph.edges()[:2])}
        theirs = {(min(u, v), max(u, v)) for u, v in reference.edges()}
        assert ours == theirs


# ---------------------------------------------------------------------------------------- Matrix Market
def _mtx(tmp_path, text, name="m.mtx"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_mtx_symmetric_pattern_matches_scipy(tmp_path):
    rng = np.random.default_rng(3)
    a = sp.random(30, 30, density=0.1, random_state=rng, format="coo")
    a = ((a + a.T) > 0).astype(np.int64)
    a.setdiag(0)
    a.eliminate_zeros()
    path = tmp_path / "s.mtx"
    scipy.io.mmwrite(str(path), sp.coo_matrix(a), field="pattern", symmetry="symmetric")
    graph = read_graph(path)
    reference = Graph.from_scipy(scipy.io.mmread(str(path)), weighted=False)
    assert np.array_equal(graph.indptr, reference.indptr)
    assert np.array_equal(graph.indices, reference.indices)


def test_mtx_general_is_symmetrised_with_max_weights(tmp_path):
    path = _mtx(tmp_path, "%%MatrixMarket matrix coordinate integer general\n% c\n3 3 3\n1 2 4\n2 1 6\n3 1 2\n")
    graph = read_graph(path)
    u, v, w = graph.edges()
    assert list(zip(u.tolist(), v.tolist(), w.tolist())) == [(0, 1, 6), (0, 2, 2)]


def test_mtx_real_values(tmp_path):
    integral = _mtx(tmp_path, "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 2.0\n3 2 3e0\n", "a.mtx")
    graph = read_graph(integral)
    assert graph.edge_weights is not None and sorted(graph.edges()[2].tolist()) == [2, 3]
    fractional = _mtx(tmp_path, "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.5\n3 2 -1\n",
                      "b.mtx")
    with pytest.warns(GraphFileWarning, match="pattern"):
        graph = read_graph(fractional)
    assert graph.edge_weights is None and graph.m == 2


def test_mtx_skew_symmetric_is_pattern(tmp_path):
    path = _mtx(tmp_path, "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 1 -2\n")
    graph = read_graph(path)
    assert graph.edge_weights is None and graph.m == 2


def test_mtx_bipartite_row_column_graph(tmp_path):
    path = _mtx(tmp_path, "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 1\n1 3\n2 2\n")
    with pytest.raises(InputError, match="not square"):
        read_graph(path)
    graph = read_graph(path, bipartite=True)
    assert graph.n == 5
    pairs = set(zip(*(x.tolist() for x in graph.edges()[:2])))
    assert pairs == {(0, 2), (0, 4), (1, 3)}


def test_mtx_diagonal_dropped_with_warning(tmp_path):
    path = _mtx(tmp_path, "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n1 1\n2 2\n2 1\n3 2\n")
    with pytest.warns(GraphFileWarning, match="2 self-loops"):
        graph = read_graph(path)
    assert graph.m == 2


# ---------------------------------------------------------------------------------------- edge lists
def test_edgelist_whitespace_comments_weights_and_base(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("# comment\n% another\n1\t2   3\n\n2 3 1\r\n3 1 4\n2 1 9\n")
    graph = read_graph(path, base=1)
    assert graph.n == 3
    u, v, w = graph.edges()
    assert list(zip(u.tolist(), v.tolist(), w.tolist())) == [(0, 1, 9), (0, 2, 4), (1, 2, 1)]
    unweighted = read_graph(path, base=1, weighted=False)
    assert unweighted.edge_weights is None
    zero_based = read_graph(path)
    assert zero_based.n == 4 and zero_based.degrees()[0] == 0


def test_edgelist_relabel_rules(tmp_path):
    path = tmp_path / "snap.txt"
    path.write_text("# Nodes: 3 Edges: 2\n10 20\n20 30\n")
    compacted = read_graph(path)
    assert compacted.n == 3 and compacted.m == 2
    kept = tmp_path / "plain.txt"
    kept.write_text("10 20\n20 30\n")
    assert read_graph(kept).n == 31
    assert read_graph(kept, relabel=True).n == 3
    declared = tmp_path / "declared.txt"
    declared.write_text("# Nodes: 6 Edges: 1\n0 1\n")
    assert read_graph(declared).n == 6


def test_edgelist_self_loop_reports_file_ids(tmp_path):
    path = tmp_path / "loop.txt"
    path.write_text("# Nodes: 2 Edges: 2\n100 200\n200 200\n")
    with pytest.raises(InputError, match=r"loop.txt:3: self-loop at vertex 200"):
        read_graph(path, strict=True)


def test_edgelist_matches_networkx(real_graph_file, tmp_path):
    """SNAP's wiki-Vote.txt (directed, tab-separated, `#` header, ids with gaps) and a plain 0-based edge list."""
    plain = tmp_path / "jazz.edgelist"
    u, v, _ = datasets.load("jazz").edges()
    plain.write_text("".join(f"{a}\t{b}\n" for a, b in zip(u.tolist(), v.tolist())))
    for path in (real_graph_file("wiki-Vote.txt"), plain):
        reference = nx.read_edgelist(path, nodetype=int)
        graph = read_graph(path)
        assert graph.n == reference.number_of_nodes()
        assert graph.m == reference.number_of_edges()
        order = sorted(reference.nodes)  # compaction keeps the order of the file's ids
        index = {v: i for i, v in enumerate(order)}
        theirs = {(min(index[a], index[b]), max(index[a], index[b])) for a, b in reference.edges()}
        assert set(zip(*(x.tolist() for x in graph.edges()[:2]))) == theirs


# ---------------------------------------------------------------------------------------- misc
def test_format_by_extension_and_override(tmp_path):
    assert format_of("a.graph") == "metis" and format_of("a.MTX") == "mtx" and format_of("x.edges") == "edgelist"
    assert format_of("a.npz") == "npz"
    with pytest.raises(InputError, match="extension"):
        format_of("a.unknown")
    path = tmp_path / "adj.dat"
    path.write_text("2 1\n2\n1\n")
    assert read_graph(path, format="metis").m == 1
    with pytest.raises(InputError, match="does not apply"):
        read_graph(path, format="metis", bipartite=True)


def test_partition_file_round_trip(tmp_path):
    values = np.random.default_rng(0).integers(0, 7, 1000)
    write_partition(tmp_path / "p.part", values)
    assert np.array_equal(read_partition(tmp_path / "p.part", n=1000), values)
    with pytest.raises(InputError, match="1,000 lines"):
        read_partition(tmp_path / "p.part", n=999)


def test_large_file_goes_through_several_chunks(tmp_path, monkeypatch):
    """Chunk boundaries (mid-line) must not change the result."""
    from apportion.graph.io import _text

    rng = np.random.default_rng(5)
    graph = Graph.from_edges(rng.integers(0, 3000, 20000), rng.integers(0, 3000, 20000),
                             rng.integers(1, 100, 20000), n=3000)
    for name in ("big.graph", "big.txt", "big.mtx"):
        write_graph(graph, tmp_path / name)
        whole = read_graph(tmp_path / name)
        monkeypatch.setattr(_text, "CHUNK_BYTES", 4099)
        chunked = read_graph(tmp_path / name)
        monkeypatch.setattr(_text, "CHUNK_BYTES", 1 << 25)
        for a, b in ((whole, chunked), (whole, graph)):
            assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            assert np.array_equal(a.edge_weights, b.edge_weights)


def _archive(path, **changes):
    arrays = {"format": np.array("apportion-graph"), "version": np.array(1), "indptr": np.array([0, 1, 2]),
              "indices": np.array([1, 0]), "name": np.array("x")}
    arrays.update(changes)
    np.savez(path, **{key: value for key, value in arrays.items() if value is not None})
    return path


@pytest.mark.parametrize("changes, message", [
    ({"version": np.array(2)}, "archive version 2 is not one this apportion reads"),
    ({"version": np.array("1")}, "archive version '1' is not one this apportion reads"),
    ({"version": np.array([1, 1])}, "archive version [1, 1] is not one"),
    ({"vertex_weights": np.zeros((2, 0), dtype=np.int64)}, "'vertex_weights' has no columns"),
    ({"indices": None}, "array 'indices' is missing"),
])
def test_npz_archives_that_are_not_version_1_graphs_are_one_line(changes, message, tmp_path):
    path = _archive(tmp_path / "g.npz", **changes)
    with pytest.raises(InputError) as refused:
        read_graph(path)
    text = str(refused.value)
    assert message in text and "damaged" not in text and text.count("g.npz") == 1, text  # not wrapped twice
    assert read_graph(_archive(tmp_path / "plain.npz", version=None)).n == 2  # no version: a hand-made archive


def test_matrix_market_messages_name_the_real_problem(tmp_path):
    integer = tmp_path / "i.mtx"
    integer.write_text("%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 5.0\n")
    with pytest.raises(InputError, match=r"i\.mtx:3: expected an integer, got '5\.0'"):
        read_graph(integer)
    oblong = tmp_path / "o.mtx"  # --bipartite would not help: a symmetric matrix is square
    oblong.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n2 3 1\n2 1\n")
    with pytest.raises(InputError, match=r"a symmetric matrix must be square, got 2×3"):
        read_graph(oblong)
    general = tmp_path / "g.mtx"
    general.write_text("%%MatrixMarket matrix coordinate pattern general\n2 3 1\n2 1\n")
    with pytest.raises(InputError, match="not square: use bipartite=True"):
        read_graph(general)
    assert read_graph(general, bipartite=True).n == 5


def test_a_partition_file_may_end_in_blank_lines_but_not_hold_one_inside(tmp_path):
    from apportion.graph.io.partfile import read_partition

    ended = tmp_path / "ended.part"
    ended.write_text("0\n1\n1\n\n\n")  # an editor's trailing newlines
    assert read_partition(ended, n=3).tolist() == [0, 1, 1]
    holed = tmp_path / "holed.part"
    holed.write_text("0\n\n1\n1\n")
    with pytest.raises(InputError, match=r"holed\.part:2: expected one block id per line, got an empty line"):
        read_partition(holed, n=3)


@pytest.mark.parametrize("value, integer", [("2.0000000000000000001", False), ("20000000000000000001e-19", False),
                                            ("2.00000000000000000000", True), ("20000000000000000000e-19", True),
                                            ("2.000000000000000000000000000000000000001", False)])
def test_real_values_are_whole_numbers_only_when_every_digit_says_so(value, integer, tmp_path):
    """Digits beyond an int64 mantissa were dropped unread: 2.0000000000000000001 became the weight 2."""
    path = tmp_path / "w.mtx"
    path.write_text(f"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 {value}\n3 2 3\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = read_graph(path)
    if integer:
        assert graph.edge_weights is not None and sorted(set(graph.edge_weights.tolist())) == [2, 3]
        assert not caught
    else:
        assert graph.edge_weights is None and any("pattern" in str(w.message) for w in caught)


def test_the_largest_int64_is_a_number_and_one_more_is_too_large(tmp_path):
    largest = tmp_path / "largest.txt"
    largest.write_text("0 1\n1 9223372036854775807\n")  # 2^63 − 1: it was 'too large'
    graph = read_graph(largest, relabel=True)
    assert (graph.n, graph.m) == (3, 2)
    beyond = tmp_path / "beyond.txt"
    beyond.write_text("0 1\n1 9223372036854775808\n")
    with pytest.raises(InputError, match=r"beyond\.txt:2: number '9223372036854775808' is too large"):
        read_graph(beyond, relabel=True)
