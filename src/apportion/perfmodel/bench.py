"""Benchmark tables S(w, c) for FPM/FPMC (seed 002, §4.2): run a kernel over a grid of workloads and
communication volumes on a device, or ask a simulated device's model; save and load tables as .npz or .json.

A *case* says what to run for one (w, c): `case(w, c) -> (kernels, args, work)` where `kernels`/`args` run one
iteration on a real device (`device.run(kernels, *args)`), and `work` (a platform `Work`) is what a simulated
device's model prices. The heat application provides `apportion.apps.heat.benchmark_case`.

Why the measurement is careful (what went wrong with one timed run per point): a heat step on 10⁴–10⁵ points
takes tens of microseconds, below the scheduler's time slice and close to `time.sleep`'s resolution; a
`ThrottledDevice` sleeps (factor − 1) × the measured run, so a single pre-emption of the inner run is multiplied
by the factor, and a 60 µs sample can come out 10× too slow. The table then says "this device is slower at
w = 10⁵ than at w = 10⁶", FPM follows the noise, and the run is badly balanced. So every table point is
`samples` samples, each sample repeating the kernel until at least `min_sample_s` of device time has passed
(speed = work done / time), after `warmup_runs` untimed runs; the point is the median (or the best) sample.
Knobs live in `BenchOptions` with presets as data (`BENCH_PRESETS`).
"""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from apportion._atomic import atomic_output, atomic_path
from apportion._registry import Registry
from apportion.errors import InputError
from apportion.perfmodel.clock import check_clock, timed_run
from apportion.perfmodel.models import CommunicationSpeed
from apportion.ui import track

DEFAULT_SIZES = (1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20)
DEFAULT_COMMS = (0, 256, 1024, 4096, 16384)
STATISTICS = ("median", "min")


@dataclass(frozen=True)
class BenchOptions:
    """How each table point is measured on a real device.

    warmup_runs: untimed runs before the samples (compilation, page faults, caches).
    samples: timed samples per point; the point's speed is the `statistic` of the sample speeds.
    min_sample_s: each sample repeats the kernel until at least this many seconds of device time accumulate
        (so a sample is never a single tiny run).
    max_runs_per_sample: cap on those repetitions.
    statistic: "median" (robust to pre-emptions in either direction; what a loaded machine delivers) or
        "min" (the fastest sample's time, i.e. the best speed: the device's unloaded capability).
    clock: "wall" (the device's reported time) or "cpu" (thread CPU time × throttle factor; see
        `apportion.perfmodel.clock`), which must match the clock of the run the table is for.
    concurrent: when several devices are benchmarked together (`build_tables`), each sample round runs all
        of them at the same time, one thread each, as the stencil runtime does; devices that share cores,
        caches and memory bandwidth (CPU devices on one host) are then measured under the interference they
        will meet in the run (the in-situ benchmarking of FPMs for multicores, Zhong–Rychkov–Lastovetsky).
        False measures them one after another (still interleaved).
    """

    warmup_runs: int = 2
    samples: int = 5
    min_sample_s: float = 0.02
    max_runs_per_sample: int = 10_000
    statistic: str = "median"
    clock: str = "wall"
    concurrent: bool = True

    def __post_init__(self):
        if self.warmup_runs < 0 or self.samples < 1 or self.max_runs_per_sample < 1:
            raise InputError("bench options: warmup_runs ≥ 0, samples ≥ 1 and max_runs_per_sample ≥ 1")
        if not (math.isfinite(self.min_sample_s) and self.min_sample_s >= 0):
            raise InputError(f"bench options: min_sample_s must be ≥ 0, got {self.min_sample_s}")
        if self.statistic not in STATISTICS:
            raise InputError(f"bench options: statistic must be one of {', '.join(STATISTICS)}, "
                             f"got {self.statistic!r}")
        check_clock(self.clock)


BENCH_PRESETS: Registry[BenchOptions] = Registry("bench preset", {
    "fast": BenchOptions(warmup_runs=1, samples=3, min_sample_s=0.005),
    "default": BenchOptions(),
    "strong": BenchOptions(warmup_runs=3, samples=9, min_sample_s=0.05),
})


def bench_options(preset: str = "default", **overrides) -> BenchOptions:
    """The named preset with some fields replaced (None values are ignored)."""
    base = asdict(BENCH_PRESETS[preset])
    base.update({k: v for k, v in overrides.items() if v is not None})
    return BenchOptions(**base)


def workload_grid(n: int, p: int, *, points: int = 6, halo_lines: tuple = (0, 1, 2, 4)):
    """A (sizes, comms) grid suited to partitioning `n` points among `p` processors: sizes geometric from
    n/(4p) to n (every share a balanced partition can give, with room for fast/slow devices), comms multiples
    of the side √n (a rectangle's halo is a few of its sides)."""
    n, p = int(n), max(1, int(p))
    if n < 1:
        raise InputError(f"workload grid: n must be ≥ 1, got {n}")
    low = max(1.0, n / (4.0 * p))
    sizes = sorted({int(round(v)) for v in np.geomspace(low, n, max(2, points))})
    side = math.sqrt(n)
    comms = sorted({int(round(k * side)) for k in halo_lines})
    return tuple(sizes), tuple(comms)


