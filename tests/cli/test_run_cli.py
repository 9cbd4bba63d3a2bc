"""`apportion run {bfs,sssp,pagerank,cc,pbf} GRAPH`: values equal to the references, JSON keys, the timeline
picture, and every bad input as one line with exit 2 and nothing written."""

from __future__ import annotations

import json

import numpy as np
import pytest

from apportion.apps.bfs import bfs_reference
from apportion.apps.cc import cc_reference
from apportion.apps.pagerank import pagerank_reference
from apportion.apps.pbf import pbf_reference
from apportion.apps.sssp import sssp_reference
from apportion.cli.main import main
from apportion.graph.io import read_graph

pytestmark = pytest.mark.timeout(300)

#: two components: a weighted cycle 0-1-2-3 (the direct edge 0-3 longer than the way round), a path 4-5-6
EDGES = "0 1 2\n1 2 3\n2 3 1\n0 3 9\n4 5 7\n5 6 4\n"
JSON_KEYS = {"app", "graph", "n", "m", "time_s", "placement_s", "placement", "work_items", "messages",
             "bytes_moved", "devices", "per_device_work_items", "per_device_segments", "routing", "transport",
             "delta", "priority_raises", "priority_run_aheads", "edges_relaxed", "failures", "recovery_s", "per_device", "output", "trace"}


