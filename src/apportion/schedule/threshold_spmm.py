"""Split percentage of the heterogeneous SpMM by sampling (seed 004 §IV-A).

Sample: a principal submatrix A' = A[S, S] of n/4 rows and columns S chosen uniformly at random (kept in
their order, as the split is a row prefix), so each row keeps about a quarter of its nonzeros (§IV-A.a).
Identify: a race: both devices compute A'×A' from the first row on, and the first to finish stops the other;
the work each has done in the time gives the devices' speeds and a first split r0 = the CPU's share of the
speed (§IV-A.b). A finer search follows: Algorithm 2 on the sample every 2 points within 8 of r0, then ±1
around the best (`scan`, the paper's); or (`balance`, ours) the split where the sides finish together, from
r0 (`threshold_common.balance_search`). Extrapolate: r = r'.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from apportion.checks import check_seed
from apportion.errors import InputError
from apportion.schedule._threshold_kernels import principal_submatrix
from apportion.schedule.threshold_common import (SEARCHES, Evaluate, Stopwatch, ThresholdEstimate, balance_search,
                                                 local_search)

#: the sample has n / SAMPLE_DIVISOR rows and columns (the paper's K = 4)
SAMPLE_DIVISOR = 4
#: race(sample) -> (the CPU's share of the speed in percent, seconds the race took)
Race = Callable[[Any], "tuple[float, float]"]


def principal_sample(matrix: sp.csr_matrix, size: int, seed: int = 0) -> sp.csr_matrix:
    """A[S, S] for `size` indices S drawn uniformly without replacement, in their order."""
    rng = np.random.default_rng(seed)
    n = matrix.shape[0]
    chosen = np.sort(rng.choice(n, size=max(1, min(size, n)), replace=False))
    matrix = sp.csr_matrix(matrix)
    indptr, indices, data = principal_submatrix(matrix.indptr, matrix.indices, matrix.data, n, chosen)
    return sp.csr_matrix((data, indices, indptr), shape=(chosen.shape[0], chosen.shape[0]))


def estimate_spmm_threshold(matrix: sp.csr_matrix, evaluate: Evaluate, race: Race, *, simulated: bool,
                            seed: int = 0, scale: float = 1.0, search: str = "scan",
                            host_seconds_per_operation: float | None = None,
                            host_threads: int = 1) -> ThresholdEstimate:
    """Seed 004 §IV-A: sample n/4 × n/4 (times `scale`), race for r0, search finer around it (`search`:
    "scan" or "balance", module docstring); r = r'. Sampling costs the chosen rows' nonzeros and the
    sample's rows."""
    seed = check_seed(seed)
    if search not in SEARCHES:
        raise InputError(f"unknown threshold search {search!r}; choose one of {', '.join(SEARCHES)}")
    watch = Stopwatch(simulated, host_seconds_per_operation, host_threads)
    n = matrix.shape[0]
    size = max(1, min(n, int(round(scale * n / SAMPLE_DIVISOR))))
    # a parallel pass: the n-entry position map, then the chosen rows' nonzeros twice (count, fill)
    sample = watch.host(principal_sample, matrix, size, seed,
                        operations=lambda s: n + s.shape[0] * (1.0 + 2.0 * matrix.nnz / max(n, 1)), parallel=True)
    share, race_seconds = race(sample)
    watch.seconds += race_seconds
    if search == "scan":
        best = local_search(watch, evaluate, sample, share)
    else:
        best = balance_search(watch, evaluate, sample, share)
    return ThresholdEstimate(threshold=float(best), seconds=watch.seconds, method=f"sample-{search}",
                             runs=watch.runs + 1,
                             tried=dict(watch.tried),
                             sample={"rows": sample.shape[0], "nonzeros": int(sample.nnz), "race_share": share,
                                     "input_nonzeros_per_row": matrix.nnz / max(n, 1),
                                     "nonzeros_per_row": sample.nnz / max(sample.shape[0], 1)})
