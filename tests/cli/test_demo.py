"""`apportion demo` runs every section and writes its pictures."""

from __future__ import annotations

from apportion.cli.main import main
from apportion.demo import sections


def test_demo_runs_every_section_and_writes_pictures(tmp_path, capsys, monkeypatch):
    # the demo needs nothing beside the package: its real graphs are the shipped datasets
    monkeypatch.setenv("APPORTION_GRAPHS", str(tmp_path / "no-such-folder"))
    output = tmp_path / "demo-output"
    assert main(["demo", "-o", str(output)]) == 0
    printed = capsys.readouterr().out
    found = sections()
    assert len(found) >= 6
    for module in found:
        assert module.TITLE.split(":")[0] in printed
    pictures = sorted(p.name for p in output.glob("*.png"))
    # one picture at least per section that draws: graphs, partition, MST, scheduling (2), thresholds, grid,
    # graph runtime
    for expected in ("graphs_degree_distributions.png", "partition_4elt.png", "mst.png",
                     "schedule_simulated_hass.png", "schedule_real_hass.png", "grid_nphp_vs_php.png",
                     "runtime_sssp_4elt.png", "threshold_spmm_4elt.png"):
        assert expected in pictures
    assert all((output / name).stat().st_size > 1000 for name in pictures)
    assert "demo finished" in printed
    assert "the presets on the same request" in printed and "quality" in printed  # the partition section's
    # the graph runtime's section checks its results against the sequential references
    section = " ".join(printed.split("Asynchronous multi-device")[1].split("Grid partitioning")[0].split())
    assert "BFS" in section and "SSSP" in section and section.count("yes") == 2 and " NO " not in section
    assert "matches NumPy" in section
    # the threshold section's split connected components equal SciPy's
    split = " ".join(printed.split("Work split by sampling")[1].split("Asynchronous multi-device")[0].split())
    assert "components match SciPy" in split


def test_demo_only_runs_matching_sections(tmp_path, capsys):
    (tmp_path / "older_run.png").write_bytes(b"a picture of an earlier run")
    assert main(["demo", "-o", str(tmp_path), "--only", "grid"]) == 0
    printed = capsys.readouterr().out
    assert "NPHP" in printed and "HASS" not in printed
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["grid_nphp_vs_php.png", "older_run.png"]
    closing = printed[printed.index("demo finished"):].replace("\n", "")  # rich may wrap a long path
    # the closing line lists what this run drew, not what an earlier run left in the folder
    assert "grid_nphp_vs_php.png" in closing and "older_run" not in closing


def test_warm_up_groups_keep_kernel_sharing_sections_together_and_cover_all():
    from apportion.demo import warm_up_groups

    names = ["graphs", "partition", "mst", "edge", "schedule", "grid"]
    for workers in (1, 2, 3, 4, 8):
        groups = warm_up_groups(names, workers)
        assert sorted(sum(groups, [])) == sorted(names)  # every section exactly once
        assert len(groups) <= max(workers, 1)
        holder = [g for g in groups if "partition" in g]
        assert holder and "edge" in holder[0]  # SPAC uses the vertex partitioner: same worker
        for group in groups:  # each worker keeps demo order
            assert group == [n for n in names if n in group]
    assert warm_up_groups(names, 2) == [["partition", "edge"], ["graphs", "mst", "schedule", "grid"]]
    assert warm_up_groups(["grid", "mst"], 2) == [["grid"], ["mst"]]
    # a shared section with a warm hook also compiles its own kernels in the lighter worker, first, so they are
    # cached before the shared worker reaches that section
    assert warm_up_groups(names, 2, frozenset({"edge"})) == [["partition", "edge"],
                                                             ["edge:warm", "graphs", "mst", "schedule", "grid"]]
    assert warm_up_groups(["partition", "edge"], 2, frozenset({"edge"})) == [["partition", "edge"], ["edge:warm"]]
    assert warm_up_groups(["edge"], 2, frozenset({"edge"})) == [["edge"]]


def test_edge_section_warm_hook_runs(tmp_path):
    import io

    from rich.console import Console

    from apportion.demo import DemoContext, edge

    edge.warm(DemoContext(console=Console(file=io.StringIO()), output=tmp_path))
    assert not list(tmp_path.iterdir())  # compiles only: draws and writes nothing


def test_cold_cache_demo_compiles_in_parallel_then_runs(tmp_path):
    """With an empty Numba cache the demo compiles in worker processes first, then runs warm; a section filter
    keeps it short. The run must still print and draw as usual."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    # two cheap sections, which then compile in two workers
    out = subprocess.run([sys.executable, "-m", "apportion.cli.main", "demo", "-o", str(tmp_path / "o"),
                          "--only", "schedule,grid"], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "compiling apportion's Numba kernels" in out.stdout or (os.cpu_count() or 1) < 2
    assert "HASS" in out.stdout and "NPHP" in out.stdout and "demo finished" in out.stdout
    assert {"schedule_real_hass.png", "grid_nphp_vs_php.png"} <= {p.name for p in (tmp_path / "o").glob("*.png")}
    assert any((tmp_path / "numba-cache").rglob("*.nbi"))


def test_demo_only_matching_nothing_is_bad_input(tmp_path, cli):
    out = cli("demo", "-o", tmp_path / "o", "--only", "nosuch")
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "matches no demo section" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "o").exists()


def test_compile_command_compiles_every_section_once_and_skips_when_cached(monkeypatch, capsys):
    import json

    import apportion.demo as demo

    calls = []
    monkeypatch.setattr(demo, "_compile_in_parallel",
                        lambda chosen, workers: calls.append(([m.__name__ for m in chosen], workers)))
    monkeypatch.setattr(demo, "_kernels_compiled", lambda: False)
    assert main(["compile", "--workers", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["compiled"] is True and result["workers"] == 3
    assert calls == [([m.__name__ for m in sections()], 3)]  # every demo section, in the asked processes

    monkeypatch.setattr(demo, "_kernels_compiled", lambda: True)
    assert main(["compile", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["compiled"] is False
    assert len(calls) == 1  # nothing compiled again
    assert main(["compile", "--force", "--workers", "1"]) == 0
    assert "kernels compiled" in capsys.readouterr().out and len(calls) == 2


def test_compile_command_rejects_zero_workers(capsys):
    assert main(["compile", "--workers", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--workers" in err[0]
