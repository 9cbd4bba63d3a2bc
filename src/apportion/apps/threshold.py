"""Seed 004's sampling-based work partitioning, for its three split algorithms: the Python API.

    run_split(app, input, platform, threshold)         -> SplitRun (result, time_s, device_times_s, …)
    find_threshold(app, input, platform, method="sample", seed=0)  -> ThresholdEstimate (threshold, seconds)
    compare_threshold(app, input, platform, ...)       -> the paper's Table I metrics against exhaustive search

`app` is "cc" (§III, Algorithm 1: threshold = the CPU's share of the vertices, percent), "spmm" (§IV,
Algorithm 2: the CPU's share of the work of A×A, percent) or "hh" (§V, Algorithm 3: rows with more than t
nonzeros are the CPU's). `input` is a Graph (cc), a SciPy sparse matrix (spmm, hh), either for either (a graph's
adjacency matrix; a symmetric matrix's graph), or a file path (METIS, Matrix Market, edge list, .npz).
`platform` is a Platform, a platform file, or a shipped name: `local-pair` (two CPU threads, real), `seed004`
(Xeon E5-2650 ×2 + Tesla K40c, simulated from the kernels' operation counts).

Methods: "sample" (the paper's samplers, `apportion.schedule.threshold_cc/_spmm/_hh`), "exhaustive" (every
threshold on the whole input), "static" (the devices' speed ratio), "average" (mean of other inputs' best
thresholds, given as `others`), "hass" (spmm only: the split the project's HASS scheduler settles on over rounds
of the whole product, `apps/hass_spmm.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from apportion import datasets
from apportion._registry import Registry
from apportion.apps.hass_spmm import hass_spmm_threshold
from apportion.apps.split_cc import check_graph, split_connected_components
from apportion.apps.split_common import SIMULATED_CPU_THREADS, DevicePair, SplitRun, device_pair
from apportion.apps.split_hh import row_lengths, split_hh_spmm, threshold_candidates
from apportion.apps.split_spmm import check_square_matrix, race_spmm, split_spmm, work_per_row
from apportion.checks import check_seed, integer
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.io import names_matrix_market, read_graph
from apportion.graph.io._source import is_stdin
from apportion.graph.io.mtx import read_matrix
from apportion.schedule.threshold_baselines import (exhaustive_search, naive_average, naive_static,
                                                    naive_static_row_length)
from apportion.schedule.threshold_cc import DEFAULT_SAMPLER, SAMPLERS, estimate_cc_threshold
from apportion.schedule.threshold_common import (SEARCHES, ThresholdEstimate, paper_metrics, rounds_growth,
                                                 run_time, scaled_parts)
from apportion.schedule.threshold_hh import DEFAULT_SAMPLER as DEFAULT_HH_SAMPLER
from apportion.schedule.threshold_hh import FIT_A, FIT_B, HH_SEARCHES, estimate_hh_threshold
from apportion.schedule.threshold_hh import SAMPLERS as HH_SAMPLERS
from apportion.schedule.threshold_spmm import estimate_spmm_threshold

METHODS = ("sample", "exhaustive", "static", "average", "hass")
#: the samplers each application may choose from (spmm has one, the paper's principal submatrix)
SAMPLER_CHOICES = {"cc": SAMPLERS, "hh": HH_SAMPLERS}
#: how the runs on a sample are compared: by their own time (the paper's) or by the time they predict for the
#: whole input (`scaled_time`); the default is the one measured better (docs/threshold.md)
TIMINGS = ("raw", "scaled")
DEFAULT_TIMING = {"cc": "scaled", "spmm": "scaled", "hh": "scaled"}
DEFAULT_HH_EXTRAPOLATION = "share"
#: how each app searches its sample: cc and spmm the paper's scan or ours, the balance of the sides; hh the
#: paper's descent over row lengths ("climb") or the balance over them (measured in docs/threshold.md)
DEFAULT_SEARCH = {"cc": "balance", "spmm": "balance", "hh": "balance"}
#: whether the scaled timing grows a simulated GPU's transfers by the input's bytes over the sample's (and the
#: rest by the operations): spmm's principal submatrix keeps 1/16 of the nonzeros but 1/64 of the products, and
#: this took its threshold difference on seed004 from 10.3 to 4.6 points; for hh's hashed-row sample it made the
#: estimates worse (118.7 % against 56.9 %: docs/threshold.md), so hh scales everything by the operations; cc's
#: two measures are the same (vertices + edges)
SCALE_TRANSFERS_BY_BYTES = {"cc": False, "spmm": True, "hh": False}
#: which parts (CPU side, GPU side, merge) run in rounds that grow with the log of the vertex count, so that the
#: scaled timing multiplies them by `rounds_growth` (2 for a √n sample): cc's GPU side, Shiloach–Vishkin, needs
#: 2–7 rounds on the whole inputs where their √n samples need 2–3. Measured (docs/threshold.md): threshold and
#: time difference on seed004 24.2 / 24.8 → 15.2 / 16.6, local-pair 17.9 / 37.8 → 15.8 / 21.7 (15 inputs,
#: seeds 0–2). The other parts, and spmm's and hh's row products, do one pass whatever the input's size.
ROUNDS_GROW = {"cc": (False, True, False), "spmm": (False, False, False), "hh": (False, False, False)}
#: most thresholds the exhaustive search of hh runs (distinct row lengths, thinned geometrically beyond)
HH_MAX_CANDIDATES = 96


@dataclass(frozen=True)
class SplitApplication:
    """One split algorithm: how to check its input, run it, and which thresholds exist."""

    name: str
    unit: str
    run: Callable[..., SplitRun]
    percent: bool  # True: threshold 0..100; False: a row length


APPLICATIONS: Registry = Registry("threshold application", {
    "cc": SplitApplication("cc", "% of the vertices on the CPU", split_connected_components, True),
    "spmm": SplitApplication("spmm", "% of the work on the CPU", split_spmm, True),
    "hh": SplitApplication("hh", "nonzeros per row above which a row is the CPU's", split_hh_spmm, False),
})


def prepare_input(app: str, source: Any, format: str | None = None) -> Graph | sp.csr_matrix:
    """The input `app` takes, from a Graph, a SciPy matrix or a file path (`format` as `read_graph`'s; spmm
    and hh read a Matrix Market file as the matrix itself, values and diagonal kept, whatever its compression
    or name, standard input included; InputError naming the problem)."""
    name = APPLICATIONS.canonical(app)
    if isinstance(source, (str, Path)):
        source = _read(name, str(source), format)
    if name == "cc":
        if sp.issparse(source):
            if source.shape[0] != source.shape[1]:
                raise InputError(f"cc: the adjacency matrix must be square, got {source.shape[0]} × {source.shape[1]}")
            pattern = sp.csr_matrix(source, dtype=np.float64)
            pattern = ((pattern + pattern.T) != 0).astype(np.float64).tocsr()
            pattern.setdiag(0)
            pattern.eliminate_zeros()
            source = Graph.from_scipy(pattern)
        return check_graph(source)
    if isinstance(source, Graph):
        if source.n == 0:
            raise InputError(f"{name}: the graph is empty (no vertices)")
        source = source.to_scipy()
    return check_square_matrix(source, name)


def is_matrix_input(app: str, path: str, format: str | None = None) -> bool:
    """Whether `app` reads `path` as a matrix (spmm and hh, a Matrix Market file: `.mtx`, `.mm`, compressed
    or not, or `format="mtx"`) rather than as a graph."""
    return app != "cc" and names_matrix_market(path, format)


def _read(app: str, path: str, format: str | None = None):
    if not is_stdin(path) and not datasets.is_argument(path) and not Path(path).exists():
        raise InputError("no such file", path=path)
    if is_matrix_input(app, path, format):
        matrix = read_matrix(path)  # gzip, bzip2, xz by content; standard input
        if matrix.shape[0] != matrix.shape[1]:
            raise InputError(f"{app}: A×A needs a square matrix, got {matrix.shape[0]} × {matrix.shape[1]}",
                             path=path)
        return matrix
    return read_graph(path, format=format)


def _pair(platform: Any) -> DevicePair:
    return platform if isinstance(platform, DevicePair) else device_pair(platform)


def _check_threshold(app: SplitApplication, threshold: Any) -> float:
    if app.percent:
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.integer, np.floating)):
            raise InputError(f"threshold: a number from 0 to 100 (% on the CPU), got {threshold!r}")
        return float(threshold)  # the algorithm checks 0..100 (and NaN)
    if isinstance(threshold, float) and threshold.is_integer():
        threshold = int(threshold)
    return float(integer(threshold, "threshold", low=0))


def run_split(app: str, input: Any, platform: Any, threshold: float) -> SplitRun:
    """Run split algorithm `app` on `input` with `threshold` on `platform` (module docstring)."""
    application = APPLICATIONS[app]
    data = prepare_input(application.name, input)
    pair = _pair(platform)
    return application.run(data, _check_threshold(application, threshold), None, pair=pair)


def candidates(app: str, data: Any) -> np.ndarray:
    """The thresholds the exhaustive search runs: 0..100 for cc and spmm; for hh 0 and the distinct row
    lengths (every one up to 32, then about 10 % apart, at most HH_MAX_CANDIDATES)."""
    if APPLICATIONS[app].percent:
        return np.arange(101, dtype=float)
    distinct = threshold_candidates(data)
    if distinct.shape[0] <= HH_MAX_CANDIDATES:
        return distinct.astype(float)
    grid = np.unique(np.round(np.geomspace(1, distinct[-1], HH_MAX_CANDIDATES - 32)))
    picked = distinct[np.maximum(0, np.searchsorted(distinct, grid, side="right") - 1)]
    return np.unique(np.concatenate((distinct[distinct <= 32], picked))).astype(float)


def equivalent_threshold(app: str, data: Any, threshold: float) -> float:
    """The threshold of the exhaustive search's grid that makes the same split as `threshold` (cc, spmm: the
    nearest whole percent; hh: the largest row length ≤ t, which splits the rows alike)."""
    if APPLICATIONS[app].percent:
        return float(min(100, max(0, round(threshold))))
    distinct = threshold_candidates(data)
    return float(distinct[max(0, int(np.searchsorted(distinct, threshold, side="right")) - 1)])


def input_size(app: str, data: Any) -> float:
    """What a run's size-dependent time is proportional to: vertices + edges (cc), products + rows (spmm, hh)."""
    if APPLICATIONS[app].name == "cc":
        return float(data.n + data.m)
    return float(work_per_row(data).sum() + data.shape[0])


