"""Reading what users have and losing nothing: compressed files, standard input/output, pipes, the shared
reading options, gpmetis's output name, outputs that are inputs, missing folders and impossible sizes."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import sys
import threading

import numpy as np
import pytest

import apportion
from apportion.cli.main import main
from apportion.errors import InputError
from apportion.graph.io import read_graph, write_graph

COMPRESS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}
SUFFIX = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz"}


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("apportion: error: ") and "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def small():
    """A small weighted-free planar graph (no shared files needed)."""
    return apportion.generate("delaunay", 120, seed=4)


@pytest.fixture
def files(tmp_path, small):
    """The small graph as METIS, Matrix Market and an edge list."""
    paths = {}
    for ext in ("graph", "mtx", "txt"):
        paths[ext] = tmp_path / f"small.{ext}"
        write_graph(small, paths[ext])
    return paths


def _same(a, b) -> bool:
    return a.n == b.n and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)


# ------------------------------------------------------------------------------------------ compressed input
@pytest.mark.parametrize("kind", sorted(COMPRESS))
@pytest.mark.parametrize("ext", ["graph", "mtx", "txt"])
def test_compressed_file_is_read_by_its_name_under_the_suffix(kind, ext, files, small, tmp_path, capsys):
    packed = tmp_path / f"packed.{ext}{SUFFIX[kind]}"
    packed.write_bytes(COMPRESS[kind](files[ext].read_bytes()))
    assert _same(read_graph(packed), small)
    code, out, err = _run(capsys, "info", packed, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["n"], report["m"], report["name"]) == (small.n, small.m, "packed")


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_compressed_content_is_recognised_whatever_the_name(kind, files, small, tmp_path, capsys):
    disguised = tmp_path / "plain_looking.graph"  # gzip/bzip2/xz data under a plain METIS name
    disguised.write_bytes(COMPRESS[kind](files["graph"].read_bytes()))
    assert _same(read_graph(disguised), small)
    code, _out, err = _run(capsys, "info", disguised)
    assert code == 0, err


def test_compressed_npz_and_partition_files(tmp_path, small):
    from apportion.graph.io.partfile import read_partition

    write_graph(small, tmp_path / "g.npz")
    (tmp_path / "g.npz.gz").write_bytes(gzip.compress((tmp_path / "g.npz").read_bytes()))
    assert _same(read_graph(tmp_path / "g.npz.gz"), small)
    (tmp_path / "p.part.xz").write_bytes(lzma.compress(b"0\n1\n1\n"))
    assert read_partition(tmp_path / "p.part.xz", n=3).tolist() == [0, 1, 1]


@pytest.mark.parametrize("name", ["out.graph.gz", "out.mtx.bz2", "out.txt.xz", "out.npz.gz"])
def test_compressed_output_by_name_round_trips(name, files, small, tmp_path, capsys):
    target = tmp_path / name
    code, _out, err = _run(capsys, "convert", files["graph"], target)
    assert code == 0, err
    magic = {".gz": b"\x1f\x8b", ".bz2": b"BZh", ".xz": b"\xfd7zXZ"}[os.path.splitext(name)[1]]
    assert target.read_bytes().startswith(magic)
    assert _same(read_graph(target), small)


# ------------------------------------------------------------------------------------------ stdin, stdout, pipes
def test_dash_reads_standard_input(files, small, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(files["mtx"].read_bytes()))))
    code, out, err = _run(capsys, "info", "-", "--format", "mtx", "--json")
    assert code == 0, err
    assert (json.loads(out)["n"], json.loads(out)["m"]) == (small.n, small.m)


def test_evaluate_reads_the_partition_from_standard_input(files, small, monkeypatch, capsys):
    blocks = "".join(f"{v % 2}\n" for v in range(small.n)).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bz2.compress(blocks))))
    code, out, err = _run(capsys, "evaluate", files["graph"], "-", "--json")
    assert code == 0, err
    assert json.loads(out)["block_weights"] == [(small.n + 1) // 2, small.n // 2]


def test_dash_without_format_is_one_line(capsys):
    code, _out, err = _run(capsys, "info", "-")
    assert code == 2 and "--format" in _one_error_line(err)


def test_dev_stdin_pipe_in_a_real_process(files, small):
    import subprocess

    data = gzip.compress(files["graph"].read_bytes())  # a compressed stream through a pipe
    env = {k: v for k, v in os.environ.items() if k != "APPORTION_DEBUG"}
    proc = subprocess.run([sys.executable, "-m", "apportion.cli.main", "info", "/dev/stdin", "--format", "metis",
                           "--json"], input=data, capture_output=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["m"] == small.m


def test_fifo_is_read_front_to_back(files, small, tmp_path, capsys):
    fifo = tmp_path / "pipe.graph"
    os.mkfifo(fifo)
    data = files["graph"].read_bytes()

    def feed():
        with open(fifo, "wb") as handle:
            handle.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        code, out, err = _run(capsys, "info", fifo, "--json")
    finally:
        writer.join(timeout=60)
    assert code == 0, err
    assert json.loads(out)["m"] == small.m


def test_dash_output_writes_standard_output_and_reports_on_stderr(files, small, tmp_path, capsys):
    code, out, err = _run(capsys, "convert", files["graph"], "-", "--output-format", "mtx", "--json")
    assert code == 0, err
    (tmp_path / "back.mtx").write_text(out)
    assert _same(read_graph(tmp_path / "back.mtx"), small)
    assert json.loads(err.strip().splitlines()[-1])["output"] == "-"


def test_partition_to_standard_output(files, small, capsys):
    code, out, err = _run(capsys, "partition", files["graph"], "-k", 2, "-o", "-", "--json")
    assert code == 0, err
    blocks = [int(x) for x in out.split()]
    assert len(blocks) == small.n and set(blocks) == {0, 1}
    assert json.loads(err.strip().splitlines()[-1])["k"] == 2


# ------------------------------------------------------------------------------------------ shared reading options
@pytest.mark.parametrize("command", [["partition", "-k", "2"], ["mst"], ["edge-partition", "-k", "2"]])
def test_graph_commands_take_the_reading_options(command, small, tmp_path, capsys):
    u, v, _w = small.edges()
    odd = tmp_path / "one_based.dat"  # an edge list with 1-based ids and an extension that tells nothing
    odd.write_text("".join(f"{a + 1} {b + 1}\n" for a, b in zip(u.tolist(), v.tolist())))
    code, _out, err = _run(capsys, command[0], odd, *command[1:], "--json")
    assert code == 2 and "--format" in _one_error_line(err)
    code, out, err = _run(capsys, command[0], odd, *command[1:], "--format", "edgelist", "--base", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["n"] == small.n  # base 1: no extra isolated vertex 0


def test_bare_output_flag_writes_gpmetis_name_next_to_the_graph(files, small, tmp_path, capsys):
    code, out, err = _run(capsys, "partition", files["graph"], "-k", 2, "--json", "-o")
    assert code == 0, err
    written = tmp_path / "small.graph.part.2"
    assert json.loads(out)["output"] == str(written)
    assert len(written.read_text().split()) == small.n


def test_bare_output_flag_needs_a_graph_name(capsys):
    code, _out, err = _run(capsys, "partition", "-", "--format", "metis", "-k", 2, "-o")
    assert code == 2 and "GRAPH.part.K" in _one_error_line(err)


# ------------------------------------------------------------------------------------------ nothing lost
def _aliases(path):
    """Other names of the same file: itself, ./-prefixed, a symlink and a hard link."""
    folder = path.parent
    (folder / "sym.graph").symlink_to(path)
    os.link(path, folder / "hard.graph")
    return [path, folder / "." / path.name, folder / "sym.graph", folder / "hard.graph"]


@pytest.mark.parametrize("command", [
    ["convert", "{graph}", "{out}"],
    ["partition", "{graph}", "-k", "2", "-o", "{out}"],
    ["mst", "{graph}", "-o", "{out}"],
    ["edge-partition", "{graph}", "-k", "2", "-o", "{out}"],
])
def test_an_output_that_is_the_input_is_refused(command, files, tmp_path, capsys):
    graph = files["graph"]
    before = graph.read_bytes()
    for alias in _aliases(graph):
        argv = [part.format(graph=graph, out=alias) for part in command]
        code, _out, err = _run(capsys, *argv)
        assert code == 2
        assert "is the input" in _one_error_line(err)
        assert graph.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("command", [
    ["schedule", "matmul", "--platform", "{file}", "--gantt", "{alias}"],
    ["perfmodel", "build", "--device", "0", "--platform", "{file}", "-o", "{alias}"],
])
def test_commands_with_platform_inputs_refuse_to_overwrite_them(command, tmp_path, capsys):
    platform = tmp_path / "platform.json"  # refused before it is even parsed
    platform.write_text("{}")
    (tmp_path / "link.json").symlink_to(platform)
    for alias in (platform, tmp_path / "link.json"):
        argv = [part.format(file=platform, alias=alias) for part in command]
        code, _out, err = _run(capsys, *argv)
        assert code == 2 and "is the input" in _one_error_line(err)
        assert platform.read_text() == "{}"


def test_evaluate_graph_and_partition_cannot_both_be_stdin(capsys):
    code, _out, err = _run(capsys, "evaluate", "-", "-", "--format", "metis")
    assert code == 2 and "standard input" in _one_error_line(err)


@pytest.mark.parametrize("command", [
    ["generate", "er", "--n", "50", "-o", "{out}.graph"],
    ["convert", "{graph}", "{out}.npz"],
    ["partition", "{graph}", "-k", "2", "-o", "{out}.part"],
    ["mst", "{graph}", "-o", "{out}.txt"],
    ["edge-partition", "{graph}", "-k", "2", "-o", "{out}.epart"],
    ["grid", "10", "10", "--speeds", "1,1", "--plot", "{out}.png"],
])
def test_a_missing_output_folder_is_one_line_naming_the_users_path(command, files, tmp_path, capsys):
    out = tmp_path / "no" / "such" / "folder" / "result"
    argv = [part.format(graph=files["graph"], out=out) for part in command]
    code, _out, err = _run(capsys, *argv)
    line = _one_error_line(err)
    assert code == 2
    assert str(out) in line and "does not exist" in line and ".tmp" not in line
    assert not (tmp_path / "no").exists()


def test_an_output_that_is_a_folder_is_refused(files, tmp_path, capsys):
    (tmp_path / "dir.graph").mkdir()
    code, _out, err = _run(capsys, "convert", files["graph"], tmp_path / "dir.graph")
    assert code == 2 and "is a directory" in _one_error_line(err)


def test_atomic_output_errors_name_the_users_path(tmp_path):
    from apportion._atomic import atomic_output

    target = tmp_path / "missing" / "x.txt"
    with pytest.raises(InputError) as info:
        with atomic_output(target, "w") as handle:
            handle.write("x")
    assert str(target) in str(info.value) and ".tmp" not in str(info.value)


# ------------------------------------------------------------------------------------------ impossible sizes
@pytest.mark.parametrize("argv", [
    ["er", "--n", "1000000000000"],
    ["delaunay", "--n", "1000000000000"],
    ["rgg", "--n", "1000000000000"],
    ["ba", "--n", "1000000000000"],
    ["grid2d", "--rows", "1000000", "--cols", "1000000"],
    ["grid3d", "--dims", "10000,10000,10000"],
    ["rmat", "--scale", "40"],
    ["er", "--n", "100000000000000000000000000000"],
])
def test_generators_refuse_impossible_sizes_with_one_line(argv, tmp_path, capsys):
    code, _out, err = _run(capsys, "generate", *argv, "-o", tmp_path / "g.graph")
    line = _one_error_line(err)
    assert code == 2
    assert "memory" in line or "int64" in line
    assert not (tmp_path / "g.graph").exists()


def test_edge_list_with_a_huge_id_reads_with_relabel(tmp_path, capsys):
    path = tmp_path / "sparse.txt"
    path.write_text("0 1\n1 1000000000000\n")
    code, _out, err = _run(capsys, "info", path)
    assert code == 2 and "--relabel" in _one_error_line(err)
    code, out, err = _run(capsys, "info", path, "--relabel", "--json")
    assert code == 0, err
    assert (json.loads(out)["n"], json.loads(out)["m"]) == (3, 2)
