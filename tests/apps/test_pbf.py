"""PBF on the runtime: the kept elements in input order, equal to the reference on every configuration; segments
go to whichever device is free (the faster device takes more); a dying device's segments are redone."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import apportion
from apportion.apps.pbf import pbf_reference
from apportion.apps.pbf_runtime import pbf
from apportion.errors import InputError
from apportion.platform.cpu import CPUDevice
from apportion.platform.device import DeviceFailure
from apportion.platform.faulty import FaultyDevice
from apportion.platform.throttled import ThrottledDevice

pytestmark = pytest.mark.timeout(300)

INTEGER_TYPES = [np.int8, np.int32, np.int64, np.uint16, np.uint64]


def exact_filter(values: np.ndarray, low, high) -> list:
    """low <= v < high decided by Python's exact comparisons of ints and floats (no rounding of the bounds)."""
    return [v for v in values.tolist() if low <= v < high]


# bounds anywhere on the real line, and often near the small values below (so that rounding a bound the wrong way
# changes which elements are kept)
bounds = st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=False), st.integers(-12, 12),
                   st.floats(-12, 12), st.sampled_from([x + 0.5 for x in range(-12, 12)]))


def integer_arrays(dtype) -> st.SearchStrategy:
    """Arrays of `dtype` whose elements are small (often equal to a bound), the type's extremes, or anywhere in
    its range."""
    info = np.iinfo(dtype)
    small = st.integers(max(info.min, -10), min(info.max, 10))
    extremes = st.sampled_from([info.min, info.min + 1, info.max - 1, info.max])
    return arrays(dtype, st.integers(0, 300), elements=small | extremes | st.integers(info.min, info.max))


@settings(max_examples=60, deadline=None)
@given(values=st.sampled_from(INTEGER_TYPES).flatmap(integer_arrays),
       low=bounds, high=bounds, devices=st.sampled_from([1, 2, 4]), segment=st.sampled_from([1, 3, 64]))
def test_integers_are_kept_exactly_for_any_real_bounds(values, low, high, devices, segment):
    result = pbf(values, low, high, devices=devices, segment=segment)
    assert result.values.dtype == values.dtype
    assert result.values.tolist() == exact_filter(values, low, high)
    assert result.work_items == values.size  # every element compared once (no failure)
    assert sum(result.segments) == -(-values.size // segment) == result.messages


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_integer_extremes_with_bounds_beyond_the_type(dtype):
    info = np.iinfo(dtype)
    values = np.array([info.min, info.min + 1, 0, 1, info.max - 1, info.max], dtype=dtype)
    for low, high in ((-np.inf, np.inf), (-2**70, 2**70), (info.min, info.max + 1), (0.5, 1e300),
                      (info.max, info.max + 0.5), (-1e300, info.min + 0.5), (info.max + 1, np.inf), (3, 2)):
        result = pbf(values, low, high, segment=2)
        assert result.values.tolist() == exact_filter(values, low, high), (low, high)


@settings(max_examples=60, deadline=None)
@given(values=st.sampled_from([32, 64]).flatmap(
           lambda width: arrays(np.dtype(f"float{width}"), st.integers(0, 300),
                                elements=st.floats(width=width) | st.sampled_from([0.0, 1.0, -1.0]))),
       low=st.floats(allow_nan=False), high=st.floats(allow_nan=False), devices=st.sampled_from([1, 2, 4]),
       segment=st.sampled_from([1, 3, 64]))
def test_floats_equal_numpy_in_their_own_precision(values, low, high, devices, segment):
    result = pbf(values, low, high, devices=devices, segment=segment)
    t = values.dtype.type
    with np.errstate(over="ignore"):  # a bound beyond float32's range rounds to ±inf
        expected = values[(values >= t(low)) & (values < t(high))]  # NaNs never kept
    np.testing.assert_array_equal(result.values, expected)
    if values.dtype == np.float64:
        np.testing.assert_array_equal(result.values, pbf_reference(values, low, high))


def test_a_device_throttled_three_times_gets_fewer_segments():
    values = np.random.default_rng(1).random(1 << 22)
    devices = [CPUDevice(1, name="fast"), ThrottledDevice(CPUDevice(1), 3.0, name="slow")]
    result = pbf(values, 0.25, 0.5, devices=devices, segment=1 << 16)
    np.testing.assert_array_equal(result.values, pbf_reference(values, 0.25, 0.5))
    fast, slow = result.segments
    assert fast + slow == 64 and fast > slow, result.segments
    assert result.per_device[0] > result.per_device[1]


@pytest.mark.parametrize("fail_on_call", [1, 2, 5])
def test_a_device_dying_mid_run_leaves_the_result_exact(fail_on_call):
    values = np.random.default_rng(2).integers(0, 1000, size=20_000)
    # the other device is so slow that the faulty one takes segments until its death (and then it redoes them)
    devices = [ThrottledDevice(CPUDevice(1), 30.0), FaultyDevice(CPUDevice(1), fail_on_call, name="faulty")]
    result = pbf(values, 100, 300, devices=devices, segment=500)
    np.testing.assert_array_equal(result.values, pbf_reference(values, 100, 300))
    assert result.failures == ["faulty"]
    assert sum(result.segments) >= 40 and result.work_items >= values.size
    assert any(i.kind == "failed" for i in result.trace.intervals)


def test_every_device_dead_is_a_device_failure():
    with pytest.raises(DeviceFailure):
        pbf(np.arange(100), 0, 50, devices=[FaultyDevice(CPUDevice(1), 1)], segment=10)


def test_empty_input_and_trace():
    result = pbf(np.array([], dtype=np.float32), 0, 1)
    assert result.values.dtype == np.float32 and result.values.size == 0 and result.messages == 0
    result = pbf(np.arange(1000.0), 10, 20, segment=100)
    assert {i.kind for i in result.trace.intervals} <= {"compute", "idle"}
    assert result.summary()["per_device_segments"] == result.segments


def test_exported_and_checked():
    assert apportion.pbf is pbf
    good = np.arange(10)
    for values in (np.zeros((2, 2)), np.array(["a"]), np.array([True]), [1 + 2j], object()):
        with pytest.raises(InputError):
            pbf(values, 0, 1)
    for bad in ({"low": float("nan")}, {"high": "3"}, {"segment": 0}, {"segment": 2.5}, {"devices": 0},
                {"transport": "mpi"}):
        arguments = {"low": 0, "high": 5, **bad}
        with pytest.raises(InputError):
            pbf(good, arguments.pop("low"), arguments.pop("high"), **arguments)


@pytest.mark.parametrize("dtype", [np.float16, np.longdouble])
def test_floats_the_filter_has_no_kernel_for_are_input_errors(dtype):
    """float16 raised Numba's NotImplementedError."""
    if dtype is np.longdouble and np.dtype(dtype).itemsize <= 8:
        pytest.skip("long double is double here")
    with pytest.raises(InputError, match="32 or 64 bits"):
        pbf(np.arange(10, dtype=dtype), low=2, high=5)
