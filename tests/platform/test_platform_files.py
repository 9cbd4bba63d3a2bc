"""Platform files: shipped platforms, round trips, and errors that name the file and key."""

from __future__ import annotations

import pytest

from apportion.errors import InputError
from apportion.platform import Platform, SimulatedDevice

BASE = '''
name = "t"
[[device]]
name = "cpu"
type = "simulated"
role = "cpu"
peak_gflops = 10.0
memory_bandwidth_gbs = 10.0
'''


@pytest.mark.parametrize("name, count", [("seed000", 3), ("seed002", 4), ("seed004", 2)])
def test_platform_shipped_platforms_load(name, count):
    platform = Platform.load(name)
    assert len(platform) == count and platform.simulated
    assert all(isinstance(d, SimulatedDevice) for d in platform)
    # GPUs bundle and have a link; host CPUs do neither
    for device in platform:
        assert device.bundles == (device.model.role == "gpu")
        assert (device.link is not None) == (device.model.role == "gpu")


def test_platform_round_trip(tmp_path):
    platform = Platform.load("seed000")
    path = tmp_path / "p.toml"
    platform.save(path)
    again = Platform.load(path)
    assert [d.name for d in again] == [d.name for d in platform]
    for a, b in zip(platform, again):
        assert a.model.peak_flops == pytest.approx(b.model.peak_flops)
        assert a.model.saturation_flops == pytest.approx(b.model.saturation_flops)
        assert dict(a.model.efficiency) == pytest.approx(dict(b.model.efficiency))


def test_platform_real_file(tmp_path):
    path = tmp_path / "real.toml"
    path.write_text('[[device]]\nname = "fast"\ntype = "cpu"\n\n[[device]]\nname = "slow"\ntype = "throttled"\n'
                    'factor = 3\n')
    platform = Platform.load(path)
    assert [d.name for d in platform] == ["fast", "slow"] and not platform.simulated
    assert platform[1].factor == 3.0


@pytest.mark.parametrize("edit, key", [
    (lambda t: t.replace("peak_gflops = 10.0", "peak_gflops = -1"), "device[0].peak_gflops"),
    (lambda t: t.replace('role = "cpu"', 'role = "fpga"'), "device[0].role"),
    (lambda t: t.replace('type = "simulated"', 'type = "quantum"'), "device[0].type"),
    (lambda t: t + "colour = 3\n", "device[0]: unknown key"),
    (lambda t: t.replace("memory_bandwidth_gbs = 10.0\n", ""), "device[0].memory_bandwidth_gbs: missing"),
    (lambda t: t.replace('name = "t"', 'name = "t"\nspeed = 1'), "unknown key"),
    (lambda t: t + "efficiency = { default = 2.0 }\n", "device[0].efficiency.default"),
    (lambda t: t + "link = { latency_us = 1.0 }\n", "device[0].link.bandwidth_gbs"),
    (lambda t: t + "[[device]]\nname = \"real\"\ntype = \"cpu\"\n", "mixes simulated and real"),
    (lambda t: t + "peak_gflops = [", "not valid TOML"),
])
def test_platform_file_errors_name_file_and_key(tmp_path, edit, key):
    path = tmp_path / "bad.toml"
    path.write_text(edit(BASE))
    with pytest.raises(InputError) as info:
        Platform.load(path)
    assert str(path) in str(info.value) and key in str(info.value)


@pytest.mark.parametrize("entry, key", [
    ('type = "cpu"\nthreads = inf', "device[0].threads: must be finite"),
    ('type = "cpu"\nthreads = 1.5', "device[0].threads: must be a whole number"),
    ('type = "cpu"\nthreads = 1000', "device[0]: CPUDevice"),  # the device's own check, located
    ('type = "throttled"\nfactor = 0.5', "device[0].factor: must be >= 1"),
    ('type = "throttled"\nfactor = inf', "device[0].factor: must be finite"),
    ('type = "cuda"\nindex = 0.5', "device[0].index: must be a whole number"),
    ('type = "simulated"\npeak_gflops = inf\nmemory_bandwidth_gbs = 1', "device[0].peak_gflops: must be finite"),
    ('type = "simulated"\npeak_gflops = 1\nmemory_bandwidth_gbs = nan', "device[0].memory_bandwidth_gbs"),
    ('type = "simulated"\npeak_gflops = 1\nmemory_bandwidth_gbs = 1\nlaunch_latency_us = inf',
     "device[0].launch_latency_us: must be finite"),
    ('type = "simulated"\npeak_gflops = 1\nmemory_bandwidth_gbs = 1\nsaturation_gflop = { default = inf }',
     "device[0].saturation_gflop.default"),
])
def test_platform_numbers_are_finite_and_whole_where_counted(tmp_path, entry, key):
    """TOML allows inf, nan and fractions: each is refused where it makes no device (issue 11's one line)."""
    path = tmp_path / "bad.toml"
    path.write_text(f"[[device]]\n{entry}\n")
    with pytest.raises(InputError) as info:
        Platform.load(path)
    assert str(info.value).startswith(f"{path}: ") and key in str(info.value)


def test_platform_missing_file_and_no_devices(tmp_path):
    with pytest.raises(InputError, match="not found"):
        Platform.load(tmp_path / "nope.toml")
    path = tmp_path / "empty.toml"
    path.write_text('name = "x"\n')
    with pytest.raises(InputError, match="at least one"):
        Platform.load(path)


def test_platform_detect_has_a_cpu():
    platform = Platform.detect()
    assert platform[0].kind == "cpu" and not platform.simulated


def test_platform_subset():
    platform = Platform.load("seed000")
    sub = platform.subset(["xeon-e5540", "tesla-c1060"])
    assert [d.name for d in sub] == ["xeon-e5540", "tesla-c1060"]
    with pytest.raises(InputError):
        platform.subset(["nope"])
