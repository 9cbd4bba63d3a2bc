"""Speed models of a processor (seed 002, ch. 3 and 4): constant (CPM), functional S(x) (FPM), and functional
with communication S(w, c) (FPMC), the last two as benchmarked tables interpolated between their points.

Every model answers `speed(w, c=0)` in work units (grid points) per second for a workload of w units and c
data items exchanged per iteration, and `time(w, c) = w / speed(w, c)`. Outside the table the nearest edge
value is used (no extrapolation).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from apportion.checks import check_shares
from apportion.errors import InputError


def _check_axis(values, what: str) -> np.ndarray:
    a = np.asarray(values, dtype=np.float64).reshape(-1)
    if a.size == 0 or not np.all(np.isfinite(a)):
        raise InputError(f"{what}: need finite values")
    if a.size > 1 and not np.all(np.diff(a) > 0):
        raise InputError(f"{what}: must be strictly increasing")
    return a


@dataclass(frozen=True)
class ConstantSpeed:
    """CPM: a constant speed (eq. 3-1 would weigh compute, bandwidth and memory into this one number)."""

    value: float
    name: str = "cpm"

    def __post_init__(self):
        if np.ndim(self.value) != 0:
            raise InputError(f"constant speed must be one number, got {self.value!r}")
        check_shares(self.value, name="constant speed", normalise=False)

    def speed(self, w: float, c: float = 0.0) -> float:
        return float(self.value)

    def time(self, w: float, c: float = 0.0) -> float:
        return float(w) / self.speed(w, c)


@dataclass(frozen=True)
class FunctionalSpeed:
    """FPM: speed as a function of workload, S(x), piecewise-linear between benchmarked (size, speed) points."""

    sizes: np.ndarray
    speeds: np.ndarray
    name: str = "fpm"

    def __post_init__(self):
        sizes = _check_axis(self.sizes, "FPM sizes")
        speeds = check_shares(self.speeds, sizes.size, name="FPM speeds", normalise=False,
                              k_name="the number of sizes").reshape(-1)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "speeds", speeds)

    def speed(self, w: float, c: float = 0.0) -> float:
        return float(np.interp(w, self.sizes, self.speeds))

    def time(self, w: float, c: float = 0.0) -> float:
        return float(w) / self.speed(w, c)


@dataclass(frozen=True)
class CommunicationSpeed:
    """FPMC: speed as a function of workload and communication, S(w, c), bilinear in a benchmarked table.

    table[i, j] is the speed at sizes[i] work units and comms[j] data items per iteration. `meta` records how the
    table was made (device, kernel, units).
    """

    sizes: np.ndarray
    comms: np.ndarray
    table: np.ndarray
    name: str = "fpmc"
    meta: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        sizes = _check_axis(self.sizes, "FPMC sizes")
        comms = _check_axis(self.comms, "FPMC communication sizes")
        table = np.asarray(self.table, dtype=np.float64)
        if table.shape != (sizes.size, comms.size):
            raise InputError(f"FPMC table: shape {table.shape} does not match {sizes.size} sizes × "
                             f"{comms.size} communication sizes")
        check_shares(table.reshape(-1), name="FPMC table speeds", normalise=False)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "comms", comms)
        object.__setattr__(self, "table", table)

    def speed(self, w: float, c: float = 0.0) -> float:
        w = float(np.clip(w, self.sizes[0], self.sizes[-1]))
        c = float(np.clip(c, self.comms[0], self.comms[-1]))
        i = int(np.clip(np.searchsorted(self.sizes, w) - 1, 0, max(self.sizes.size - 2, 0)))
        j = int(np.clip(np.searchsorted(self.comms, c) - 1, 0, max(self.comms.size - 2, 0)))
        if self.sizes.size == 1:
            row = self.table[0]
        else:
            t = (w - self.sizes[i]) / (self.sizes[i + 1] - self.sizes[i])
            row = (1 - t) * self.table[i] + t * self.table[i + 1]
        if self.comms.size == 1:
            return float(row[0])
        u = (c - self.comms[j]) / (self.comms[j + 1] - self.comms[j])
        return float((1 - u) * row[j] + u * row[j + 1])

    def time(self, w: float, c: float = 0.0) -> float:
        return float(w) / self.speed(w, c)

    def without_communication(self) -> FunctionalSpeed:
        """The FPM slice S(x) = S(x, c_min) (the table's first communication column)."""
        return FunctionalSpeed(self.sizes, self.table[:, 0], name=self.name)


SpeedModel = ConstantSpeed | FunctionalSpeed | CommunicationSpeed


def integer_shares(x, total: int) -> np.ndarray:
    """Round non-negative fractional workloads to integers summing to `total`, each ≥ 1 (largest remainder)."""
    x = np.asarray(x, dtype=np.float64)
    scaled = x * (total / x.sum())
    base = np.maximum(np.floor(scaled).astype(np.int64), 1)
    while base.sum() > total:
        base[np.argmax(base)] -= 1
    remainder = scaled - base
    for i in np.argsort(-remainder, kind="stable")[: total - int(base.sum())]:
        base[i] += 1
    return base
