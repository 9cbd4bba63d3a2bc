"""Measured speed of this machine's CPU threads: a short calibrated kernel, cached per machine.

A real CPU device's speed (its `peak_flops`, which static splits "by peak", CPM constants and the graph
runtime's placement read) comes from a measurement, not a nominal figure: `multiply_accumulate` (a dense
multiply-accumulate of known FLOP count, compiled and warmed before timing) runs in the calling thread until
`min_sample_s` of its thread CPU time has passed, a few times over; the best sample's FLOP/s is one thread's
speed. Thread CPU time, not wall time, so that pre-emption by other processes on a loaded machine does not make
the machine look slow; the best sample, so that a cache or frequency hiccup does not either.

The result is cached in `speeds.json` under the cache directory — `$APPORTION_CACHE_DIR` when set (tests point
it at a temporary directory), else `$XDG_CACHE_HOME/apportion`, else `~/.cache/apportion` — keyed by the CPU
model and the machine's logical CPU count, so a copied home directory on another machine measures afresh.
`apportion perfmodel calibrate` (or `thread_flops(refresh=True)`) measures again and replaces the entry.

A CPU device of `threads` threads is credited `threads` × one thread's speed (cores of one model; the parallel
kernels scale close to linearly at the sizes apportion hands a device). A `ThrottledDevice` derives its speed
from its inner device's measurement divided by its factor; it is never measured itself.
"""

from __future__ import annotations

import json
import os
import platform as _platform
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from apportion._atomic import atomic_output
from apportion.errors import InputError

CACHE_ENV = "APPORTION_CACHE_DIR"
CACHE_FILE = "speeds.json"
KERNEL_NAME = "multiply_accumulate"
#: the calibration matrices are SIDE × SIDE: 2·SIDE³ = 1.77 MFLOP a run, in L2 on any current core
SIDE = 96

_lock = threading.Lock()
_memory: dict[str, "Calibration"] = {}


@dataclass(frozen=True)
class Calibration:
    """One thread's measured speed on this machine: FLOP/s of the calibration kernel, the machine key it is
    stored under, when it was measured (UNIX seconds) and the sample speeds it came from."""

    thread_flops: float
    key: str
    measured_at: float
    samples: tuple = ()

    def to_dict(self) -> dict:
        return {"thread_flops": self.thread_flops, "key": self.key, "measured_at": self.measured_at,
                "samples": list(self.samples), "kernel": KERNEL_NAME, "side": SIDE}


def cache_dir() -> Path:
    """Where measured speeds are kept: $APPORTION_CACHE_DIR, else $XDG_CACHE_HOME/apportion, else
    ~/.cache/apportion."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "apportion"


def cache_path() -> Path:
    return cache_dir() / CACHE_FILE


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux, else the platform module's processor string)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return _platform.processor() or _platform.machine() or "unknown-cpu"


def machine_key() -> str:
    """The cache key of this machine: CPU model and logical CPU count."""
    return f"{cpu_model()} | {os.cpu_count() or 1} logical CPUs"


def measure_thread_flops(*, timer: Callable[[], float] = time.thread_time, samples: int = 5,
                         min_sample_s: float = 0.05, max_runs: int = 100_000) -> tuple[float, tuple]:
    """One thread's FLOP/s on the calibration kernel, measured now: one untimed run (compilation, caches),
    then `samples` samples, each repeating the kernel until `timer` has advanced `min_sample_s` (or
    `max_runs` runs); returns (the best sample's FLOP/s, every sample's). `timer` is injectable so tests do not
    depend on the clock."""
    from apportion.platform._calibration_kernels import multiply_accumulate

    rng = np.random.default_rng(0)
    a, b = rng.random((SIDE, SIDE)), rng.random((SIDE, SIDE))
    out = np.empty((SIDE, SIDE))
    flops = 2.0 * SIDE ** 3
    multiply_accumulate(a, b, out)  # compile (or load the cache) and warm
    speeds = []
    for _ in range(max(1, int(samples))):
        runs, start = 0, timer()
        elapsed = 0.0
        while runs < max_runs and (runs == 0 or elapsed < min_sample_s):
            multiply_accumulate(a, b, out)
            runs += 1
            elapsed = timer() - start
        speeds.append(flops * runs / max(elapsed, 1e-12))
    return float(max(speeds)), tuple(float(s) for s in speeds)


def _read_cache(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # missing or unreadable: measure again (never fail a run over a cache)
    return data if isinstance(data, dict) else {}


def _from_entry(entry, key: str) -> Calibration | None:
    try:
        value = float(entry["thread_flops"])
    except (TypeError, KeyError, ValueError):
        return None
    if not (np.isfinite(value) and value > 0):
        return None
    return Calibration(value, key, float(entry.get("measured_at", 0.0)), tuple(entry.get("samples", ())))


def calibration(*, refresh: bool = False, measure: Callable[[], tuple[float, tuple]] | None = None) -> Calibration:
    """This machine's calibration: from memory, else from the cache file, else measured now (and stored).

    `refresh=True` measures again and replaces the stored entry. `measure` replaces the measurement (tests
    inject a fake one). A cache that cannot be written (read-only home) is not an error: the value is kept in
    memory for this process."""
    key = machine_key()
    with _lock:
        if not refresh and key in _memory:
            return _memory[key]
        path = cache_path()
        stored = None if refresh else _from_entry(_read_cache(path).get(key), key)
        if stored is not None:
            _memory[key] = stored
            return stored
        value, samples = (measure or measure_thread_flops)()
        result = Calibration(float(value), key, time.time(), tuple(samples))
        _memory[key] = result
        try:
            data = _read_cache(path)
            data[key] = result.to_dict()
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_output(path, "w") as handle:
                json.dump(data, handle, indent=1)
        except (OSError, InputError):
            pass
        return result


def thread_flops(*, refresh: bool = False) -> float:
    """One CPU thread's measured FLOP/s on this machine (cached; see the module docstring)."""
    return calibration(refresh=refresh).thread_flops


def forget() -> None:
    """Drop the in-memory copy (the next call reads the cache file again); for tests."""
    with _lock:
        _memory.clear()
