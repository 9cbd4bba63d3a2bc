"""The shared argument gates (apportion.checks): what they accept, what they refuse, and that each names the
argument; the vertex partitioner's own checks can be swapped for them without changing a message or a share."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from apportion.checks import (MAX_SEED, check_imbalance, check_k, check_seed, check_shares, check_threads,
                              integer)
from apportion.errors import InputError
from apportion.graph.csr import Graph


@pytest.mark.parametrize("call,fragment", [
    (lambda: check_k(0, 10), "k must be at least 1, got 0"),
    (lambda: check_k(11, 10, what="edges"), "k = 11 is larger than the number of edges (10)"),
    (lambda: check_k(2, 1, what="edges", count=0), "k = 2 is larger than the number of edges (0); with no edges, k "
                                                   "can only be 1"),
    (lambda: check_k(2.0, 10), "k must be an integer"),
    (lambda: check_k(True, 10), "k must be an integer"),
    (lambda: check_k(3, 2, name="--k"), "--k = 3 is larger than the number of vertices (2)"),
    (lambda: check_imbalance(-0.5), "imbalance must be non-negative"),
    (lambda: check_imbalance(float("inf")), "imbalance must be a finite number"),
    (lambda: check_imbalance("0.1"), "imbalance must be a finite number"),
    (lambda: check_imbalance(False, name="--imbalance"), "--imbalance must be a finite number"),
    (lambda: check_seed(-1), "seed must be between 0 and 4294967295"),
    (lambda: check_seed(MAX_SEED + 1, name="--seed"), "--seed must be between 0 and 4294967295"),
    (lambda: check_seed(2**70), "seed must be between"),
    (lambda: check_seed(1.5), "seed must be an integer"),
    (lambda: check_threads(0), "threads must be a positive integer between 1 and"),
    (lambda: check_threads(numba.config.NUMBA_NUM_THREADS + 1, name="--threads"),
     f"--threads must be a positive integer between 1 and {numba.config.NUMBA_NUM_THREADS}"),
    (lambda: check_threads(2.0), "threads must be a positive integer"),
    (lambda: check_shares([1, 2], 3), "targets has 2 entries but k = 3"),
    (lambda: check_shares([1, 0], name="--speeds"), "--speeds must be positive; entry 1 is 0"),
    (lambda: check_shares([1, -1]), "targets must be positive; entry 1 is -1"),
    (lambda: check_shares([1, float("nan")]), "finite"),
    (lambda: check_shares([1e308, 1e308], name="--speeds"), "--speeds: the values add up to more than"),
    (lambda: check_shares([1e308, 1e-300]), "entry 1 is too small"),
    (lambda: check_shares([], name="speeds"), "speeds: need at least one value"),
    (lambda: check_shares(["a"]), "targets must be numbers"),
    (lambda: check_shares([0, 0], allow_zero=True), "must not all be zero"),
    (lambda: check_shares([1, -1], allow_zero=True), "must be non-negative; entry 1"),
    (lambda: integer(0, "--rounds", low=1), "--rounds must be at least 1, got 0"),
    (lambda: integer(5, "rounds", high=4, high_reason="the limit"), "rounds must be at most 4 (the limit)"),
])
def test_gates_refuse_with_one_line_naming_the_argument(call, fragment):
    with pytest.raises(InputError) as info:
        call()
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_gates_return_the_plain_types_the_code_wants():
    assert check_k(np.int64(3), 3) == 3 and type(check_k(np.int64(3), 3)) is int
    assert check_imbalance(np.float32(0.25)) == 0.25 and type(check_imbalance(0)) is float
    assert check_seed(MAX_SEED) == MAX_SEED and check_seed(np.uint8(7)) == 7
    assert check_threads(None) is None and check_threads(1) == 1
    np.testing.assert_allclose(check_shares(None, 4), [0.25] * 4)
    np.testing.assert_allclose(check_shares([3, 1]), [0.75, 0.25])
    np.testing.assert_array_equal(check_shares([3, 1], normalise=False), [3.0, 1.0])
    # one column per constraint, each normalised on its own
    np.testing.assert_allclose(check_shares([[1, 0], [1, 2]], allow_zero=True), [[0.5, 0.0], [0.5, 1.0]])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=1e-6, max_value=1e300, allow_nan=False), min_size=1, max_size=12))
def test_shares_are_positive_and_sum_to_one_whenever_accepted(values):
    """Any finite positive values whose sum is finite give shares in (0, 1] summing to 1; the ones whose sum
    overflows are refused, never turned into NaN or zero shares."""
    total = math.fsum(values)
    if not math.isfinite(total):
        with pytest.raises(InputError):
            check_shares(values)
        return
    try:
        shares = check_shares(values)
    except InputError as error:  # only a share that underflows to zero may be refused
        assert "too small" in str(error)
        return
    assert np.all(shares > 0) and np.all(np.isfinite(shares))
    assert math.isclose(float(shares.sum()), 1.0, rel_tol=1e-9)


# ---------------------------------------------------------------------------- the vertex partitioner's gates
@pytest.mark.parametrize("k,imbalance,threads,seed,targets,words", [
    (0, 0.03, None, 0, None, "k must be at least 1"), (11, 0.03, None, 0, None, "vertices"),
    (2.5, 0.03, None, 0, None, "k must be"), (2, -0.1, None, 0, None, "imbalance"),
    (2, float("nan"), None, 0, None, "imbalance"), (2, 0.03, 0, 0, None, "threads"),
    (2, 0.03, True, 0, None, "threads"), (2, 0.03, None, 2**64, None, "seed"), (2, 0.03, None, -1, None, "seed"),
    (2, 0.03, None, 0, [1, 0], "targets"), (2, 0.03, None, 0, [1, 2, 3], "targets"),
    (2, 0.03, None, 0, [1e308, 1e308], "targets")])
def test_partition_refuses_bad_arguments_through_the_gates(k, imbalance, threads, seed, targets, words):
    from apportion import partition

    graph = Graph.from_edges(np.arange(9), np.arange(1, 10), n=10)
    with pytest.raises(InputError) as error:
        partition(graph, k, imbalance=imbalance, threads=threads, seed=seed, targets=targets)
    assert words in str(error.value)


def test_partition_takes_a_networkx_graph():
    import networkx as nx

    from apportion import partition

    result = partition(nx.path_graph(12), 2, seed=0)
    assert result.n == 12 and sorted(np.bincount(result.assignment).tolist()) == [6, 6]
