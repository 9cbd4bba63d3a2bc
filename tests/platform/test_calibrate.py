"""Measured CPU speeds (apportion.platform.calibrate): cached per machine, refreshed on request, never from the
wall clock in tests (a fake measurement or a fake timer is injected)."""

from __future__ import annotations

import json

import pytest

from apportion.platform import CPUDevice, FaultyDevice, ThrottledDevice
from apportion.platform import calibrate


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder and no in-memory calibration."""
    monkeypatch.setenv(calibrate.CACHE_ENV, str(tmp_path))
    calibrate.forget()
    yield tmp_path
    calibrate.forget()


def fake(value):
    calls = []

    def measure():
        calls.append(value)
        return value, (value,)
    return measure, calls


def test_measured_once_then_read_from_the_cache_and_refreshed_on_request(cache):
    first, first_calls = fake(3e9)
    assert calibrate.calibration(measure=first).thread_flops == 3e9
    stored = json.loads((cache / calibrate.CACHE_FILE).read_text())
    assert stored[calibrate.machine_key()]["thread_flops"] == 3e9
    calibrate.forget()  # a new process: the file answers, nothing is measured
    second, second_calls = fake(5e9)
    assert calibrate.calibration(measure=second).thread_flops == 3e9 and not second_calls
    assert calibrate.calibration(refresh=True, measure=second).thread_flops == 5e9 and second_calls == [5e9]
    assert json.loads((cache / calibrate.CACHE_FILE).read_text())[calibrate.machine_key()]["thread_flops"] == 5e9
    assert first_calls == [3e9]


def test_another_machine_measures_afresh_and_keeps_the_first_entry(cache, monkeypatch):
    calibrate.calibration(measure=fake(3e9)[0])
    monkeypatch.setattr(calibrate, "cpu_model", lambda: "Some Other CPU")
    calibrate.forget()
    other, calls = fake(7e9)
    assert calibrate.calibration(measure=other).thread_flops == 7e9 and calls == [7e9]
    assert len(json.loads((cache / calibrate.CACHE_FILE).read_text())) == 2


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"KEY": {"thread_flops": -1}}'])
def test_an_unreadable_cache_is_measured_again(cache, content):
    (cache / calibrate.CACHE_FILE).write_text(content.replace("KEY", calibrate.machine_key()))
    measure, calls = fake(4e9)
    assert calibrate.calibration(measure=measure).thread_flops == 4e9 and calls == [4e9]


def test_devices_take_their_speed_from_the_measurement(cache, monkeypatch):
    monkeypatch.setattr(calibrate, "measure_thread_flops", lambda: (2e9, (2e9,)))
    one, two = CPUDevice(1), CPUDevice(2)
    assert one.peak_flops == 2e9 and two.peak_flops == 4e9 and one.describe()["speed"] == "measured"
    throttled = ThrottledDevice(CPUDevice(1), 4.0)
    assert throttled.peak_flops == pytest.approx(0.5e9)  # derived from its base measurement
    assert FaultyDevice(throttled, 3).peak_flops == pytest.approx(0.5e9)
    given = CPUDevice(1, peak_flops=9e9)
    assert given.peak_flops == 9e9 and given.describe()["speed"] == "given"


def test_measurement_counts_runs_against_the_timer():
    """A fake timer that advances 10 ms per reading: each sample of ≥ 50 ms is five runs."""
    ticks = iter(range(10_000))
    value, samples = calibrate.measure_thread_flops(timer=lambda: next(ticks) * 0.01, samples=3, min_sample_s=0.05)
    expected = 2.0 * calibrate.SIDE ** 3 * 5 / 0.05
    assert samples == pytest.approx((expected,) * 3) and value == pytest.approx(expected)
