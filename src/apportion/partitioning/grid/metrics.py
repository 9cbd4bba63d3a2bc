"""Communication metrics of a grid partition under a 5-point stencil (seed 002, §3.1 and §3.5, eq. 3-8).

Computed from the rectangles' edges (no rows × cols array), so they work for any grid size:
- cut_length: total length of boundary shared by pieces of different processors;
- data_items: grid values sent per iteration, 2 × cut_length (each side sends its boundary row);
- messages per processor: the number of other processors it shares a boundary with (it sends one message to
  each per iteration, and receives one); max_messages and total_messages (= Σ);
- area against target; lower_bound Σ 2√target_i, which bounds Σ half-perimeters (h_i + w_i), and
  cut_lower_bound = lower_bound − (rows + cols), which bounds cut_length (Σ half-perimeters − grid's);
- comm_time_s = σ·max C_i + ω·Σ M_i with ω = 1/bandwidth and M_i = items sent by i × item_bytes (eq. 3-8).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from apportion.errors import InputError

DEFAULT_SIGMA_S = 1e-3          # message latency, 1 ms (§3.5)
DEFAULT_BANDWIDTH_BPS = 10e6    # 10 MB/s
DEFAULT_ITEM_BYTES = 4          # one float


@dataclass(frozen=True)
class GridMetrics:
    """Metrics of a `Rectangles` (see the module docstring for definitions)."""

    cut_length: int
    data_items: int
    items_sent: np.ndarray        # (p,) items each processor sends per iteration
    messages: np.ndarray          # (p,) neighbours (messages sent) per processor
    max_messages: int
    total_messages: int
    areas: np.ndarray             # (p,)
    target_areas: np.ndarray      # (p,)
    max_area_deviation: float     # max |area − target|
    area_imbalance: float         # max area/target − 1
    half_perimeter_sum: int
    lower_bound: float
    cut_lower_bound: float
    comm_time_s: float
    sigma_s: float
    bandwidth_bytes_per_s: float
    item_bytes: int

    def to_dict(self) -> dict:
        return {
            "cut_length": self.cut_length, "data_items": self.data_items,
            "max_messages": self.max_messages, "total_messages": self.total_messages,
            "messages": self.messages.tolist(), "items_sent": self.items_sent.tolist(),
            "areas": self.areas.tolist(), "target_areas": self.target_areas.tolist(),
            "max_area_deviation": self.max_area_deviation, "area_imbalance": self.area_imbalance,
            "half_perimeter_sum": self.half_perimeter_sum, "lower_bound": self.lower_bound,
            "cut_lower_bound": self.cut_lower_bound, "comm_time_s": self.comm_time_s,
            "sigma_s": self.sigma_s, "bandwidth_bytes_per_s": self.bandwidth_bytes_per_s,
            "item_bytes": self.item_bytes,
        }


def shared_boundaries(rect) -> np.ndarray:
    """(m, m) int64 matrix: length of the edge pieces a and b share (0 when they do not touch along an edge)."""
    r0, c0 = rect.row, rect.col
    r1, c1 = rect.row + rect.height, rect.col + rect.width
    row_overlap = np.maximum(0, np.minimum(r1[:, None], r1[None, :]) - np.maximum(r0[:, None], r0[None, :]))
    col_overlap = np.maximum(0, np.minimum(c1[:, None], c1[None, :]) - np.maximum(c0[:, None], c0[None, :]))
    touch_lr = (c1[:, None] == c0[None, :]) | (c0[:, None] == c1[None, :])
    touch_tb = (r1[:, None] == r0[None, :]) | (r0[:, None] == r1[None, :])
    return np.where(touch_lr, row_overlap, 0) + np.where(touch_tb, col_overlap, 0)


def boundary_matrix(rect) -> np.ndarray:
    """(p, p) int64 boundary length between every two processors (Numba kernel over piece pairs)."""
    # Numba loads with the first metrics, so naming the grid methods (the CLI's parser) stays cheap
    from apportion.partitioning.grid._metrics_kernels import owner_boundaries

    return owner_boundaries(np.ascontiguousarray(rect.owner, dtype=np.int64),
                            np.ascontiguousarray(rect.row, dtype=np.int64),
                            np.ascontiguousarray(rect.col, dtype=np.int64),
                            np.ascontiguousarray(rect.height, dtype=np.int64),
                            np.ascontiguousarray(rect.width, dtype=np.int64), rect.p)


def comm_time(max_messages: int, data_items: int, sigma: float = DEFAULT_SIGMA_S,
              bandwidth: float = DEFAULT_BANDWIDTH_BPS, item_bytes: int = DEFAULT_ITEM_BYTES) -> float:
    """Modelled communication time per iteration, σ·max C_i + Σ M_i / bandwidth (eq. 3-8)."""
    return float(sigma * max_messages + data_items * item_bytes / bandwidth)


def grid_metrics(rect, *, sigma: float = DEFAULT_SIGMA_S, bandwidth: float = DEFAULT_BANDWIDTH_BPS,
                 item_bytes: int = DEFAULT_ITEM_BYTES) -> GridMetrics:
    """All metrics of `rect` (a `Rectangles`) under the cost model (σ seconds, bandwidth bytes/s)."""
    if not (np.isfinite(sigma) and sigma >= 0):
        raise InputError(f"sigma must be ≥ 0, got {sigma}")
    if not (np.isfinite(bandwidth) and bandwidth > 0):
        raise InputError(f"bandwidth must be > 0, got {bandwidth}")
    if int(item_bytes) < 1:
        raise InputError(f"item bytes must be ≥ 1, got {item_bytes}")
    p = rect.p
    owner_matrix = boundary_matrix(rect)
    cut = int(owner_matrix.sum() // 2)
    items_sent = owner_matrix.sum(axis=1)
    messages = (owner_matrix > 0).sum(axis=1).astype(np.int64)
    areas = rect.areas()
    targets = rect.targets()
    with np.errstate(over="ignore", divide="ignore"):  # a speed of 1e-320 has a target far below one cell
        area_imbalance = float((areas / targets).max() - 1.0) if p else 0.0
    half_perimeters = int((rect.height + rect.width).sum())
    lower = float(2.0 * np.sqrt(targets).sum())
    data_items = 2 * cut
    max_messages = int(messages.max()) if p else 0
    return GridMetrics(
        cut_length=cut, data_items=data_items, items_sent=items_sent, messages=messages,
        max_messages=max_messages, total_messages=int(messages.sum()), areas=areas, target_areas=targets,
        max_area_deviation=float(np.abs(areas - targets).max()),
        area_imbalance=area_imbalance, half_perimeter_sum=half_perimeters,
        lower_bound=lower, cut_lower_bound=lower - (rect.rows + rect.cols),
        comm_time_s=comm_time(max_messages, data_items, sigma, bandwidth, item_bytes),
        sigma_s=float(sigma), bandwidth_bytes_per_s=float(bandwidth), item_bytes=int(item_bytes),
    )
