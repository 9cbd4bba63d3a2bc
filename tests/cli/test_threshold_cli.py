"""`apportion threshold {cc,spmm,hh} INPUT --platform P`: the estimate, the paper's metrics with --compare
(JSON keys), the picture, and every bad input as one line with exit 2 and no traceback."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from apportion.cli.main import main
from apportion.graph.generate import generate
from apportion.graph.io import write_graph

pytestmark = pytest.mark.timeout(300)

METRIC_KEYS = {"threshold", "best_threshold", "threshold_difference_pct", "time_difference_pct", "overhead_pct",
               "estimate_s", "run_s"}


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("threshold") / "mesh.graph"
    write_graph(generate("delaunay", 2000, seed=3), path)
    return path


@pytest.fixture(scope="module")
def matrix_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("threshold") / "a.mtx"
    scipy.io.mmwrite(str(path), generate("rmat", 1024, seed=1).to_scipy())
    return path


def _run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as end:  # argparse's own errors (an unknown app)
        code = end.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("app", ["cc", "spmm", "hh"])
def test_compare_reports_the_papers_metrics(app, graph_file, matrix_file, capsys):
    source = graph_file if app == "cc" else matrix_file
    code, out, err = _run(capsys, "threshold", app, source, "--platform", "seed004", "--compare", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert METRIC_KEYS <= set(report)
    assert report["run_s"] >= report["best_run_s"] > 0 and report["time_difference_pct"] >= 0
    assert 0 <= report["overhead_pct"] < 100
    if app != "hh":
        assert 0 <= report["threshold"] <= 100 and 0 <= report["best_threshold"] <= 100
        assert report["threshold_difference_pct"] == abs(report["threshold"] - report["best_threshold"])


def test_plain_estimate_on_the_real_pair_and_the_table(graph_file, capsys):
    code, out, err = _run(capsys, "threshold", "cc", graph_file, "--platform", "local-pair", "--json",
                          "--sampler", "walk", "--timing", "raw", "--search", "balance")
    assert code == 0, err
    report = json.loads(out)
    assert report["method"] == "sample-walk-balance (raw)" and "best_threshold" not in report
    assert report["runs"] <= 10  # the balance search: a handful of runs, the two ends included
    assert set(report["device_times_s"]) == {"cpu-side", "gpu-side", "merge"}
    code, out, err = _run(capsys, "threshold", "hh", graph_file, "--platform", "seed004", "--json",
                          "--sampler", "hashed")
    assert code == 0, err
    assert json.loads(out)["method"] == "sample-hashed-share (scaled)"
    code, out, err = _run(capsys, "threshold", "spmm", graph_file, "--platform", "seed004", "--method", "static")
    assert code == 0 and "threshold" in out and "26" in out, err


def test_average_method_takes_the_other_inputs_best_thresholds(graph_file, capsys):
    code, out, err = _run(capsys, "threshold", "cc", graph_file, "--platform", "seed004", "--method", "average",
                          "--others", "10,20,60", "--json")
    assert code == 0, err
    assert json.loads(out)["threshold"] == 30


def test_plot_writes_the_picture(matrix_file, tmp_path, capsys):
    picture = tmp_path / "curve.png"
    code, out, err = _run(capsys, "threshold", "hh", matrix_file, "--platform", "seed004", "--plot", picture,
                          "--extrapolation", "fit")
    assert code == 0, err
    assert "sample-ranked-fit" in out
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bad")
    scipy.io.mmwrite(str(folder / "wide.mtx"), sp.csr_matrix(np.ones((2, 3))))
    (folder / "empty.graph").write_text("0 0\n")
    (folder / "complex.mtx").write_text("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1 1\n")
    return folder


@pytest.mark.parametrize("argv, message", [
    (["spmm", "{bad}/wide.mtx", "--platform", "seed004"], "square"),
    (["hh", "{bad}/wide.mtx", "--platform", "seed004"], "square"),
    (["spmm", "{bad}/complex.mtx", "--platform", "seed004"], "complex values are not supported"),
    (["cc", "{bad}/empty.graph", "--platform", "seed004"], "empty"),
    (["cc", "{bad}/missing.graph", "--platform", "seed004"], "missing.graph"),
    (["spmm", "{bad}/missing.mtx", "--platform", "seed004"], "missing.mtx"),
    (["cc", "{graph}", "--platform", "seed999"], "seed999"),
    (["lu", "{graph}", "--platform", "seed004"], "invalid choice"),
    (["spmm", "{graph}", "--platform", "seed004", "--sampler", "walk"], "one sampler"),
    (["hh", "{graph}", "--platform", "seed004", "--sampler", "walk"], "hashed or ranked"),
    (["cc", "{graph}", "--platform", "seed004", "--sampler", "ranked"], "induced or walk"),
    (["cc", "{graph}", "--platform", "seed004", "--others", "1,2"], "--others"),
    (["cc", "{graph}", "--platform", "seed004", "--method", "average"], "--others"),
    (["cc", "{graph}", "--platform", "seed004", "--scale", "0"], "--scale"),
    (["cc", "{graph}", "--platform", "seed004", "--extrapolation", "fit"], "hh only"),
    (["hh", "{graph}", "--platform", "seed004", "--search", "scan"], "does not apply to hh"),
    (["cc", "{graph}", "--platform", "seed004", "--search", "climb"], "does not apply to cc"),
    (["cc", "{graph}", "--platform", "seed004", "--method", "static", "--search", "scan"], "sample only"),
    (["hh", "{graph}", "--platform", "seed004", "--method", "static", "--extrapolation", "fit"], "sample only"),
    (["cc", "{graph}", "--platform", "seed004", "--plot", "{bad}/x.nope"], "nope"),
])
def test_bad_input_is_one_line_exit_2(argv, message, bad_files, graph_file, capsys):
    argv = [a.format(bad=bad_files, graph=graph_file) for a in argv]
    code, out, err = _run(capsys, "threshold", *argv)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and message in err and "Traceback" not in err, err
    assert not (bad_files / "x.nope").exists()


@pytest.mark.parametrize("name", ["a.mtx.bz2", "a.mtx.xz", "a.mm", "a.mtx.gz"])
def test_a_matrix_is_read_as_itself_whatever_its_compression_or_name(name, tmp_path):
    """spmm and hh multiply the Matrix Market file's own matrix (values and diagonal): .bz2, .xz and .mm files
    were read as a pattern graph, so a different product was split."""
    import bz2
    import gzip
    import lzma

    from apportion import run_split

    matrix = sp.csr_matrix(np.array([[1.5, 0, 2], [0, 3, 0], [4, 0, 0.5]]))
    plain = tmp_path / "a.mtx"
    scipy.io.mmwrite(str(plain), matrix)
    opener = {"bz2": bz2.open, "xz": lzma.open, "gz": gzip.open}.get(name.rsplit(".", 1)[-1], open)
    with opener(tmp_path / name, "wb") as out:
        out.write(plain.read_bytes())
    for app, threshold in (("spmm", 50), ("hh", 1)):
        product = run_split(app, tmp_path / name, "seed004", threshold).result
        np.testing.assert_allclose(product.toarray(), (matrix @ matrix).toarray())


def test_a_matrix_on_standard_input_with_its_format(matrix_file, monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(matrix_file.read_bytes())))
    code, out, err = _run(capsys, "threshold", "spmm", "-", "--format", "mtx", "--platform", "seed004", "--json")
    assert code == 0, err
    assert "pattern graph" not in err
    file_code, file_out, _ = _run(capsys, "threshold", "spmm", matrix_file, "--platform", "seed004", "--json")
    keys = ("threshold", "sample")
    assert {k: json.loads(out).get(k) for k in keys} == {k: json.loads(file_out).get(k) for k in keys}
