"""Warnings come out as one `apportion: warning: …` line from every command that reads a graph, never as
Python's `path:line: GraphFileWarning: …` display with a source line (partition, mst and edge-partition
printed that before)."""

from __future__ import annotations

import pytest

#: a triangle whose vertex 1 lists itself: readers drop the self-loop with a GraphFileWarning (not --strict)
SELF_LOOP = "3 3\n1 2 3\n1 3\n1 2\n"
WARNING = "apportion: warning: {path}: dropped 1 self-loop (first at vertex 1, line 2)\n"


@pytest.mark.parametrize("command", [
    ["info", "G"], ["convert", "G", "OUT.mtx"], ["evaluate", "G", "P"],
    ["partition", "G", "-k", "2", "--imbalance", "1"], ["mst", "G"], ["edge-partition", "G", "-k", "2"],
])
def test_every_graph_command_prints_reader_warnings_as_one_line(command, cli, tmp_path):
    graph = tmp_path / "loop.graph"
    graph.write_text(SELF_LOOP)
    (tmp_path / "loop.part").write_text("0\n1\n1\n")
    names = {"G": graph, "P": tmp_path / "loop.part", "OUT.mtx": tmp_path / "out.mtx"}
    result = cli(*[names.get(a, a) for a in command], "-q")
    assert result.returncode == 0, result.stderr
    assert result.stderr == WARNING.format(path=graph)


def test_warnings_display_is_restored_after_main(tmp_path, capsys):
    import warnings

    from apportion.cli.main import main

    before = warnings.showwarning
    main(["info", str(tmp_path / "missing.graph")])
    capsys.readouterr()
    assert warnings.showwarning is before
