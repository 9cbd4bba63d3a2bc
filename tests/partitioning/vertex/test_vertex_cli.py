"""`apportion partition`: exit codes, JSON keys, the .part file."""

from __future__ import annotations

import json

import numpy as np

from apportion.graph.io import read_graph
from apportion.graph.io.partfile import read_partition

from vertex_helpers import recount


def test_partition_json_and_part_file(cli, karate_file, tmp_path):
    out = tmp_path / "karate.part"
    result = cli("partition", karate_file, "-k", "4", "--targets", "2,1,1,1", "--seed", "3",
                 "--threads", "1", "-o", out, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    for key in ("k", "cut", "imbalance", "block_weights", "time_s", "targets", "times", "preset", "seed"):
        assert key in report
    graph = read_graph(karate_file)
    assignment = read_partition(out, graph.n)
    cut, weights = recount(graph, assignment, 4)
    assert report["cut"] == cut and report["k"] == 4
    assert report["block_weights"] == weights[:, 0].tolist()
    assert np.all(weights[:, 0] <= np.array(report["max_block_weights"]))
    assert report["targets"] == [0.4, 0.2, 0.2, 0.2]


def test_partition_table_output(cli, karate_file):
    result = cli("partition", karate_file, "-k", "2", "--preset", "fast")
    assert result.returncode == 0, result.stderr
    assert "cut" in result.stdout


def test_bad_input_exit_2_without_output(cli, karate_file, tmp_path):
    out = tmp_path / "x.part"
    for args in (["-k", "0"], ["-k", "3", "--targets", "1,2"], ["-k", "2", "--imbalance", "-1"],
                 ["-k", "500"], ["-k", "2", "--targets", "1,abc"], ["-k", "2", "--threads", "0"]):
        result = cli("partition", karate_file, *args, "-o", out)
        assert result.returncode == 2, (args, result.stderr)
        assert "Traceback" not in result.stderr and result.stderr.strip()
        assert not out.exists()
    missing = cli("partition", tmp_path / "nope.graph", "-k", "2")
    assert missing.returncode == 2


def test_quality_partition_prints_no_progress_when_piped(cli):
    # 4elt (15,606 vertices) with quality is long enough for a progress line on a terminal; piped, none
    result = cli("partition", "dataset:4elt", "-k", "4", "--preset", "quality")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "cut" in result.stdout


def test_quality_partition_shows_a_progress_line_on_a_terminal():
    import os
    import pty
    import subprocess
    import sys

    primary, secondary = pty.openpty()
    env = dict(os.environ, COLUMNS="100", TERM="xterm")
    process = subprocess.Popen([sys.executable, "-m", "apportion.cli.main", "partition",
                                "dataset:4elt", "-k", "4", "--preset", "quality"],
                               stdout=subprocess.PIPE, stderr=secondary, env=env)
    os.close(secondary)
    seen = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    stdout, _ = process.communicate(timeout=600)
    os.close(primary)
    assert process.returncode == 0
    assert b"cut" in stdout
    assert b"partitioning: run 1 of 3" in seen  # (--json and --quiet turn the line off)
