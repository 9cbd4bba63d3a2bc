"""apportion.platform: devices and platforms (DESIGN.md "platform" layer).

Stable API used by the scheduler and the runtimes:

- `Device` (base), `KernelSet`, `Work`, `Timing`, `Execution`, `LinkCost`, `DeviceFailure`  (device.py)
- `CPUDevice(threads=n)` (cpu.py), `CUDADevice(i)` (cuda.py), `ThrottledDevice(device, factor)` (throttled.py),
  `SimulatedDevice(DeviceModel(...), name)` (simulated.py), `RayDevice(name, threads)` + `connect(address)`
  (ray.py), `FaultyDevice(device, fail_on_call)` (faulty.py, fault injection)
- `calibrate.thread_flops()` / `calibrate.calibration(refresh=...)`: this machine's measured CPU thread speed,
  cached per machine (calibrate.py); a CPUDevice's `peak_flops` comes from it unless given
- `Platform(devices)`, `Platform.detect()`, `Platform.load(path | "seed000" | "seed002" | "seed004")`,
  `platform.save(path)`, `resolve_platform(spec)` (platform.py)

CuPy and Ray themselves are imported only when a CUDA or Ray device is made.

Usage: `device.run(kernels, *args, work=None) -> Execution(result, timing, started, finished)`.
"""

from __future__ import annotations

from apportion.platform.cpu import CPUDevice
from apportion.platform.cuda import CUDADevice
from apportion.platform.device import (KIND_CPU, KIND_GPU, Device, DeviceFailure, Execution, KernelSet, LinkCost,
                                       Timing, Work)
from apportion.platform.faulty import FaultyDevice
from apportion.platform.platform import Platform, resolve_platform
from apportion.platform.ray import RayDevice, connect
from apportion.platform.simulated import DeviceModel, SimulatedDevice
from apportion.platform.throttled import ThrottledDevice


__all__ = ["CPUDevice", "CUDADevice", "Device", "DeviceFailure", "DeviceModel", "Execution", "FaultyDevice",
           "KIND_CPU", "KIND_GPU", "KernelSet", "LinkCost", "Platform", "RayDevice", "SimulatedDevice",
           "ThrottledDevice", "Timing", "Work", "connect", "resolve_platform"]
