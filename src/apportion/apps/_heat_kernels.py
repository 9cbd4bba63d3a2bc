"""Numba kernels of the explicit 2-D heat equation (5-point stencil; seed 002 ch. 5–6)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def heat_step(current, out, r):
    """One explicit step on a padded block: current is (h+2, w+2) with a one-cell halo ring, `out` (h, w)
    receives u + r·(north + south + west + east − 4u) for the interior. Returns `out`."""
    h, w = out.shape
    for i in range(h):
        for j in range(w):
            centre = current[i + 1, j + 1]
            out[i, j] = centre + r * (current[i, j + 1] + current[i + 2, j + 1] + current[i + 1, j]
                                      + current[i + 1, j + 2] - 4.0 * centre)
    return out


@njit(cache=True, nogil=True)
def heat_steps_reference(u, boundary, r, steps):
    """`steps` steps of the whole grid with a fixed boundary value outside it (the single-device reference)."""
    rows, cols = u.shape
    padded = np.full((rows + 2, cols + 2), boundary)
    padded[1:-1, 1:-1] = u
    out = np.empty_like(u)
    for _ in range(steps):
        heat_step(padded, out, r)
        padded[1:-1, 1:-1] = out
    return padded[1:-1, 1:-1].copy()


def heat_steps_numpy(u: np.ndarray, boundary: float, r: float, steps: int) -> np.ndarray:
    """The same with NumPy slicing (the independent reference the tests compare against)."""
    padded = np.full((u.shape[0] + 2, u.shape[1] + 2), boundary, dtype=np.float64)
    padded[1:-1, 1:-1] = u
    for _ in range(steps):
        centre = padded[1:-1, 1:-1]
        new = centre + r * (padded[:-2, 1:-1] + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:] - 4 * centre)
        padded[1:-1, 1:-1] = new
    return padded[1:-1, 1:-1].copy()
