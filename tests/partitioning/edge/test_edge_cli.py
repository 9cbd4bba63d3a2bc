"""`apportion edge-partition` and `apportion spmv`: exit codes, JSON keys, output file."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from apportion.cli.main import main

JSON_KEYS = {"k", "method", "edges_per_part", "vertex_copies", "replication_factor", "edge_imbalance", "time_s",
             "details", "graph", "n", "m"}


@pytest.fixture(scope="module")
def matrix_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("mtx") / "a.mtx"
    scipy.io.mmwrite(str(path), sp.random(40, 30, density=0.15, random_state=2, format="coo"))
    return path


def test_subprocess_json_and_output_file(cli, karate_file, tmp_path):
    out = tmp_path / "parts.txt"
    run = cli("edge-partition", karate_file, "-k", "4", "--method", "hdrf", "--json", "-o", out)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert set(data) == JSON_KEYS and "assignment" not in data
    parts = np.loadtxt(out, dtype=np.int64)
    assert parts.shape == (78,) and np.bincount(parts).tolist() == data["edges_per_part"]
    assert data["m"] == 78 and max(data["edges_per_part"]) <= 20


@pytest.mark.parametrize("args", [
    ["-k", "0"], ["-k", "400"], ["-k", "4", "--imbalance", "-1"], ["-k", "4", "--method", "nope"],
    ["-k", "4", "--method", "hdrf", "--vertex-preset", "fast"], ["-k", "4", "--refine", "maybe"],
])
def test_subprocess_bad_input_exits_2_without_output(cli, karate_file, tmp_path, args):
    out = tmp_path / "parts.txt"
    run = cli("edge-partition", karate_file, *args, "-o", out)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and run.stderr.strip()
    assert not out.exists()


def test_spac_in_process_from_matrix(matrix_file, tmp_path, capsys):
    out = tmp_path / "p.txt"
    assert main(["edge-partition", str(matrix_file), "-k", "3", "--from-matrix", "--json", "-o", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    nnz = sp.coo_array(scipy.io.mmread(str(matrix_file))).nnz
    assert data["m"] == nnz and data["n"] == 70 and data["method"] == "spac"
    assert set(data["edges_per_part"]) <= {nnz // 3, -(-nnz // 3)}
    assert len(out.read_text().split()) == nnz


def test_spmv_command(matrix_file, capsys):
    assert main(["spmv", str(matrix_file), "--parts", "4", "--method", "ne", "--json", "--repeats", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("max_loads", "total_loads", "unpartitioned_max_loads", "unpartitioned_total_loads",
                "time_partitioned_s", "time_unpartitioned_s", "time_scipy_s", "max_abs_error", "vertex_copies"):
        assert key in data
    assert data["max_abs_error"] < 1e-9
    assert main(["spmv", str(matrix_file), "--parts", "4", "--method", "hdrf"]) == 0


def test_spmv_bad_matrix(tmp_path, capsys):
    bad = tmp_path / "bad.mtx"
    bad.write_text("not a matrix\n")
    assert main(["spmv", str(bad), "--parts", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"apportion: error: {bad}: not a readable Matrix Market file")
    missing = tmp_path / "missing.mtx"
    assert main(["spmv", str(missing), "--parts", "2"]) == 2
    assert capsys.readouterr().err == f"apportion: error: {missing}: no such file\n"  # SciPy's text not doubled


def test_spmv_reads_compressed_matrices_and_graph_inputs(matrix_file, tmp_path, capsys):
    import gzip

    from apportion.graph.io import read_graph

    packed = tmp_path / "a.mtx.gz"
    packed.write_bytes(gzip.compress(matrix_file.read_bytes()))
    assert main(["spmv", str(packed), "--parts", "3", "--json", "--repeats", "1"]) == 0, capsys.readouterr().err
    data = json.loads(capsys.readouterr().out)
    assert (data["rows"], data["cols"]) == (40, 30) and data["max_abs_error"] < 1e-9
    # a graph input is its adjacency matrix: a shipped dataset and a METIS file
    assert main(["spmv", "dataset:karate", "--parts", "2", "--json", "--repeats", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["rows"], data["cols"], data["nonzeros"]) == (34, 34, 2 * 78)
    metis = tmp_path / "k.graph"
    from apportion.graph.io import write_graph

    write_graph(read_graph("dataset:karate"), metis)
    assert main(["spmv", str(metis), "--parts", "2", "--json", "--repeats", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["nonzeros"] == 2 * 78


def test_refine_and_vertex_preset_flags_in_process(karate_file, capsys):
    path = str(karate_file)
    assert main(["edge-partition", path, "-k", "4", "--method", "hdrf", "--refine", "on", "--json"]) == 0
    on = json.loads(capsys.readouterr().out)
    assert main(["edge-partition", path, "-k", "4", "--method", "hdrf", "--json"]) == 0
    off = json.loads(capsys.readouterr().out)
    assert on["details"]["refined"] and not off["details"]["refined"]
    assert on["vertex_copies"] <= on["details"]["copies_before_refine"] + 2 * on["details"]["balance_moves"]
    assert main(["edge-partition", path, "-k", "4", "--vertex-preset", "fast", "--refine", "off", "--json"]) == 0
    fast = json.loads(capsys.readouterr().out)
    assert not fast["details"]["refined"] and max(fast["edges_per_part"]) - min(fast["edges_per_part"]) <= 1


def test_run_cap_flag_in_process(karate_file, capsys):
    path = str(karate_file)
    assert main(["edge-partition", path, "-k", "3", "--run-cap", "1", "--json"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert full["details"]["run_cap"] == 1 and full["details"]["partitioned_vertices"] == 2 * full["m"]
    assert main(["edge-partition", path, "-k", "3", "--run-cap", "4", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)
    assert runs["details"]["run_cap"] == 4 and runs["details"]["partitioned_vertices"] < 2 * runs["m"]
    assert max(runs["edges_per_part"]) - min(runs["edges_per_part"]) <= 1
    assert main(["edge-partition", path, "-k", "3", "--method", "hdrf", "--run-cap", "4"]) == 2
    capsys.readouterr()
