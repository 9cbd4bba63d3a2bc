"""CLI: grid, perfmodel build/show, stencil — exit codes and JSON keys."""

from __future__ import annotations

import json


def test_grid_json_and_plot(cli, tmp_path):
    plot = tmp_path / "g.png"
    out = cli("grid", "100", "100", "--speeds", "2x10,4x5,5x4,3x5,1x5", "--method", "nphp", "--json",
              "--plot", plot)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for key in ("rectangles", "cut_length", "data_items", "max_messages", "total_messages", "lower_bound",
                "comm_time_s"):
        assert key in data
    assert len(data["rectangles"]) == 29 and data["data_items"] == 2 * data["cut_length"]
    assert plot.stat().st_size > 0


def test_grid_bad_input_exit_2(cli, tmp_path):
    plot = tmp_path / "no.png"
    for args in (["2", "2", "--speeds", "1,1,1,1,1"], ["10", "10", "--speeds", "1,0"],
                 ["10", "10", "--speeds", "a,b"], ["10", "10", "--speeds", "1", "--method", "zz"]):
        out = cli("grid", *args, "--plot", plot)
        assert out.returncode == 2 and "Traceback" not in out.stderr
    assert not plot.exists()


def test_perfmodel_build_show_and_stencil(cli, tmp_path):
    table = tmp_path / "t.json"
    out = cli("perfmodel", "build", "--platform", "seed002", "--device", "gtx650-node0", "-o", table,
              "--sizes", "1000,100000", "--comms", "0,1000")
    assert out.returncode == 0, out.stderr
    shown = cli("perfmodel", "show", table, "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["sizes"] == [1000.0, 100000.0]
    assert cli("perfmodel", "show", tmp_path / "missing.json").returncode == 2
    run = cli("stencil", "heat", "--grid", "32x40", "--steps", "3", "--platform", "seed002", "--model", "cpm",
              "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    for key in ("makespan_s", "imbalance", "areas", "rectangles", "per_iteration", "devices"):
        assert key in data
    assert cli("stencil", "heat", "--grid", "0x4", "--platform", "seed002").returncode == 2
    gauss = cli("stencil", "gauss", "--grid", "12", "--steps", "11", "--platform", "seed002", "--json")
    assert gauss.returncode == 0, gauss.stderr


def test_perfmodel_build_real_device_with_grid_sized_table(cli, tmp_path):
    table = tmp_path / "cpu.json"
    out = cli("perfmodel", "build", "--platform", "auto", "--device", "0", "-o", table, "--grid", "48x48",
              "--processors", "3", "--preset", "fast", "--samples", "2", "--min-sample-s", "0.001",
              "--clock", "cpu", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # w from 48²/(4·3) = 192 to 48² = 2304; c from 0 to 4·48
    assert data["sizes"][0] == 192 and data["sizes"][-1] == 2304 and data["comms"] == [0, 48, 96, 192]
    assert data["options"]["samples"] == 2 and data["options"]["clock"] == "cpu"
    assert data["max_sample_spread"] >= 0
    assert all(v > 0 for row in data["speeds"] for v in row)
    bad = cli("perfmodel", "build", "--platform", "auto", "--device", "0", "-o", tmp_path / "x.json",
              "--statistic", "mean")
    assert bad.returncode == 2


def test_stencil_cpu_clock_and_distributed_simulated_refused(cli):
    run = cli("stencil", "heat", "--grid", "20x24", "--steps", "2", "--platform", "auto", "--clock", "cpu",
              "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["makespan_s"] > 0
    refused = cli("stencil", "gauss", "--grid", "8", "--ray", "--platform", "seed002")
    assert refused.returncode == 2 and "real devices" in refused.stderr


def test_perfmodel_build_measures_every_device_into_one_file_each(cli, tmp_path):
    """Without --device every device is benchmarked (together); -o names one file per device by {device}.
    --kernel gauss prices the elimination step (a simulated GTX650 models it apart from heat)."""
    pattern = str(tmp_path / "t-{device}.json")
    out = cli("perfmodel", "build", "--platform", "seed002", "-o", pattern, "--sizes", "1000,100000",
              "--comms", "0,1000", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    names = ["c2050-node0", "gtx650-node0", "c2050-node1", "gtx650-node1"]
    assert [t["device"] for t in data["tables"]] == names
    assert all((tmp_path / f"t-{name}.json").is_file() for name in names)
    heat = json.loads(cli("perfmodel", "show", tmp_path / "t-gtx650-node0.json", "--json").stdout)
    gauss = cli("perfmodel", "build", "--platform", "seed002", "--device", "gtx650-node0", "--kernel", "gauss",
                "-o", tmp_path / "g.json", "--sizes", "1000,100000", "--comms", "0,1000", "--json")
    assert gauss.returncode == 0, gauss.stderr
    g = json.loads(gauss.stdout)
    assert g["kernel"] == "gauss" and g["speeds"] != heat["speeds"]
    # several devices and no {device} in the name: one line, exit 2, nothing written
    refused = cli("perfmodel", "build", "--platform", "seed002", "-o", tmp_path / "one.json")
    assert refused.returncode == 2 and "{device}" in refused.stderr and not (tmp_path / "one.json").exists()
    twice = cli("perfmodel", "build", "--platform", "seed002", "--device", "0", "--device", "c2050-node0",
                "-o", pattern)
    assert twice.returncode == 2 and "twice" in twice.stderr


def test_perfmodel_calibrate_measures_and_caches(cli, tmp_path):
    out = cli("perfmodel", "calibrate", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["thread_gflops"] > 0 and len(data["samples"]) >= 1
    cached = json.loads(cli("perfmodel", "calibrate", "--show", "--json").stdout)
    assert cached["thread_flops"] == data["thread_flops"] and cached["measured_at"] == data["measured_at"]


def test_perfmodel_fit_writes_a_twin_that_loads_and_refuses_simulated_platforms(cli, tmp_path):
    from apportion.platform import Platform

    real = tmp_path / "real.toml"
    real.write_text('name = "pair"\n[[device]]\nname = "fast"\ntype = "cpu"\n'
                    '[[device]]\nname = "slow"\ntype = "throttled"\nfactor = 2\n')
    twin = tmp_path / "twin.toml"
    out = cli("perfmodel", "fit", "--platform", real, "-o", twin, "--workloads", "pbf", "--bundles", "1,2",
              "--repeats", "1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["devices"] == ["fast", "slow"] and {f["workload"] for f in data["fits"]} == {"pbf"}
    loaded = Platform.load(twin)
    assert [d.name for d in loaded.devices] == ["fast", "slow"] and all(d.is_simulated for d in loaded.devices)
    assert loaded.devices[0].model.sustained_flops("pbf") > 0
    refused = cli("perfmodel", "fit", "--platform", "seed000", "-o", tmp_path / "x.toml")
    assert refused.returncode == 2 and "real devices" in refused.stderr and not (tmp_path / "x.toml").exists()
    assert cli("perfmodel", "fit", "--platform", real, "-o", tmp_path / "x.json").returncode == 2
    assert cli("perfmodel", "fit", "--platform", real, "-o", tmp_path / "y.toml",
               "--workloads", "nope").returncode == 2


def test_device_names_become_one_file_name_component():
    """-o tables/{device}.json with a device named '../escape' or 'node0/gpu' stays in tables/."""
    from apportion.cli.grid_commands import _table_outputs

    class Named:
        def __init__(self, name):
            self.name = name

    outputs = _table_outputs("tables/{device}.json", [Named("../../escape"), Named("node0/gpu"), Named("..")])
    assert outputs == ["tables/.._.._escape.json", "tables/node0_gpu.json", "tables/_...json"]
