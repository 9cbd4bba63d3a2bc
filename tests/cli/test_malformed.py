"""The malformed-input corpus: every bad file gives exit 2, one line on stderr naming file (and line), no output.

The corpus and the expected line/phrase of every message live in tests/data/malformed/make_corpus.py. Most
runs go through `apportion.cli.main.main` in this process (the same code path as the console script, minus
interpreter start-up); a sample also runs as a real subprocess.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from apportion.cli.main import main

CORPUS = Path(__file__).resolve().parents[1] / "data" / "malformed"


def _load_table():
    spec = importlib.util.spec_from_file_location("make_corpus", CORPUS / "make_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.EXPECTED


EXPECTED = _load_table()
GRAPH_FILES = sorted(name for name in EXPECTED if not name.startswith("part_"))
PART_FILES = sorted(name for name in EXPECTED if name.startswith("part_"))


def test_corpus_is_large_and_matches_its_table():
    assert len(EXPECTED) >= 30
    for name, (content, _line, _phrase) in EXPECTED.items():
        data = content if isinstance(content, bytes) else content.encode()
        assert (CORPUS / name).read_bytes() == data, f"{name} differs from make_corpus.py; regenerate it"
    kinds = {name.split("_")[0] for name in EXPECTED} | {name.split("_")[1] for name in EXPECTED
                                                          if name.startswith("strict_")}
    assert {"metis", "mtx", "edgelist", "npz", "part"} <= kinds


def _run(capsys, argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _check_message(err: str, name: str):
    _content, line, phrase = EXPECTED[name]
    path = str(CORPUS / name)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("apportion: error: ")
    assert path in lines[0], lines[0]
    if line is not None:
        assert f"{path}:{line}:" in lines[0], lines[0]
    assert phrase.lower() in lines[0].lower(), lines[0]
    # file bytes are never echoed raw: no control characters, no replacement characters, no \x escapes
    assert lines[0].isprintable() and "\ufffd" not in lines[0] and "\\x" not in lines[0], lines[0]


def _strict(name: str) -> list[str]:
    return ["--strict"] if name.startswith("strict_") else []


@pytest.mark.parametrize("name", GRAPH_FILES)
def test_info_rejects(name, capsys):
    code, out, err = _run(capsys, ["info", CORPUS / name, *_strict(name)])
    assert code == 2
    assert out == ""
    _check_message(err, name)


@pytest.mark.parametrize("name", GRAPH_FILES)
@pytest.mark.parametrize("target", ["out.npz", "out.graph"])
def test_convert_rejects_and_writes_nothing(name, target, tmp_path, capsys):
    output = tmp_path / target
    code, _out, err = _run(capsys, ["convert", CORPUS / name, output, *_strict(name)])
    assert code == 2
    _check_message(err, name)
    assert not any(tmp_path.iterdir())  # neither the output nor a temporary file is left


@pytest.mark.parametrize("name", GRAPH_FILES)
def test_run_rejects_and_writes_nothing(name, tmp_path, capsys):
    values, picture = tmp_path / "values.txt", tmp_path / "timeline.png"
    code, out, err = _run(capsys, ["run", "bfs", CORPUS / name, "--source", "0", "-o", values, "--trace", picture,
                                   *_strict(name)])
    assert code == 2
    assert out == ""
    _check_message(err, name)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("name", [n for n in GRAPH_FILES if n.startswith("strict_")])
def test_strict_files_load_without_strict_with_one_warning(name, capsys):
    code, _out, err = _run(capsys, ["info", CORPUS / name, "--json"])
    assert code == 0
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "self-loop" in warnings[0]


@pytest.mark.parametrize("name", PART_FILES)
def test_evaluate_rejects_bad_partition_files(name, karate_file, capsys):
    extra = ["--targets", "1,1"] if name.startswith("part_targets_") else []
    code, out, err = _run(capsys, ["evaluate", karate_file, CORPUS / name, *extra])
    assert code == 2
    assert out == ""
    _check_message(err, name)


@pytest.mark.parametrize("name", ["metis_asymmetric.graph", "mtx_truncated.mtx", "npz_not_a_zip.npz"])
def test_real_process_exit_code_and_single_line(name, cli, tmp_path):
    output = tmp_path / "out.graph"
    result = cli("convert", CORPUS / name, output)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert str(CORPUS / name) in result.stderr
    assert not output.exists()
