"""The simulated twin (`perfmodel fit`): fitted from scripted devices whose times follow known lines, so the
fit's answers can be checked exactly and nothing depends on the wall clock."""

from __future__ import annotations

import numpy as np
import pytest

from apportion.errors import InputError
from apportion.perfmodel.fit import fit_line, fit_platform, measure_cases
from apportion.platform import Device, Platform, Timing, Work


class ScriptedDevice(Device):
    """A run of `flops` (args[0]) of `workload` (args[1]) takes latency + flops / rate[workload] seconds, times a
    reproducible noise factor in [1 − noise, 1 + noise]."""

    def __init__(self, name, rates, latency_s, noise=0.0, seed=0):
        super().__init__(name=name)
        self.rates, self.latency_s, self.noise = rates, latency_s, noise
        self.rng = np.random.default_rng(seed)
        self.warm = 0

    def warm_up(self, kernels, *args):
        self.warm += 1
        return 0.0

    def _execute(self, kernels, args):
        flops, workload = args
        seconds = (self.latency_s + flops / self.rates[workload]) * (1 + self.noise * self.rng.uniform(-1, 1))
        return None, Timing(compute_s=seconds)


def cases(workloads=("matmul", "pbf"), sizes=(1e6, 2e6, 4e6, 8e6)):
    kernels = {w: (lambda *a: None) for w in workloads}  # one kernel per workload, as the shipped workloads
    return [(w, kernels[w], (f, w), Work(flops=f, workload=w)) for w in workloads for f in sizes]


def test_fit_line_recovers_rate_and_latency_and_never_a_negative_latency():
    fit = fit_line([1e6, 2e6, 4e6], [1e-4 + 1e6 / 1e9, 1e-4 + 2e6 / 1e9, 1e-4 + 4e6 / 1e9])
    assert fit.rate_flops == pytest.approx(1e9) and fit.latency_s == pytest.approx(1e-4) and fit.residual < 1e-9
    through_origin = fit_line([1e6, 2e6], [0.9e-3, 2.1e-3])  # the free line would cross below zero
    assert through_origin.latency_s == 0.0 and through_origin.rate_flops > 0
    with pytest.raises(InputError):
        fit_line([1e6, 0], [1e-3, 1e-3])


def test_a_twin_of_a_throttled_pair_reproduces_the_3x_ratio_on_every_workload():
    """Fast device and one 3× slower (its own launch latency, so raw time ratios are not 3), ±10 % noise:
    the fitted sustained rates are 3 : 1 within 5 %, and the twin predicts an unmeasured size."""
    fast_rates = {"matmul": 8e9, "pbf": 2e9}
    fast = ScriptedDevice("fast", fast_rates, 50e-6, noise=0.1, seed=1)
    slow = ScriptedDevice("slow", {w: r / 3 for w, r in fast_rates.items()}, 20e-6, noise=0.1, seed=2)
    samples = measure_cases([fast, slow], cases(), repeats=7, clock="wall")
    assert fast.warm == slow.warm == 2  # every kernel warmed on every device before timing
    twin, lines = fit_platform([fast, slow], samples, name="twin")
    assert [d.name for d in twin.devices] == ["fast", "slow"] and all(d.is_simulated for d in twin.devices)
    for workload in ("matmul", "pbf"):
        ratio = (twin.devices[0].model.sustained_flops(workload) / twin.devices[1].model.sustained_flops(workload))
        assert ratio == pytest.approx(3.0, rel=0.05), workload
        assert lines["fast"][workload].rate_flops == pytest.approx(fast_rates[workload], rel=0.05)
    # the twin's time for a size never measured, against the scripted truth
    work = Work(flops=16e6, workload="pbf")
    assert twin.devices[1].estimate(work).total_s == pytest.approx(20e-6 + 16e6 / (2e9 / 3), rel=0.05)


def test_the_twin_is_a_platform_file_that_loads_back(tmp_path):
    devices = [ScriptedDevice("a", {"matmul": 4e9, "textsearch": 1e9}, 1e-5),
               ScriptedDevice("b", {"matmul": 1e9, "textsearch": 5e8}, 1e-5)]
    twin, _ = fit_platform(devices, measure_cases(devices, cases(("matmul", "textsearch")), repeats=2,
                                                  clock="wall"))
    path = tmp_path / "twin.toml"
    twin.save(path)
    loaded = Platform.load(path)
    for original, again in zip(twin.devices, loaded.devices):
        assert again.name == original.name
        for workload in ("matmul", "textsearch", "default"):
            assert again.model.sustained_flops(workload) == pytest.approx(original.model.sustained_flops(workload))
        assert again.model.launch_latency_s == pytest.approx(original.model.launch_latency_s, abs=1e-12)
    assert loaded.devices[1].model.sustained_flops("textsearch") == pytest.approx(5e8, rel=1e-6)
