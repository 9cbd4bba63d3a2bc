"""Speed models, the FPM bisection and the FPMC loop against brute force; tables on disk."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apportion.errors import InputError
from apportion.partitioning.grid.balance import balance_grid, grid_communication
from apportion.perfmodel import (CommunicationSpeed, ConstantSpeed, FunctionalSpeed, fpm_partition, fpmc_partition,
                                 integer_shares)
from apportion.perfmodel.bench import load_table, save_table

SIZES = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])
COMMS = np.array([0.0, 10.0, 100.0, 1000.0])


def gpu_like(peak: float, saturation: float, per_item: float) -> CommunicationSpeed:
    """Speed rising with workload (a GPU hiding latency) and falling with communication."""
    table = np.empty((SIZES.size, COMMS.size))
    for i, w in enumerate(SIZES):
        for j, c in enumerate(COMMS):
            table[i, j] = w / (w / (peak * (1 - np.exp(-w / saturation))) + c * per_item)
    return CommunicationSpeed(SIZES, COMMS, table)


def test_interpolation_matches_table_points_and_is_linear_between():
    m = gpu_like(100.0, 50.0, 0.01)
    assert m.speed(100.0, 10.0) == pytest.approx(m.table[2, 1])
    mid = m.speed(55.0, 0.0)
    assert mid == pytest.approx(0.5 * (m.table[1, 0] + m.table[2, 0]))
    assert m.speed(1e9, 1e9) == pytest.approx(m.table[-1, -1])  # clamped outside the table
    f = FunctionalSpeed([1, 3], [2.0, 4.0])
    assert f.speed(2) == pytest.approx(3.0)
    assert ConstantSpeed(5).time(10) == pytest.approx(2.0)


@pytest.mark.parametrize("bad", [
    lambda: FunctionalSpeed([1, 1], [1, 2]), lambda: FunctionalSpeed([1, 2], [1, -2]),
    lambda: CommunicationSpeed([1, 2], [0], [[1.0], [0.0]]), lambda: CommunicationSpeed([1, 2], [0], [[1.0]]),
    lambda: ConstantSpeed(0),
])
def test_bad_models_raise(bad):
    with pytest.raises(InputError):
        bad()


@settings(max_examples=30, deadline=None)
@given(peaks=st.lists(st.floats(1.0, 50.0), min_size=2, max_size=3), n=st.integers(20, 60))
def test_fpm_equal_times_and_brute_force(peaks, n):
    models = [FunctionalSpeed(SIZES, p * (1 - np.exp(-SIZES / (10 * (i + 1))))) for i, p in enumerate(peaks)]
    x = fpm_partition(models, n)
    assert x.sum() == pytest.approx(n)
    times = np.array([m.time(v) for m, v in zip(models, x)])
    assert times.max() == pytest.approx(times.min(), rel=1e-5)
    # Brute force over integer allocations: the fractional balance is a lower bound, rounding stays close.
    best = min(max(m.time(v) for m, v in zip(models, alloc))
               for alloc in itertools.product(range(1, n), repeat=len(models) - 1)
               if sum(alloc) < n for alloc in [(*alloc, n - sum(alloc))])
    assert times.max() <= best * (1 + 1e-6)
    rounded = integer_shares(x, n)
    assert rounded.sum() == n
    rounded_makespan = max(m.time(v) for m, v in zip(models, rounded))
    step = max(m.time(v + 1) - m.time(v) for m, v in zip(models, rounded))
    assert rounded_makespan <= best + step + 1e-9


def test_fpmc_is_close_to_brute_force_and_no_worse_than_fpm():
    # (that FPMC lowers α and beats FPM where communication matters: test_fpmc_quality.py)
    models = [gpu_like(30.0, 20.0, 0.02), gpu_like(10.0, 5.0, 0.01)]
    rows = cols = 16
    n = rows * cols
    communication = grid_communication(rows, cols, "nphp")
    result = fpmc_partition(models, n, communication)
    assert result.areas.sum() == n
    # Brute force over every split of the grid's points between the two processors.
    best = np.inf
    for w in range(1, n):
        areas, comms = communication(np.array([w, n - w], dtype=float))
        best = min(best, max(m.time(a, c) for m, a, c in zip(models, areas, comms)))
    fpmc_makespan = result.times.max()
    assert fpmc_makespan <= best * 1.10
    fpm = balance_grid(rows, cols, models, model="fpm")
    assert fpmc_makespan <= fpm.times.max() * (1 + 1e-9)


def test_balance_grid_models_and_imbalance():
    models = [gpu_like(30.0, 20.0, 0.05), gpu_like(10.0, 5.0, 0.02), gpu_like(10.0, 5.0, 0.02)]
    out = {m: balance_grid(30, 30, models, model=m) for m in ("cpm", "fpm", "fpmc")}
    for b in out.values():
        b.rectangles.validate()
    assert out["fpmc"].imbalance <= out["cpm"].imbalance + 1e-9
    with pytest.raises(InputError):
        balance_grid(30, 30, models, model="magic")


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_table_round_trip(tmp_path, suffix):
    m = gpu_like(100.0, 50.0, 0.01)
    path = tmp_path / f"t{suffix}"
    save_table(m, path)
    back = load_table(path)
    assert np.allclose(back.table, m.table) and np.allclose(back.sizes, m.sizes)


def test_bad_table_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"sizes": [1, 2], "comms": [0], "speeds": [[1]]}')
    with pytest.raises(InputError, match="bad.json"):
        load_table(bad)
    with pytest.raises(InputError):
        load_table(tmp_path / "missing.json")