def vertices_of(app: str, data: Any) -> int:
    """The vertex count (cc) or row count (spmm, hh) of an input or a sample."""
    return int(data.n) if APPLICATIONS[app].name == "cc" else int(data.shape[0])


def input_bytes(app: str, data: Any) -> float:
    """What a run's transfers are proportional to: vertices + edges (cc), nonzeros + rows (spmm, hh)."""
    if APPLICATIONS[app].name == "cc":
        return float(data.n + data.m)
    return float(data.nnz + data.shape[0])


def host_seconds_per_operation(pair: DevicePair) -> float | None:
    """On a simulated pair, the seconds one host operation (a random memory access: sampling) takes on one
    thread of the simulated CPU (its cc rate, which is random access too, over its threads); None on real
    devices, whose host steps are timed."""
    if not pair.simulated:
        return None
    rate = pair.cpu.model.sustained_flops("cc") / SIMULATED_CPU_THREADS
    return 1.0 / rate


_FIXED_COSTS: dict[tuple[int, str], tuple[float, float, float]] = {}


def fixed_costs(app: str, pair: DevicePair) -> tuple[float, float, float]:
    """Each part's time (CPU side, GPU side, merge) with next to no work: the algorithm on a 2-vertex input
    with both sides busy (fastest of 3 on real devices). Measured once per device pair."""
    application = APPLICATIONS[app]
    key = (id(pair), application.name)
    if key not in _FIXED_COSTS:
        if application.name == "cc":
            tiny, threshold = Graph.from_edges(np.array([0]), np.array([1]), n=3), 50.0
        else:
            tiny = sp.csr_matrix(np.array([[1.0, 1.0], [0.0, 1.0]]))
            threshold = 50.0 if application.percent else 1.0
        best = None
        for _ in range(1 if pair.simulated else 3):
            run = application.run(tiny, threshold, None, pair=pair)
            parts = (run.device_times_s[pair.cpu.name], run.device_times_s[pair.gpu.name], run.device_times_s["merge"])
            best = parts if best is None else tuple(min(a, b) for a, b in zip(best, parts))
        _FIXED_COSTS[key] = best
    return _FIXED_COSTS[key]


