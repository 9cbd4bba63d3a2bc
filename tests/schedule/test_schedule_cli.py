"""The `apportion schedule` command: JSON keys, Gantt file, errors with exit 2."""

from __future__ import annotations

import json

import pytest


def test_schedule_cli_json_on_simulated_platform(cli, tmp_path):
    gantt = tmp_path / "g.png"
    out = cli("schedule", "matmul", "--platform", "seed000", "--policy", "hass", "--rounds", "4", "--size", "600",
              "--chunks", "60", "--json", "--gantt", gantt)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["policy"] == "hass" and len(data["makespans"]) == 4
    assert data["devices"] == ["xeon-e5540", "tesla-c1060", "quadro-600"]
    assert all(abs(sum(s) - 1) < 1e-9 for s in data["shares"])
    assert data["oracle_makespan"] <= min(data["makespans"]) * (1 + 1e-9)
    assert gantt.read_bytes()[:4] == b"\x89PNG"


def test_schedule_cli_real_devices_compute_and_check(cli, tmp_path):
    platform = tmp_path / "two.toml"
    platform.write_text('[[device]]\nname = "fast"\ntype = "cpu"\n[[device]]\nname = "slow"\ntype = "throttled"\n'
                        'factor = 2\n')
    out = cli("schedule", "textsearch", "--platform", platform, "--policy", "greedy", "--rounds", "2", "--size",
              "0.2", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["result_matches_reference"] is True and data["oracle_makespan"] is None


@pytest.mark.parametrize("args, message", [
    (["matmul", "--policy", "fastest"], "unknown policy"),
    (["sorting"], "unknown workload"),
    (["matmul", "--platform", "missing.toml"], "not found"),
    (["matmul", "--platform", "seed000", "--rounds", "0"], "--rounds"),
    (["matmul", "--platform", "seed000", "--policy", "qilin"], "qilin"),
    (["matmul", "--cluster", "127.0.0.1:1"], "unreachable"),
])
def test_schedule_cli_errors_exit_2(cli, args, message):
    out = cli("schedule", *args)
    assert out.returncode == 2
    assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_schedule_cli_bad_platform_file_names_key(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[device]]\nname = "x"\ntype = "simulated"\npeak_gflops = "fast"\nmemory_bandwidth_gbs = 1\n')
    out = cli("schedule", "matmul", "--platform", bad)
    assert out.returncode == 2 and "device[0].peak_gflops" in out.stderr and str(bad) in out.stderr


def test_schedule_cli_platform_auto_says_when_gpus_are_left_out(monkeypatch, capsys):
    import apportion.platform.platform as platform_module
    from apportion.cli.common import platform_argument

    monkeypatch.setattr(platform_module, "cuda_device_count", lambda: 0)
    monkeypatch.setattr(platform_module, "cupy_available", lambda: False)
    monkeypatch.setattr(platform_module, "nvidia_gpus_present", lambda: 1)
    platform = platform_argument("auto")
    assert [d.kind for d in platform] == ["cpu"]
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("apportion: warning: --platform auto: 1 NVIDIA GPU")
