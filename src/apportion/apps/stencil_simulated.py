"""Simulated devices at the scale of a stencil kernel (seed 002 §6.3): an adapter on the stencil side.

The shipped simulated GPUs (apportion.platform) saturate at `saturation_flops` of 0.15–0.3 GFLOP, the scale
of seed 000's dense kernels, where one thread does thousands of FLOPs. A 5-point heat step does 6 FLOPs per
point with one thread per point, so with those models a 4096² step (10⁸ FLOPs in all) runs at 10–30 % of the
sustained rate on every GPU: the time per step is then nearly independent of the work (t ≈ saturation /
sustained), FPM's assumption that time grows with work fails, and "heterogeneous vs homogeneous" compares
mostly fixed per-step costs. A GPU is saturated once its resident threads are all busy — for one point per
thread, `resident_points` points (Fermi C2050: 14 SMs × 1536 threads = 21,504; Kepler GTX650: 2 × 2048 =
4,096; the default 2¹⁵ is of that order). `stencil_devices` returns copies of the simulated GPU devices whose
saturation is `resident_points × flops_per_point`; everything else of the model (peak, efficiency, links,
launch latency) is kept. Non-simulated and CPU-role devices are passed through unchanged. The platform
package is not modified (this is a per-workload view of its devices).
"""

from __future__ import annotations

from dataclasses import replace

from apportion.errors import InputError
from apportion.platform.simulated import SimulatedDevice

DEFAULT_RESIDENT_POINTS = 1 << 15


def stencil_devices(devices, flops_per_point: float, *, resident_points: int | dict = DEFAULT_RESIDENT_POINTS):
    """Devices for a stencil run: simulated GPUs re-modelled to saturate at `resident_points` grid points
    (an int for all, or a dict by device name; missing names keep their model)."""
    out = []
    for device in devices:
        model = getattr(device, "model", None)
        if not getattr(device, "is_simulated", False) or model is None or getattr(model, "role", "") != "gpu":
            out.append(device)
            continue
        points = resident_points.get(device.name) if isinstance(resident_points, dict) else resident_points
        if points is None:
            out.append(device)
            continue
        if not points >= 1:
            raise InputError(f"resident_points must be ≥ 1, got {points}")
        adapted = replace(model, saturation_flops=float(points) * float(flops_per_point))
        out.append(SimulatedDevice(adapted, name=device.name))
    return out
