"""Row-length threshold of HH-CPU (scale-free SpMM) by sampling (seed 004 §V-A).

Sample: √n rows of A chosen uniformly at random, each with all its nonzeros, their column ids mapped into
0..√n-1 by a seeded hash (colliding entries are added), so the sample is a √n × √n matrix whose row lengths
follow A's (up to collisions in long rows) (§V-A.1; `hashed_sample`). The hash sends an entry of a hub's column
to a random sampled row, so the sample loses what makes A×A scale-free: that a long row of B is met by many
entries of A (its column is long too). `ranked_sample` (ours, the default) maps each column instead to a sampled
row of the same length as the column's own row of A (the nearest, ties spread by the hash): the products an
entry of the sample starts are those its entry of A starts. Identify: a descent over the sample's distinct row lengths
from the middle one, moving to the better neighbour while there is one (§V-A.2, `climb`), or (ours, `balance`)
the balance search over them (`balance_over_lengths`). Extrapolate: t = f(t') with
f fitted offline (§V-A.3). The paper's f(t') = t'² comes with no data; ours, t = FIT_A · t'^FIT_B, is fitted by
`fit_extrapolation` on the generated matrices of benchmarks/threshold.py (docs/threshold.md shows the fit).
A second extrapolation needs no fit ("share"): t' gives the CPU a share of the sample's products (those through
rows of B longer than t'); t is the row length that gives the CPU the same share of the input's products.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from apportion._registry import Registry
from apportion.checks import check_seed
from apportion.errors import InputError
from apportion.schedule._threshold_kernels import column_counts
from apportion.schedule.threshold_common import (Evaluate, Stopwatch, ThresholdEstimate, balance_search,
                                                 hill_climb, sample_size)

#: t = FIT_A · t'^FIT_B, fitted by `fit_extrapolation` on 30 (t', t_best) pairs of generated R-MAT and
#: Barabási–Albert matrices on seed004 (docs/threshold.md, "hh: the extrapolation"): R² = 0.02, i.e. t' says
#: next to nothing about t — the law is nearly a constant, which is why "share" is the default extrapolation
FIT_A = 54.524
FIT_B = -0.246


def _sampled_rows(matrix: sp.csr_matrix, rows: int, seed: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """`rows` random rows of A (in id order) and a seeded hash of each of their column ids (int64 ≥ 0)."""
    rng = np.random.default_rng(seed)
    n = matrix.shape[0]
    rows = max(1, min(rows, n))
    chosen = np.sort(rng.choice(n, size=rows, replace=False))
    picked = matrix[chosen]
    salt = np.uint64(rng.integers(1, 2**62))
    with np.errstate(over="ignore"):
        hashed = (picked.indices.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + salt) >> np.uint64(33)
    return picked, hashed.astype(np.int64)


def _square(picked: sp.csr_matrix, columns: np.ndarray) -> sp.csr_matrix:
    rows = picked.shape[0]
    sample = sp.csr_matrix((picked.data, columns, picked.indptr), shape=(rows, rows))
    sample.sum_duplicates()
    return sample


def hashed_sample(matrix: sp.csr_matrix, rows: int, seed: int = 0) -> sp.csr_matrix:
    """`rows` random rows of A with their column ids hashed into 0..rows-1 (§V-A.1)."""
    picked, hashed = _sampled_rows(matrix, rows, seed)
    return _square(picked, hashed % picked.shape[0])


#: the paper's name for its sampler
row_sample = hashed_sample


def ranked_sample(matrix: sp.csr_matrix, rows: int, seed: int = 0) -> sp.csr_matrix:
    """`rows` random rows of A; an entry in column c goes to the sampled row whose length is nearest to row c's
    length in A (among several of that length, the one the column's hash picks), so that each entry of the
    sample meets a row of B as long as the one it meets in A. Costs a lookup of row c's length and a binary
    search among the sampled lengths per entry."""
    picked, hashed = _sampled_rows(matrix, rows, seed)
    count = picked.shape[0]
    own = np.diff(picked.indptr)
    order = np.argsort(own, kind="stable")
    ordered = own[order]
    wanted = np.diff(matrix.indptr)[picked.indices]  # the length of row c of A, for each entry's column c
    first = np.searchsorted(ordered, wanted, side="left")
    last = np.searchsorted(ordered, wanted, side="right")
    below, above = np.clip(first - 1, 0, count - 1), np.clip(first, 0, count - 1)
    nearest = np.where(np.abs(ordered[below] - wanted) <= np.abs(ordered[above] - wanted), below, above)
    position = np.where(last > first, first + hashed % np.maximum(last - first, 1), nearest)
    return _square(picked, order[position].astype(np.int64))


SAMPLERS: Registry = Registry("hh sampler", {"hashed": hashed_sample, "ranked": ranked_sample})
#: measured in docs/threshold.md
DEFAULT_SAMPLER = "ranked"


def extrapolate(t_sample: float, a: float = FIT_A, b: float = FIT_B) -> int:
    """t = a · t'^b, rounded (§V-A.3); t' = 0 (every non-empty row high on the sample) stays 0."""
    if float(t_sample) <= 0.0:
        return 0
    return int(round(a * float(t_sample) ** b))


def fit_extrapolation(sample_thresholds, best_thresholds) -> tuple[float, float, float]:
    """Least squares of log t = log a + b log t' over pairs with t', t > 0: returns (a, b, R²)."""
    x = np.asarray(sample_thresholds, dtype=float)
    y = np.asarray(best_thresholds, dtype=float)
    keep = (x > 0) & (y > 0)
    if keep.sum() < 2:
        raise InputError("fit: needs at least two pairs with positive thresholds")
    lx, ly = np.log(x[keep]), np.log(y[keep])
    b, log_a = np.polyfit(lx, ly, 1)
    predicted = log_a + b * lx
    total = float(((ly - ly.mean()) ** 2).sum())
    r2 = 1.0 - float(((ly - predicted) ** 2).sum()) / total if total > 0 else 1.0
    return float(np.exp(log_a)), float(b), r2


def products_through_rows(matrix: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """(row lengths, products of A×A that pass through each row j of B = A: nnz(column j) · nnz(row j))."""
    lengths = np.diff(matrix.indptr).astype(np.int64)
    return lengths, column_counts(matrix.indices, matrix.shape[0]) * lengths


def cpu_share(matrix: sp.csr_matrix, threshold: float) -> float:
    """The share of A×A's products through rows longer than `threshold` (the CPU's in Algorithm 3)."""
    lengths, through = products_through_rows(matrix)
    total = float(through.sum())
    return float(through[lengths > threshold].sum()) / total if total > 0 else 0.0


def threshold_for_share(matrix: sp.csr_matrix, share: float) -> int:
    """The row length t whose CPU share of the products is closest to `share`."""
    lengths, through = products_through_rows(matrix)
    # products through the rows of each length, then through rows longer than each length (no sort: O(n))
    per_length = np.bincount(lengths, weights=through.astype(np.float64))
    total = float(per_length.sum())
    above = (total - np.cumsum(per_length)) / (total or 1.0)
    present = np.bincount(lengths) > 0
    present[0] = True
    distinct = np.flatnonzero(present)
    return int(distinct[int(np.argmin(np.abs(above[distinct] - share)))])


EXTRAPOLATIONS = ("fit", "share")
#: how the sample's row lengths are searched: the paper's descent, or the balance of the sides over them
HH_SEARCHES = ("climb", "balance")


def balance_over_lengths(watch: Stopwatch, evaluate: Evaluate, sample, candidates) -> float:
    """`threshold_common.balance_search` over the sorted candidate row lengths: a longer threshold makes fewer
    rows high, so the CPU side shrinks and the GPU side grows; the search runs on the candidates' indices with
    the sides swapped (so that its difference grows with the index). Returns the best candidate tried."""
    candidates = [float(c) for c in candidates]
    by_index = Stopwatch(watch.simulated, watch.host_seconds_per_operation, watch.host_threads)

    def at_index(sample_, i):
        outcome = evaluate(sample_, candidates[int(i)])
        cpu, gpu, merge = outcome[2]
        return outcome[0], outcome[1], (gpu, cpu, merge)

    best = balance_search(by_index, at_index, sample, (len(candidates) - 1) / 2.0, low=0, high=len(candidates) - 1)
    watch.seconds += by_index.seconds
    watch.runs += by_index.runs
    watch.tried.update({candidates[int(i)]: score for i, score in by_index.tried.items()})
    return candidates[int(best)]


def estimate_hh_threshold(matrix: sp.csr_matrix, evaluate: Evaluate, *, simulated: bool, seed: int = 0,
                          sampler: str = DEFAULT_SAMPLER, scale: float = 1.0, a: float = FIT_A, b: float = FIT_B,
                          extrapolation: str = "share", search: str = "climb",
                          host_seconds_per_operation: float | None = None, host_threads: int = 1) -> ThresholdEstimate:
    """Seed 004 §V-A: sample `scale`·√n rows with `sampler` ("hashed", the paper's, or "ranked"), descend over
    the sample's row lengths, then t = a·t'^b ("fit") or the t of the same CPU share of the products ("share",
    module docstring)."""
    seed = check_seed(seed)
    if extrapolation not in EXTRAPOLATIONS:
        raise InputError(f"unknown hh extrapolation {extrapolation!r}; choose one of {', '.join(EXTRAPOLATIONS)}")
    watch = Stopwatch(simulated, host_seconds_per_operation, host_threads)
    n = matrix.shape[0]
    draw = SAMPLERS[sampler]
    # a row and its entries; the ranked sampler also reads each entry's row length in A (a random access)
    per_entry = 2.0 if draw is ranked_sample else 1.0
    sample = watch.host(draw, matrix, sample_size(n, scale), seed,
                        operations=lambda s: s.shape[0] * (1.0 + per_entry * matrix.nnz / max(n, 1)))
    lengths = np.diff(sample.indptr)
    candidates = np.unique(np.concatenate(([0], lengths)))
    if search not in HH_SEARCHES:
        raise InputError(f"unknown hh search {search!r}; choose one of {', '.join(HH_SEARCHES)}")
    if search == "climb":
        t_sample = hill_climb(watch, evaluate, sample, candidates)
    else:
        t_sample = balance_over_lengths(watch, evaluate, sample, candidates)
    if extrapolation == "fit":
        threshold = extrapolate(t_sample, a, b)
    else:
        # column counts and the products per row length: two parallel passes over the matrix
        threshold = watch.host(lambda: threshold_for_share(matrix, cpu_share(sample, t_sample)),
                               operations=lambda _t: matrix.nnz + 2.0 * n, parallel=True)
    return ThresholdEstimate(threshold=float(threshold), seconds=watch.seconds,
                             method=f"sample-{SAMPLERS.canonical(sampler)}-{extrapolation}",
                             runs=watch.runs, tried=dict(watch.tried),
                             sample={"rows": sample.shape[0], "nonzeros": int(sample.nnz),
                                     "sample_threshold": float(t_sample),
                                     "largest_row": int(lengths.max()) if lengths.size else 0,
                                     "input_largest_row": int(np.diff(matrix.indptr).max())})
