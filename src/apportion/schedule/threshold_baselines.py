"""Baselines of seed 004's estimators (§III-B.2): exhaustive search, NaiveStatic, NaiveAverage.

- Exhaustive: the split algorithm on the whole input at every candidate threshold; the best is the reference
  of Table I's metrics, and its time is reported apart (the paper leaves it out: it is no practical method).
- NaiveStatic: the CPU's share of the two devices' nominal speed (the paper: their FLOPS ratio). For a
  row-length threshold, the smallest t whose CPU (high-row) share of the work is at most that share.
- NaiveAverage: the mean of the best thresholds of the other inputs (leave-one-out; the paper averages over
  all inputs, the one estimated included, which lets an input's answer leak into its own estimate).
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from apportion.errors import InputError
from apportion.schedule.threshold_common import Evaluate, Stopwatch, ThresholdEstimate, best_of


def exhaustive_search(input_: Any, evaluate: Evaluate, candidates: Sequence[float], *,
                      simulated: bool) -> ThresholdEstimate:
    """Run every candidate on the whole input; `tried` is the whole curve, `seconds` what the search cost."""
    watch = Stopwatch(simulated)
    for t in candidates:
        watch.run(evaluate, input_, float(t))
    return ThresholdEstimate(threshold=float(best_of(watch.tried)), seconds=watch.seconds, method="exhaustive",
                             runs=watch.runs, tried=dict(watch.tried))


def naive_static(cpu_share: float) -> ThresholdEstimate:
    """The CPU's share of the nominal speed (0..1) as a percentage threshold."""
    if not 0.0 <= cpu_share <= 1.0:
        raise InputError(f"cpu share must be in [0, 1], got {cpu_share}")
    return ThresholdEstimate(threshold=float(round(cpu_share * 100.0)), seconds=0.0, method="static")


def naive_static_row_length(lengths: np.ndarray, work: np.ndarray, cpu_share: float) -> ThresholdEstimate:
    """The smallest row length t such that the work through rows longer than t is at most `cpu_share` of all
    (`work[j]`: the products that pass through row j of B)."""
    started = time.perf_counter()
    order = np.argsort(lengths, kind="stable")
    sorted_lengths = lengths[order]
    total = float(work.sum())
    # the work through rows longer than each distinct length
    distinct = np.unique(np.concatenate(([0], sorted_lengths)))
    suffix = np.concatenate((np.cumsum(work[order][::-1])[::-1], [0.0]))
    above = suffix[np.searchsorted(sorted_lengths, distinct, side="right")]
    fits = np.flatnonzero(above <= cpu_share * total + 1e-9)
    t = float(distinct[fits[0]]) if fits.size else float(distinct[-1])
    return ThresholdEstimate(threshold=t, seconds=time.perf_counter() - started, method="static")


def naive_average(best_of_other_inputs: Sequence[float]) -> ThresholdEstimate:
    """The mean of the other inputs' best thresholds."""
    values = [float(v) for v in best_of_other_inputs]
    if not values:
        raise InputError("average: needs the best thresholds of other inputs")
    return ThresholdEstimate(threshold=float(np.mean(values)), seconds=0.0, method="average")