def measure_speed(device, kernels, args, w: float, options: BenchOptions) -> tuple[float, np.ndarray]:
    """Speed (work units per second of device time) of `device` running `kernels(*args)` on `w` units, by
    `options`; also returns every sample's speed. Device time is by `options.clock` (a throttled device's
    includes its slowdown either way)."""
    for _ in range(options.warmup_runs):
        device.run(kernels, *args)
    speeds = np.empty(options.samples)
    for s in range(options.samples):
        seconds, runs = 0.0, 0
        while runs < options.max_runs_per_sample and (runs == 0 or seconds < options.min_sample_s):
            seconds += timed_run(device, kernels, args, options.clock)[1]
            runs += 1
        speeds[s] = w * runs / max(seconds, 1e-12)
    # median of speeds; "min" means the minimum time, i.e. the largest speed
    value = float(np.median(speeds)) if options.statistic == "median" else float(speeds.max())
    return value, speeds


def _warm_and_sample(device, kernels, args, w: float, once: BenchOptions, warmup_runs: int) -> float:
    for _ in range(warmup_runs):
        device.run(kernels, *args)
    return measure_speed(device, kernels, args, w, once)[0]


def build_table(device, case: Callable, sizes=DEFAULT_SIZES, comms=DEFAULT_COMMS, *,
                options: BenchOptions | None = None, repeats: int | None = None,
                kernel: str = "heat") -> CommunicationSpeed:
    """Speeds (work units per second) of `device` at every (size, comm) pair (§4.2): on a real device measured
    by `options` (default preset; `repeats` overrides `options.samples`), on a simulated one the model's time.

    The table's `meta` records the options and the largest relative spread of a point's samples
    ((max − min)/median), so a noisy table can be recognised."""
    return build_tables([device], case, sizes, comms, options=options, repeats=repeats, kernel=kernel)[0]


def build_tables(devices, case: Callable, sizes=DEFAULT_SIZES, comms=DEFAULT_COMMS, *,
                 options: BenchOptions | None = None, repeats: int | None = None,
                 kernel: str = "heat") -> list[CommunicationSpeed]:
    """One table per device, measured *interleaved* and, by default (`options.concurrent`), *concurrently*: for
    each workload, sample round after sample round, every (comm, device) pair takes one sample, and the devices
    take theirs at the same time, one thread each (warm-up runs included), as they will run in the
    application. Devices sharing cores, caches and memory bandwidth are then measured under the contention they
    will meet (a device measured alone looks faster than it is beside the others), and a change of the
    machine's load during the benchmark hits every device alike. Simulated devices answer from their models."""
    devices = list(devices)
    options = options or BENCH_PRESETS["default"]
    if repeats is not None:
        options = bench_options("default", **{**asdict(options), "samples": int(repeats)})
    sizes = np.asarray(sizes, dtype=np.float64)
    comms = np.asarray(comms, dtype=np.float64)
    p = len(devices)
    simulated = [bool(getattr(d, "is_simulated", False)) for d in devices]
    tables = np.empty((p, sizes.size, comms.size))
    samples = np.zeros((p, sizes.size, comms.size, options.samples))
    once = BenchOptions(warmup_runs=0, samples=1, min_sample_s=options.min_sample_s,
                        max_runs_per_sample=options.max_runs_per_sample, clock=options.clock)
    real = [d for d in range(p) if not simulated[d]]
    together = options.concurrent and len(real) > 1
    pool = ThreadPoolExecutor(max_workers=len(real)) if together else None
    try:
        for i, w in enumerate(track(sizes, "workloads measured")):
            cases = [case(int(w), int(c)) for c in comms]
            for d in range(p):
                if simulated[d]:
                    for j, (_, _, work) in enumerate(cases):
                        tables[d, i, j] = w / max(devices[d].estimate(work).total_s, 1e-12)
            for s in range(options.samples):
                for j, (kernels, args, _) in enumerate(cases):
                    if together:
                        # every device at once, one thread each, as they will run; each gets its own copy of the
                        # arguments (they write their output arrays)
                        own = [args] + [tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
                                        for _ in real[1:]]
                        warm = options.warmup_runs if s == 0 else 0
                        speeds = list(pool.map(lambda k: _warm_and_sample(devices[real[k]], kernels, own[k],
                                                                           float(w), once, warm),
                                               range(len(real))))
                    else:
                        warm = options.warmup_runs if s == 0 else 0
                        speeds = [_warm_and_sample(devices[d], kernels, args, float(w), once, warm) for d in real]
                    for k, d in enumerate(real):
                        samples[d, i, j, s] = speeds[k]
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    out = []
    for d, device in enumerate(devices):
        meta = {"device": getattr(device, "name", "device"), "kernel": kernel, "simulated": simulated[d],
                "units": "grid points per second; comm in data items per iteration"}
        if not simulated[d]:
            per_point = samples[d]
            tables[d] = np.median(per_point, axis=-1) if options.statistic == "median" else per_point.max(axis=-1)
            spread = (per_point.max(axis=-1) - per_point.min(axis=-1)) / np.median(per_point, axis=-1)
            meta["options"] = asdict(options)
            meta["max_sample_spread"] = float(spread.max())
            meta["median_sample_spread"] = float(np.median(spread))
        out.append(CommunicationSpeed(sizes, comms, tables[d], name=getattr(device, "name", "device"), meta=meta))
    return out


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
