"""`apportion demo` runs every section and writes its pictures."""

from __future__ import annotations

from apportion.cli.main import main
from apportion.demo import sections


def test_demo_runs_every_section_and_writes_pictures(tmp_path, capsys, graphs_dir, monkeypatch):
    monkeypatch.setenv("APPORTION_GRAPHS", str(graphs_dir))
    output = tmp_path / "demo-output"
    assert main(["demo", "-o", str(output)]) == 0
    printed = capsys.readouterr().out
    found = sections()
    assert len(found) >= 6
    for module in found:
        assert module.TITLE.split(":")[0] in printed
    pictures = sorted(p.name for p in output.glob("*.png"))
    # one picture at least per section that draws: graphs, partition, MST, scheduling (2), grid
    for expected in ("graphs_degree_distributions.png", "partition_4elt.png", "mst.png",
                     "schedule_simulated_hass.png", "schedule_real_hass.png", "grid_nphp_vs_php.png"):
        assert expected in pictures
    assert all((output / name).stat().st_size > 1000 for name in pictures)
    assert "demo finished" in printed


def test_demo_only_runs_matching_sections(tmp_path, capsys):
    assert main(["demo", "-o", str(tmp_path), "--only", "grid"]) == 0
    printed = capsys.readouterr().out
    assert "NPHP" in printed and "HASS" not in printed
    assert [p.name for p in tmp_path.glob("*.png")] == ["grid_nphp_vs_php.png"]