@pytest.fixture
def graph_file(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text(EDGES)
    return path


def _run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as end:  # argparse's own errors (an unknown app, exclusive options)
        code = end.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("app,extra", [("bfs", ["--source", "1"]), ("sssp", ["--source", "1"]),
                                       ("sssp", ["--source", "4", "--routing", "direct", "--placement", "random"]),
                                       ("cc", []), ("cc", ["--method", "worklist", "--priority-delta", "1"]),
                                       ("pagerank", ["--devices", "3"])])
def test_values_file_equals_the_reference(app, extra, graph_file, tmp_path, capsys):
    output = tmp_path / "values.txt"
    code, out, err = _run(capsys, "run", app, graph_file, *extra, "-o", output, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert JSON_KEYS <= set(report) and report["app"] == app and report["output"] == str(output)
    graph = read_graph(graph_file)
    values = np.loadtxt(output)
    assert values.shape == (graph.n,)
    if app == "bfs":
        np.testing.assert_array_equal(values, bfs_reference(graph, 1))
    elif app == "sssp":
        np.testing.assert_array_equal(values, sssp_reference(graph, int(extra[1])))  # "inf" reads back as inf
        assert report["reached"] == int(np.isfinite(values).sum())
    elif app == "cc":
        np.testing.assert_array_equal(values, cc_reference(graph))
        assert report["components"] == len(np.unique(values)) == 2
    else:
        assert np.abs(values - pagerank_reference(graph)).sum() <= 1e-3
    assert len(report["per_device"]) == len(report["devices"])
    assert sum(d["work_items"] for d in report["per_device"]) == report["work_items"]


def test_pbf_filters_the_edge_weights_and_reports_segments(graph_file, tmp_path, capsys):
    output = tmp_path / "kept.txt"
    code, out, err = _run(capsys, "run", "pbf", graph_file, "--low", "2.5", "--high", "8", "--segment", "2",
                          "--devices", "3", "-o", output, "--json")
    assert code == 0, err
    _u, _v, weights = read_graph(graph_file).edges()
    expected = pbf_reference(weights, 2.5, 8)
    assert output.read_text().split() == [str(w) for w in expected] == ["3", "7", "4"]
    report = json.loads(out)
    assert report["kept"] == 3 and report["elements"] == 6
    assert sum(report["per_device_segments"]) == 3 == sum(d["segments"] for d in report["per_device"])


def test_pbf_reports_an_infinite_bound_apart_from_an_absent_one(graph_file, capsys):
    """JSON has no infinity: --low inf (keeps nothing) came out null, which means "no bound"."""
    code, out, err = _run(capsys, "run", "pbf", graph_file, "--low", "inf", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["low"], report["high"], report["kept"]) == ("inf", None, 0)


def test_values_to_stdout_put_the_report_on_stderr(graph_file, capsys):
    code, out, err = _run(capsys, "run", "bfs", graph_file, "--source", "0", "-o", "-", "--json")
    assert code == 0
    assert out.split() == ["0", "1", "2", "1", "-1", "-1", "-1"]  # 0-3 is one hop
    assert json.loads(err)["reached"] == 4


def test_table_and_timeline_picture(tmp_path, capsys):
    picture = tmp_path / "timeline.png"
    code, out, err = _run(capsys, "run", "sssp", "dataset:karate", "--source", "0", "--trace", picture)
    assert code == 0, err
    assert "work items" in out and "busy" in out and "waiting" in out and "placement time" in out
    assert picture.read_bytes().startswith(b"\x89PNG") and [p.name for p in tmp_path.iterdir()] == ["timeline.png"]


@pytest.mark.parametrize("argv,message", [
    (["bfs", "G"], "bfs needs --source S"),
    (["sssp", "G", "--source", "7"], "--source must be at most 6 (the graph has 7 vertices"),
    (["sssp", "G", "--source", "-1"], "--source must be at least 0"),
    (["bfs", "G", "--source", "0", "--devices", "0"], "--devices must be at least 1, got 0"),
    (["bfs", "G", "--source", "0", "--platform", "no-such-platform"], "platform file not found"),
    (["bfs", "G", "--source", "0", "--platform", "seed000"], "is simulated"),
    (["bfs", "G", "--source", "0", "--devices", "2", "--platform", "auto"], "not allowed with argument"),
    (["bfs", "G", "--source", "0", "--cluster", "127.0.0.1:1"], "--cluster needs --transport ray"),
    (["bfs", "G", "--source", "0", "-o", "G"], "the output is the input"),
    (["bfs", "G", "--source", "0", "--trace", "G"], "the output is the input"),
    (["bfs", "G", "--source", "0", "--trace", "OUT.bmpx"], "unknown picture format '.bmpx'"),
    (["bfs", "G", "--source", "0", "--priority-delta", "-2"], "--priority-delta must be auto, off or a positive"),
    (["bfs", "G", "--source", "0", "--low", "1"], "--low does not apply to bfs"),
    (["pagerank", "G", "--source", "0"], "--source does not apply to pagerank"),
    (["cc", "G", "--routing", "direct"], "--routing applies to cc with --method worklist only"),
    (["cc", "G", "--segment", "0"], "--segment must be at least 1, got 0"),
    (["cc", "G", "--method", "worklist", "--priority-delta", "auto"], "cc takes off or a positive number"),
    (["pbf", "G"], "pbf needs --low L and/or --high H"),
    (["pbf", "G", "--low", "nan"], "--low must be a number, not NaN"),
    (["bfs", "G", "--source", "0", "--seed", "-1"], "--seed must be between 0 and"),
    (["bfs", "dataset:no-such-graph", "--source", "0"], "no-such-graph"),
    (["dfs", "G", "--source", "0"], "invalid choice: 'dfs'"),
    (["bfs", "G", "--source", "0", "--devices", "99999999999999999999"], "--devices must be at most 256"),
    (["cc", "EMPTY"], "the graph has no vertices"),
    (["pbf", "EMPTY", "--high", "3"], "the graph has no vertices"),
    (["bfs", "EMPTY", "--source", "0"], "the graph has no vertices"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(argv, message, graph_file, tmp_path, capsys):
    (tmp_path / "empty.graph").write_text("0 0\n")
    names = {"G": graph_file, "OUT.bmpx": tmp_path / "out.bmpx", "EMPTY": tmp_path / "empty.graph"}
    before = graph_file.read_bytes()
    output = tmp_path / "values.txt"
    args = ["run", *[names.get(a, a) for a in argv]]
    if "-o" not in argv:
        args += ["-o", output]
    code, out, err = _run(capsys, *args)
    assert code == 2, err
    assert out == ""
    assert err.count("\n") == 1 and "error: " in err and "Traceback" not in err, err
    assert message in err, err
    assert not output.exists() and not (tmp_path / "out.bmpx").exists()
    assert graph_file.read_bytes() == before


def test_real_process_is_silent_on_a_pipe(graph_file, cli, tmp_path):
    """A real run with stderr a pipe: no progress line, nothing on stderr, the table on stdout."""
    result = cli("run", "cc", graph_file, "--method", "worklist")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert "components" in result.stdout
    result = cli("run", "sssp", graph_file)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr



def test_unreachable_cluster_is_one_line_exit_2(graph_file, cli, tmp_path):
    """In a fresh process (in this one a Ray test may have started a local cluster, which Ray would then use)."""
    output = tmp_path / "values.txt"
    result = cli("run", "bfs", graph_file, "--source", "0", "--transport", "ray", "--cluster", "127.0.0.1:1",
                 "-o", output)
    assert result.returncode == 2 and result.stdout == "", result.stderr
    assert result.stderr.count("\n") == 1 and "127.0.0.1:1" in result.stderr and "unreachable" in result.stderr
    assert not output.exists()


@pytest.mark.ray
@pytest.mark.timeout(600)
def test_ray_transport_gives_the_same_values(local_ray, graph_file, tmp_path, capsys):
    output = tmp_path / "dist.txt"
    code, out, err = _run(capsys, "run", "sssp", graph_file, "--source", "2", "--transport", "ray", "-o", output,
                          "--json")
    assert code == 0, err
    assert json.loads(out)["transport"] == "ray"
    np.testing.assert_array_equal(np.loadtxt(output), sssp_reference(read_graph(graph_file), 2))
    graph = read_graph(graph_file)
    # scatter by availability on Ray: topology-driven cc and pbf (segments small enough for both devices)
    code, out, err = _run(capsys, "run", "cc", graph_file, "--transport", "ray", "--segment", "1", "-o", output,
                          "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["transport"] == "ray" and report["method"] == "topology" and sum(report["per_device_segments"]) == 6
    np.testing.assert_array_equal(np.loadtxt(output), cc_reference(graph))
    code, out, err = _run(capsys, "run", "pbf", graph_file, "--transport", "ray", "--low", "2", "--high", "8",
                          "--segment", "2", "-o", output, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["transport"] == "ray" and report["kept"] == 4
    np.testing.assert_array_equal(np.loadtxt(output), pbf_reference(graph.edges()[2], 2, 8))


@pytest.mark.gpu
def test_sssp_pagerank_and_cc_on_the_cuda_platform_equal_the_references(graph_file, tmp_path, capsys):
    output = tmp_path / "values.txt"
    code, out, err = _run(capsys, "run", "sssp", graph_file, "--source", "0", "--platform", "cuda", "-o", output,
                          "--json")
    assert code == 0, err
    assert json.loads(out)["devices"] == ["cuda0"]
    np.testing.assert_array_equal(np.loadtxt(output), sssp_reference(read_graph(graph_file), 0))
    code, out, err = _run(capsys, "run", "pagerank", graph_file, "--platform", "cuda", "-o", output)
    assert code == 0, err
    assert np.abs(np.loadtxt(output) - pagerank_reference(read_graph(graph_file))).sum() <= 1e-3
    code, out, err = _run(capsys, "run", "cc", graph_file, "--platform", "cuda", "-o", output)
    assert code == 0, err
    np.testing.assert_array_equal(np.loadtxt(output), cc_reference(read_graph(graph_file)))


@pytest.mark.parametrize("batch", [0, -1, 1.5])
def test_a_batch_of_no_items_is_refused_by_every_worklist_app(batch, graph_file):
    """batch = 0 never processed an item: every worklist app hung."""
    import apportion
    from apportion.errors import InputError

    graph = apportion.read_graph(graph_file)
    for run in (lambda: apportion.bfs(graph, 0, batch=batch), lambda: apportion.sssp(graph, 0, batch=batch),
                lambda: apportion.pagerank(graph, batch=batch),
                lambda: apportion.connected_components(graph, method="worklist", batch=batch)):
        with pytest.raises(InputError, match="batch must be"):
            run()


REAL_MATRIX = "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 1.5\n3 2 {value}\n4 3 0.25\n"


@pytest.mark.parametrize("value", ["2.0", "-2.0"])
@pytest.mark.parametrize("app,extra", [("sssp", ["--source", "0"]), ("pbf", ["--low", "1"])])
def test_weights_apps_refuse_a_matrix_whose_values_would_be_dropped(app, extra, value, tmp_path, capsys):
    """Read as its pattern, a real matrix would give hop counts for sssp and a filter over ones for pbf."""
    matrix = tmp_path / "real.mtx"
    matrix.write_text(REAL_MATRIX.format(value=value))
    output = tmp_path / "values.txt"
    code, out, err = _run(capsys, "run", app, matrix, *extra, "-o", output)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"apportion: error: {matrix}: {app} ")
    assert "not all positive integers" in err and ("bfs" in err) == (app == "sssp")
    assert not output.exists()
    # bfs reads the pattern, as the reader documents, with its one warning
    code, out, err = _run(capsys, "run", "bfs", matrix, "--source", "0", "-o", "-")
    assert code == 0 and out.split() == ["0", "1", "2", "3"]
    assert "read as a pattern graph" in err


def test_sssp_takes_an_integer_matrix_s_values_as_lengths(tmp_path, capsys):
    matrix = tmp_path / "lengths.mtx"
    matrix.write_text("%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 5\n3 2 7\n")
    code, out, err = _run(capsys, "run", "sssp", matrix, "--source", "0", "-o", "-")
    assert code == 0, err
    assert out.split() == ["0", "5", "12"]