def find_threshold(app: str, input: Any, platform: Any, method: str = "sample", seed: int = 0, *,
                   sampler: str | None = None, scale: float = 1.0, others=None, repeats: int = 1,
                   timing: str | None = None, hh_fit: tuple[float, float] | None = None,
                   extrapolation: str | None = None, search: str | None = None) -> ThresholdEstimate:
    """Estimate the threshold of `app` on `input` for `platform` by `method` (module docstring).

    sampler: cc "induced" (the paper's) or "walk" (default, `threshold_cc.DEFAULT_SAMPLER`); hh "hashed" (the
    paper's) or "ranked" (default, `threshold_hh.DEFAULT_SAMPLER`); not spmm (its sample is the paper's). scale: the
    sample size as a multiple of the paper's (√n vertices, n/4 rows, √n rows). others: "average"'s best
    thresholds of the other inputs. repeats: runs per threshold (the fastest counts), for noisy real devices.
    timing: "raw" (compare the sample's runs by their time, the paper's) or "scaled" (by the time they predict
    for the whole input, `scaled_time`); default DEFAULT_TIMING[app]. hh_fit: (a, b) of hh's extrapolation
    t = a·t'^b (default the shipped fit, `threshold_hh.FIT_A`, `FIT_B`). extrapolation: hh only, "fit"
    (t = a·t'^b) or "share" (the same CPU share of the products; default DEFAULT_HH_EXTRAPOLATION).
    search: cc and spmm "scan" (the paper's) or "balance" (where the sides finish together); hh "climb" (the
    paper's) or "balance"; default DEFAULT_SEARCH[app]. Returns a ThresholdEstimate: `threshold`, `seconds`
    spent, runs, the thresholds tried, sample statistics."""
    application = APPLICATIONS[app]
    if method not in METHODS:
        raise InputError(f"unknown threshold method {method!r}; choose one of {', '.join(METHODS)}")
    seed = check_seed(seed)
    repeats = integer(repeats, "repeats", low=1)
    data = prepare_input(application.name, input)
    pair = _pair(platform)

    warm: set[int] = set()

    def fastest_run(sample, threshold):
        if not pair.simulated and id(sample) not in warm:
            # the first run on an input is slower (its arrays cold in the caches: about 1.5× on a sample of
            # 100 vertices); a search that starts mid-range would build its bracket on it. Its time is counted.
            warm.add(id(sample))
            application.run(sample, threshold, None, pair=pair)
        return min((application.run(sample, threshold, None, pair=pair) for _ in range(repeats)),
                   key=lambda run: run.time_s)

    def parts_of(run):
        return (run.device_times_s[pair.cpu.name], run.device_times_s[pair.gpu.name], run.device_times_s["merge"])

    def evaluate(sample, threshold):
        run = fastest_run(sample, threshold)
        return run.time_s, run.time_s, parts_of(run)

    timing = DEFAULT_TIMING[application.name] if timing is None else timing
    if timing not in TIMINGS:
        raise InputError(f"unknown timing {timing!r}; choose one of {', '.join(TIMINGS)}")
    if method == "exhaustive":
        return exhaustive_search(data, evaluate, candidates(app, data), simulated=pair.simulated)
    if method == "static":
        share = pair.speed_ratio()
        if application.percent:
            return naive_static(share)
        lengths = row_lengths(data)
        through = np.bincount(data.indices, minlength=data.shape[0]) * lengths
        return naive_static_row_length(lengths, through, share)
    if method == "hass":
        if application.name != "spmm":
            raise InputError(f"method hass needs a divisible workload: spmm, not {application.name}")
        return hass_spmm_threshold(data, pair)
    if method == "average":
        if others is None:
            raise InputError("method average needs the best thresholds of other inputs (others=…, --others)")
        return naive_average(others)
    if extrapolation is not None and application.name != "hh":
        raise InputError(f"extrapolation applies to hh only, not {application.name}")
    if sampler is not None:
        if application.name not in SAMPLER_CHOICES:
            raise InputError(f"sampler applies to cc and hh only, not {application.name}")
        SAMPLER_CHOICES[application.name].canonical(sampler)
    searches = HH_SEARCHES if application.name == "hh" else SEARCHES
    if search is not None and search not in searches:
        raise InputError(f"unknown threshold search {search!r} for {application.name}; choose one of "
                         f"{', '.join(searches)}")
    on_sample = evaluate
    if timing == "scaled":
        fixed = fixed_costs(application.name, pair)
        whole = input_size(application.name, data)
        whole_bytes = input_bytes(application.name, data)
        factors: dict[int, tuple[float, float | None, tuple]] = {}

        def on_sample(sample, threshold):
            if id(sample) not in factors:
                by_bytes = whole_bytes / max(input_bytes(application.name, sample), 1.0) \
                    if SCALE_TRANSFERS_BY_BYTES[application.name] else None
                growth = rounds_growth(vertices_of(application.name, data), vertices_of(application.name, sample))
                rounds = tuple(growth if grows else 1.0 for grows in ROUNDS_GROW[application.name])
                factors[id(sample)] = (whole / max(input_size(application.name, sample), 1.0), by_bytes, rounds)
            run = fastest_run(sample, threshold)
            # a simulated run knows its own fixed part (its SV rounds' launches, its links' latencies) and its
            # transfers, which grow with the input's bytes rather than with its operations
            factor, bytes_factor, rounds = factors[id(sample)]
            predicted = scaled_parts(parts_of(run), run.details.get("fixed_s", fixed), factor,
                                     run.details.get("transfer_s"), bytes_factor, rounds)
            return run.time_s, run_time(predicted), predicted

    host = {"simulated": pair.simulated, "seed": seed, "scale": scale,
            "host_seconds_per_operation": host_seconds_per_operation(pair),
            "host_threads": SIMULATED_CPU_THREADS if pair.simulated else 1}
    if application.name == "cc":
        estimate = estimate_cc_threshold(data, on_sample, sampler=sampler or DEFAULT_SAMPLER,
                                         search=search or DEFAULT_SEARCH["cc"], **host)
    elif application.name == "spmm":
        estimate = estimate_spmm_threshold(data, on_sample, lambda sample: race_spmm(sample, pair),
                                           search=search or DEFAULT_SEARCH["spmm"], **host)
    else:
        a, b = hh_fit if hh_fit is not None else (FIT_A, FIT_B)
        estimate = estimate_hh_threshold(data, on_sample, a=a, b=b, sampler=sampler or DEFAULT_HH_SAMPLER,
                                         extrapolation=extrapolation or DEFAULT_HH_EXTRAPOLATION,
                                         search=search or DEFAULT_SEARCH["hh"], **host)
    estimate.method += f" ({timing})"
    return estimate


