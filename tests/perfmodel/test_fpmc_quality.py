"""FPMC's point against FPM: on processors whose speed falls with communication, its workloads balance the
times of the realised partition (speeds at each processor's own area and halo) better than FPM's; and the
rounding of fractional workloads, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from apportion.partitioning.grid.balance import balance_grid, grid_communication
from apportion.perfmodel import CommunicationSpeed, fpmc_partition, integer_shares

SIZES = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])
COMMS = np.array([0.0, 10.0, 100.0, 1000.0])


def gpu_like(peak: float, saturation: float, per_item: float) -> CommunicationSpeed:
    """Speed rising with workload and falling with the items exchanged per iteration (per_item s each)."""
    w, c = np.meshgrid(SIZES, COMMS, indexing="ij")
    return CommunicationSpeed(SIZES, COMMS, w / (w / (peak * (1 - np.exp(-w / saturation))) + c * per_item))


# one fast processor that suffers from communication, two slower ones that hardly do
MODELS = [gpu_like(30.0, 20.0, 0.2), gpu_like(10.0, 5.0, 0.01), gpu_like(15.0, 5.0, 0.05)]


def test_fpmc_lowers_alpha_and_beats_fpm_on_communication_bound_processors():
    rows = cols = 30
    result = fpmc_partition(MODELS, rows * cols, grid_communication(rows, cols, "nphp"))
    history = result.alpha_history
    assert len(history) >= 2 and history[1] < history[0]      # the first MAXP pass moves toward the line
    assert min(history) < 0.5 * history[0]                    # and halves α at least (5011 -> 1733 measured)
    fpm = balance_grid(rows, cols, MODELS, model="fpm")
    fpmc = balance_grid(rows, cols, MODELS, model="fpmc")
    # the balance of the realised partitions (times at S(w_i, c_i)): 0.19 for FPM, 0.11 for FPMC as measured
    assert fpmc.imbalance < fpm.imbalance - 0.03
    assert fpmc.times.max() < fpm.times.max()
    assert fpmc.rectangles.areas().sum() == rows * cols


@pytest.mark.parametrize("x, total, expected", [
    ([1.4, 2.9, 5.7], 10, [1, 3, 6]),   # floors 1, 2, 5; the two leftovers to the remainders .9 and .7
    ([1.0, 1.0, 2.0], 10, [3, 2, 5]),   # 2.5, 2.5, 5: tie -> lower index
    ([0.01, 9.99], 10, [1, 9]),         # every processor keeps at least one unit
    ([2.0, 2.0, 2.0], 7, [3, 2, 2]),
])
def test_integer_shares_by_hand(x, total, expected):
    assert integer_shares(x, total).tolist() == expected
