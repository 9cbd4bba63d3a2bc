"""The graph commands: generate, info, convert, evaluate (checked against independent recounts)."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

import apportion
from apportion import datasets
from apportion.cli.main import main
from apportion.graph.io import read_graph, write_graph


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json(capsys, *argv):
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])


@pytest.mark.parametrize("command", ["generate", "info", "convert", "evaluate"])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert "--json" in capsys.readouterr().out


def test_generate_writes_the_library_graph(tmp_path, capsys):
    out = tmp_path / "d.graph"
    report = _json(capsys, "generate", "delaunay", "--n", 300, "--seed", 3, "-o", out)
    expected = apportion.generate("delaunay", 300, seed=3)
    graph = read_graph(out)
    assert report["n"] == graph.n == 300 and report["m"] == graph.m == expected.m
    assert np.array_equal(graph.indices, expected.indices)


def test_generate_kind_options_and_errors(tmp_path, capsys):
    report = _json(capsys, "generate", "grid2d", "--rows", 3, "--cols", 4, "-o", tmp_path / "g.npz")
    assert report["n"] == 12 and report["m"] == 3 * 3 + 2 * 4
    report = _json(capsys, "generate", "rmat", "--scale", 6, "-o", tmp_path / "r.txt")
    assert report["n"] == 64
    code, _, err = _run(capsys, "generate", "ba", "--n", 50, "--radius", 0.1, "-o", tmp_path / "b.graph")
    assert code == 2 and "--radius" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "b.graph").exists()
    code, _, err = _run(capsys, "generate", "er", "--n", 50, "-o", tmp_path / "e.unknown")
    assert code == 2 and "extension" in err
    assert "--output-format" in err and "--format" not in err.replace("--output-format", "")  # the output's option


@pytest.mark.parametrize("kind", ["delaunay", "rgg", "grid2d", "grid3d", "rmat", "er", "ba", "road"])
def test_generate_refusal_lists_only_flags_the_command_takes(kind, tmp_path, capsys):
    """The 'valid:' list of a misplaced option names flags of this command (delaunay's Python-only `method`
    was listed as --method, which the parser then refused)."""
    import re

    from apportion.cli.main import build_parser

    misplaced = ["--dims", "2,2,2"] if kind != "grid3d" else ["--scale", "5"]
    code, _, err = _run(capsys, "generate", kind, "--n", 64, *misplaced, "-o", tmp_path / "x.graph")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    listed = re.search(r"\(valid: (.*)\)", err).group(1)
    assert listed != "none"
    generate_parser = build_parser()._subparsers._group_actions[0].choices["generate"]
    known = {flag for action in generate_parser._actions for flag in action.option_strings}
    assert set(listed.split(", ")) <= known, listed


def test_generate_road_keeps_its_lengths_and_takes_extra(tmp_path, capsys):
    out = tmp_path / "road.graph"
    report = _json(capsys, "generate", "road", "--n", 400, "--seed", 2, "--extra", 0.5, "-o", out)
    expected = apportion.generate("road", 400, seed=2, extra=0.5)
    graph = read_graph(out)
    assert report["options"] == {"extra": 0.5} and report["m"] == graph.m == expected.m
    assert np.array_equal(graph.indices, expected.indices)
    assert np.array_equal(graph.edge_weights, expected.edge_weights)  # the integer lengths survive the file
    code, _, err = _run(capsys, "generate", "road", "--n", 50, "--extra", 2, "-o", tmp_path / "bad.graph")
    assert code == 2 and "extra" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "bad.graph").exists()


def test_info_json_matches_networkx(tmp_path, capsys):
    path = tmp_path / "polblogs.graph"
    write_graph(datasets.load("polblogs"), path)  # has isolated vertices
    info = _json(capsys, "info", path)
    reference = read_graph(path).to_networkx()
    degrees = [d for _, d in reference.degree()]
    assert info["n"] == reference.number_of_nodes()
    assert info["m"] == reference.number_of_edges()
    assert info["min_degree"] == min(degrees) and info["max_degree"] == max(degrees)
    assert info["isolated_vertices"] == sum(1 for d in degrees if d == 0)
    components = list(nx.connected_components(reference))
    assert info["components"] == len(components)
    assert info["largest_component"] == max(len(c) for c in components)
    assert info["median_degree"] == pytest.approx(float(np.median(degrees)))


def test_info_weights_and_table(real_graph_file, karate_file, capsys):
    info = _json(capsys, "info", real_graph_file("test.mgraph"))
    assert info["ncon"] == 2 and info["has_vertex_weights"]
    lines = real_graph_file("test.mgraph").read_text().splitlines()
    body = [line.split() for line in lines if not line.startswith("%")][1:]
    assert info["total_vertex_weight"] == [sum(int(t[0]) for t in body), sum(int(t[1]) for t in body)]
    code, out, _ = _run(capsys, "info", karate_file)
    assert code == 0 and "34" in out and "components" in out


def test_info_warns_about_self_loops_on_one_line(tmp_path, capsys):
    path = tmp_path / "loop.graph"
    path.write_text("2 1\n1 2\n1\n")
    code, _, err = _run(capsys, "info", path)
    assert code == 0
    assert err.count("\n") == 1 and "warning" in err and "self-loop" in err
    code, _, err = _run(capsys, "info", path, "--strict")
    assert code == 2 and f"{path}:2:" in err


def test_convert_chain_preserves_the_graph(tmp_path, capsys, weighted_graph_file):
    original = read_graph(weighted_graph_file)  # vertex and edge weights
    current = weighted_graph_file
    for name in ("a.npz", "b.graph", "c.mtx", "d.txt", "e.graph"):
        target = tmp_path / name
        code, _, _ = _run(capsys, "convert", current, target, "--quiet")
        assert code == 0
        current = target
    back = read_graph(current)
    assert np.array_equal(back.indptr, original.indptr) and np.array_equal(back.indices, original.indices)
    assert np.array_equal(back.edge_weights, original.edge_weights)


def test_convert_bipartite_and_base(tmp_path, capsys):
    mtx = tmp_path / "rect.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n")
    report = _json(capsys, "convert", mtx, tmp_path / "rect.graph", "--bipartite")
    assert report["n"] == 5 and report["m"] == 2
    edges = tmp_path / "one.txt"
    edges.write_text("1 2\n2 3\n")
    assert _json(capsys, "convert", edges, tmp_path / "one.npz", "--base", 1)["n"] == 3
    assert _json(capsys, "convert", edges, tmp_path / "zero.npz")["n"] == 4


def _recount_cut(graph, parts):
    u, v, w = graph.edges()
    w = np.ones(u.shape[0], dtype=np.int64) if w is None else w
    return int(w[parts[u] != parts[v]].sum())


def test_evaluate_matches_recount(karate_file, tmp_path, capsys):
    graph = read_graph(karate_file)
    parts = np.random.default_rng(7).integers(0, 4, graph.n)
    part = tmp_path / "k.part"
    part.write_text("\n".join(map(str, parts)) + "\n")
    result = _json(capsys, "evaluate", karate_file, part, "--targets", "4,2,1,1")
    assert result["k"] == 4
    assert result["cut"] == _recount_cut(graph, parts)
    counts = np.bincount(parts, minlength=4)
    assert result["block_weights"] == counts.tolist()
    targets = np.ceil(np.array([4, 2, 1, 1]) / 8 * graph.n)  # 17, 9, 5, 5: rounded up, as the limits are
    assert result["imbalance"] == pytest.approx(float((counts / targets).max() - 1))
    boundary = {int(a) for a, b in zip(*graph.edges()[:2]) if parts[a] != parts[b]} | \
               {int(b) for a, b in zip(*graph.edges()[:2]) if parts[a] != parts[b]}
    assert result["boundary_vertices"] == len(boundary)
    code, out, _ = _run(capsys, "evaluate", karate_file, part)
    assert code == 0 and "edge cut" in out


def test_evaluate_rejects_wrong_length_partition(karate_file, tmp_path, capsys):
    part = tmp_path / "short.part"
    part.write_text("0\n1\n")
    code, out, err = _run(capsys, "evaluate", karate_file, part)
    assert code == 2 and out == "" and str(part) in err and "34 vertices" in err


def test_cli_in_a_real_process(karate_file, tmp_path, cli):
    result = cli("info", karate_file, "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["m"] == 78
    assert result.stderr == ""