def compare_threshold(app: str, input: Any, platform: Any, method: str = "sample", seed: int = 0, *,
                      exhaustive: ThresholdEstimate | None = None, **options) -> dict:
    """The estimate of `method` against the exhaustive search (run here unless given): Table I's metrics
    (`paper_metrics`), the exhaustive search's own time (`exhaustive_s`), and the curve (`curve`: threshold →
    seconds). The run time at the estimate is the curve's at the equivalent threshold."""
    application = APPLICATIONS[app]
    data = prepare_input(application.name, input)
    pair = _pair(platform)
    estimate = find_threshold(app, data, pair, method, seed, **options)
    if exhaustive is None:
        exhaustive = find_threshold(app, data, pair, "exhaustive", seed, repeats=options.get("repeats", 1))
    curve = exhaustive.tried
    at = equivalent_threshold(app, data, estimate.threshold)
    if at not in curve:
        curve = dict(curve)
        curve[at] = application.run(data, at, None, pair=pair).time_s
    metrics = paper_metrics(estimate.threshold, exhaustive.threshold, curve[at], curve[exhaustive.threshold],
                            estimate.seconds, relative_threshold=not application.percent)
    return {"app": application.name, "method": estimate.method, "platform": pair.platform_name, **metrics,
            "exhaustive_s": exhaustive.seconds, "runs": estimate.runs, "sample": estimate.sample,
            "curve": {float(k): float(v) for k, v in sorted(curve.items())}}
