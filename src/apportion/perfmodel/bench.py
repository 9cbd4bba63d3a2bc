"""Benchmark tables S(w, c) for FPMC (seed 002, §4.2): run a kernel over a grid of workloads and communication
volumes on a device, or ask a simulated device's model; save and load tables as .npz or .json files.

A *case* says what to run for one (w, c): `case(w, c) -> (kernels, args, work)` where `kernels`/`args` run one
iteration on a real device (`device.run(kernels, *args)`), and `work` (a platform `Work`) is what a simulated
device's model prices. The heat application provides `apportion.apps.heat.benchmark_case`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np

from apportion._atomic import atomic_output, atomic_path
from apportion.errors import InputError
from apportion.perfmodel.models import CommunicationSpeed

DEFAULT_SIZES = (1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20)
DEFAULT_COMMS = (0, 256, 1024, 4096, 16384)


def build_table(device, case: Callable, sizes=DEFAULT_SIZES, comms=DEFAULT_COMMS, *, repeats: int = 3,
                kernel: str = "heat") -> CommunicationSpeed:
    """Speeds (work units per second) of `device` at every (size, comm) pair: the best of `repeats` timed runs
    on a real device, the model's time on a simulated one."""
    sizes = np.asarray(sizes, dtype=np.float64)
    comms = np.asarray(comms, dtype=np.float64)
    table = np.empty((sizes.size, comms.size))
    for i, w in enumerate(sizes):
        for j, c in enumerate(comms):
            kernels, args, work = case(int(w), int(c))
            if getattr(device, "is_simulated", False):
                seconds = device.estimate(work).total_s
            else:
                device.run(kernels, *args)  # warm-up (compilation, caches)
                seconds = min(device.run(kernels, *args).timing.total_s for _ in range(max(1, repeats)))
            table[i, j] = w / max(seconds, 1e-12)
    return CommunicationSpeed(sizes, comms, table, name=getattr(device, "name", "device"),
                              meta={"device": getattr(device, "name", "device"), "kernel": kernel,
                                    "simulated": bool(getattr(device, "is_simulated", False)),
                                    "units": "grid points per second; comm in data items per iteration"})


def save_table(model: CommunicationSpeed, path: str | Path) -> None:
    """Write a table atomically: .json (readable) or .npz (by extension)."""
    path = Path(path)
    if path.suffix == ".json":
        data = {"name": model.name, "meta": model.meta, "sizes": model.sizes.tolist(),
                "comms": model.comms.tolist(), "speeds": model.table.tolist()}
        with atomic_output(path, "w") as handle:
            json.dump(data, handle, indent=1)
    elif path.suffix == ".npz":
        with atomic_path(path, ".npz") as tmp:
            np.savez(tmp, sizes=model.sizes, comms=model.comms, speeds=model.table,
                     name=np.array(model.name), meta=np.array(json.dumps(model.meta)))
    else:
        raise InputError("table file must end in .json or .npz", path=str(path))


def load_table(path: str | Path) -> CommunicationSpeed:
    """Read a table written by `save_table` (or by hand in the same JSON layout); InputError names the file."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such table file", path=str(path))
    try:
        if path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            return CommunicationSpeed(data["sizes"], data["comms"], data["speeds"], name=data.get("name", path.stem),
                                      meta=data.get("meta", {}))
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as data:
                return CommunicationSpeed(data["sizes"], data["comms"], data["speeds"], name=str(data["name"]),
                                          meta=json.loads(str(data["meta"])))
    except InputError as error:
        raise error.at(str(path)) from None
    except (KeyError, ValueError, TypeError, OSError) as error:
        raise InputError(f"not a speed table ({type(error).__name__}: {error})", path=str(path)) from None
    raise InputError("table file must end in .json or .npz", path=str(path))
