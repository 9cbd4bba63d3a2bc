"""`dataset:NAME` wherever a command reads a GRAPH, and `apportion datasets` (table and JSON)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from apportion import datasets
from apportion.cli.main import main
from apportion.graph.io import read_graph


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_listing_json_matches_what_loads(capsys):
    code, out, err = _run(capsys, "datasets", "--json")
    assert code == 0 and err == ""
    listed = json.loads(out)["datasets"]
    assert [row["name"] for row in listed] == datasets.names()
    for row in listed:
        graph = datasets.load(row["name"])
        assert (row["n"], row["m"]) == (graph.n, graph.m)
        assert row["argument"] == f"dataset:{row['name']}" and row["licence"] and row["origin"]


def test_listing_table_names_every_dataset(capsys):
    code, out, _ = _run(capsys, "datasets")
    assert code == 0
    for name in datasets.names():
        assert name in out


@pytest.mark.parametrize("command", [["info"], ["partition", "-k", "2"], ["mst"], ["edge-partition", "-k", "2"]])
def test_every_graph_reading_command_takes_a_dataset(command, capsys):
    code, out, err = _run(capsys, command[0], "dataset:karate", *command[1:], "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report.get("n", 34) == 34 and report.get("m", 78) == 78


def test_info_names_the_dataset_format(capsys):
    code, out, _ = _run(capsys, "info", "dataset:test_mgraph", "--json")
    report = json.loads(out)
    assert code == 0 and report["format"] == "dataset" and report["ncon"] == 2 and report["n"] == 766


def test_convert_and_evaluate_a_dataset(tmp_path, capsys):
    target = tmp_path / "w.graph"
    code, _, err = _run(capsys, "convert", "dataset:test_mgraph", target, "--quiet")
    assert code == 0, err
    original, written = datasets.load("test_mgraph"), read_graph(target)
    assert np.array_equal(original.vertex_weights, written.vertex_weights)
    assert np.array_equal(original.indices, written.indices)
    assert np.array_equal(original.edge_weights, written.edge_weights)
    part = tmp_path / "k.part"
    part.write_text("\n".join(["0"] * 17 + ["1"] * 17) + "\n")
    code, out, err = _run(capsys, "evaluate", "dataset:karate", part, "--json")
    assert code == 0, err and json.loads(out)["n"] == 34


@pytest.mark.parametrize("argument, words", [("dataset:nosuch", ["unknown dataset 'nosuch'", "karate", "4elt"]),
                                             ("dataset:", ["needs a dataset name", "karate"])])
def test_unknown_dataset_is_one_line_exit_2_and_nothing_written(argument, words, tmp_path, cli):
    out = tmp_path / "p.part"
    run = cli("partition", argument, "-k", "2", "-o", out)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert all(word in run.stderr for word in words)
    assert not out.exists()
