"""Argument gates shared by every entry point: k, imbalance, seed, thread counts, counts, targets and speeds.

Each gate checks one argument, returns it in the type the code below it wants (a Python int, a float, an
array of shares) and raises `InputError` naming the argument otherwise. `name` is what the message calls the
argument: the library passes its parameter name ("k", "threads"), the command line its flag ("--k",
"--threads"), so a message always names what the user wrote. The gates are the only place these rules live;
docs/cli.md lists the same limits.

This module sits at the bottom layer (it imports only `apportion.errors`, NumPy, and Numba's configuration
when a thread count is checked), so every layer may call it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from apportion.errors import InputError

#: seeds are integers 0 ≤ seed ≤ MAX_SEED: every random choice in apportion derives from the seed inside
#: Numba kernels and NumPy generators in int64 arithmetic that multiplies the seed by small constants, so a
#: 32-bit seed (as METIS's and NumPy's legacy seeds) is what all of them accept
MAX_SEED = 2**32 - 1


def _is_integer(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def integer(value: Any, name: str, *, low: int | None = None, high: int | None = None,
            high_reason: str = "") -> int:
    """`value` as a Python int with low ≤ value ≤ high (either bound optional); InputError naming `name`
    otherwise. `high_reason` says where the upper bound comes from ("the number of vertices")."""
    if not _is_integer(value):
        raise InputError(f"{name} must be an integer, got {value!r}")
    number = int(value)
    if low is not None and number < low:
        raise InputError(f"{name} must be at least {low}, got {number}")
    if high is not None and number > high:
        why = f" ({high_reason})" if high_reason else ""
        raise InputError(f"{name} must be at most {high}{why}, got {number}")
    return number


def check_k(k: Any, limit: int, *, what: str = "vertices", name: str = "k", count: int | None = None) -> int:
    """The number of blocks/parts as an int, 1 ≤ k ≤ limit, where `limit` is the number of `what` (vertices,
    edges, processors, grid points) that are divided; `count`, when given, is that number as the message shows
    it where `limit` was raised to 1 for an empty input (which still takes k = 1)."""
    if not _is_integer(k):
        raise InputError(f"{name} must be an integer, got {k!r}")
    k = int(k)
    if k < 1:
        raise InputError(f"{name} must be at least 1, got {k}")
    if k > limit:
        shown = limit if count is None else count
        extra = f"; with no {what}, {name} can only be 1" if shown == 0 else ""
        raise InputError(f"{name} = {k} is larger than the number of {what} ({shown}){extra}")
    return k


def check_imbalance(imbalance: Any, *, name: str = "imbalance") -> float:
    """The allowed imbalance ε as a float: a finite number ≥ 0."""
    if isinstance(imbalance, (bool, np.bool_)) or not isinstance(imbalance, (int, float, np.integer, np.floating)) \
            or not math.isfinite(imbalance):
        raise InputError(f"{name} must be a finite number, got {imbalance!r}")
    if imbalance < 0:
        raise InputError(f"{name} must be non-negative, got {float(imbalance):g}")
    return float(imbalance)


def check_seed(seed: Any, *, name: str = "seed") -> int:
    """A random seed as an int, 0 ≤ seed ≤ MAX_SEED (2³² − 1)."""
    if not _is_integer(seed):
        raise InputError(f"{name} must be an integer, got {seed!r}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise InputError(f"{name} must be between 0 and {MAX_SEED} (2^32 - 1), got {int(seed)}")
    return int(seed)


def thread_pool_size() -> int:
    """The most threads a Numba kernel (or apportion's chunked kernels) can use in this process."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def check_threads(threads: Any, *, name: str = "threads") -> int | None:
    """A thread count as an int, 1 ≤ threads ≤ the Numba thread pool size (NUMBA_NUM_THREADS: the cores
    by default); None stays None (the caller's current setting)."""
    if threads is None:
        return None
    limit = thread_pool_size()
    if not _is_integer(threads) or not 1 <= int(threads) <= limit:
        raise InputError(f"{name} must be a positive integer between 1 and {limit} (the Numba thread pool "
                         f"size), got {threads!r}")
    return int(threads)


def check_shares(values: Any, k: int | None = None, *, name: str = "targets", allow_zero: bool = False,
                 normalise: bool = True, k_name: str = "k", vector: bool = False) -> np.ndarray:
    """Relative sizes (block targets, processor speeds) as float64 shares.

    `values`: a sequence or array of length k (any length ≥ 1 when k is None); a 2-D (k, c) array holds one
    column per constraint. Every entry must be finite and positive (≥ 0 with `allow_zero`, when every column
    still has a positive entry), and the sum of every column finite. Returns the values divided by their
    column sums (shares summing to 1) when `normalise`, else the values as float64. None with a k gives equal
    shares. `vector`: one value per entry only, returned 1-D (a (k, 1) column is taken as its values; a wider
    2-D array is an InputError instead of k · c values).
    """
    if values is None:
        if k is None:
            raise InputError(f"{name}: need at least one value")
        return np.full(k, 1.0 / k) if normalise else np.ones(k)
    try:
        array = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numbers, got {values!r}") from None
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim > 2 or (vector and array.ndim == 2 and array.shape[1] != 1):
        raise InputError(f"{name} must be a vector (one value each), got shape {array.shape}")
    if vector:
        array = array.reshape(-1)
    if array.shape[0] == 0:
        raise InputError(f"{name}: need at least one value")
    if k is not None and array.shape[0] != k:
        raise InputError(f"{name} has {array.shape[0]} entries but {k_name} = {k}")
    if not np.all(np.isfinite(array)):
        raise InputError(f"{name} must be finite numbers")
    columns = array.reshape(array.shape[0], -1)
    if allow_zero:
        if np.any(columns < 0):
            bad = int(np.flatnonzero((columns < 0).any(axis=1))[0])
            raise InputError(f"{name} must be non-negative; entry {bad} is negative")
        if np.any(columns.max(axis=0) <= 0):
            raise InputError(f"{name} must not all be zero")
    elif np.any(columns <= 0):
        bad = int(np.flatnonzero((columns <= 0).any(axis=1))[0])
        raise InputError(f"{name} must be positive; entry {bad} is {float(columns[bad].min()):g}")
    with np.errstate(over="ignore"):
        sums = columns.sum(axis=0)
    if not np.all(np.isfinite(sums)):
        raise InputError(f"{name}: the values add up to more than the largest float ({np.finfo(np.float64).max:.3g}); "
                         "give smaller relative sizes (only their ratios matter)")
    if not normalise:
        return array
    with np.errstate(under="ignore"):
        shares = array / sums if array.ndim == 2 else array / sums[0]
    if not allow_zero and np.any(shares <= 0):
        bad = int(np.flatnonzero((shares.reshape(shares.shape[0], -1) <= 0).any(axis=1))[0])
        raise InputError(f"{name}: entry {bad} is too small beside the others to be a share in float64 "
                         "(give relative sizes of similar magnitude)")
    return shares


__all__ = ["MAX_SEED", "integer", "check_k", "check_imbalance", "check_seed", "thread_pool_size", "check_threads",
           "check_shares"]
