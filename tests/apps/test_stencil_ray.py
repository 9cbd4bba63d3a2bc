"""The distributed stencil runtime: Ray actors hold their rectangles, exchange halos (heat) or column k, the
pivot rows and multipliers (Gaussian elimination) every step; the results equal the single-device NumPy (and
SciPy) references (local Ray cluster, 2 CPUs)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.ray


def test_heat_on_ray_actors_matches_numpy_reference(local_ray):
    from apportion.apps.heat import heat_steps_numpy, initial_condition, run_heat
    from apportion.platform import CPUDevice, ThrottledDevice

    rows, cols, steps = 19, 26, 5
    devices = [CPUDevice(name="a"), ThrottledDevice(CPUDevice(name="b"), 2.0, name="b2")]
    # "points" gives processors several pieces: halos inside one actor and between actors are both exercised
    result = run_heat(rows, cols, steps, devices, model="cpm", method="points", boundary=0.25, seed=4,
                      cluster="local")
    assert result.plan.rectangles.pieces > len(devices)
    expected = heat_steps_numpy(initial_condition(rows, cols, 4), 0.25, 0.2, steps)
    np.testing.assert_allclose(result.values, expected, rtol=1e-12, atol=1e-12)
    trace = result.trace
    assert trace.compute_s.shape == (steps, 2) and (trace.compute_s > 0).all()
    assert trace.halo_items.sum() == result.plan.rectangles.metrics.data_items


def test_gauss_on_ray_actors_matches_numpy_and_scipy(local_ray):
    import scipy.linalg

    from apportion.apps.gauss import lu_reference, random_matrix, run_gauss
    from apportion.platform import CPUDevice, ThrottledDevice

    n = 24
    devices = [CPUDevice(name="a"), CPUDevice(name="b"), ThrottledDevice(CPUDevice(name="c"), 2.0, name="c2")]
    # "points" gives processors several pieces: pivot rows and multipliers span blocks of one actor and of others
    result = run_gauss(n, devices, model="cpm", method="points", seed=3, cluster="local")
    assert result.plan.rectangles.pieces > len(devices)
    lu, perm = lu_reference(random_matrix(n, 3))
    np.testing.assert_allclose(result.lu, lu, rtol=1e-10, atol=1e-10)
    assert np.array_equal(result.permutation, perm) and not np.array_equal(perm, np.arange(n))
    scipy_lu, _ = scipy.linalg.lu_factor(random_matrix(n, 3))
    np.testing.assert_allclose(result.lu, scipy_lu, rtol=1e-9, atol=1e-9)
    lower, upper = np.tril(result.lu, -1) + np.eye(n), np.triu(result.lu)
    np.testing.assert_allclose(random_matrix(n, 3)[result.permutation], lower @ upper, atol=1e-9)
    trace = result.trace
    assert trace.compute_s.shape == (n - 1, 3) and trace.communication_s.shape == (n - 1, 3)
    assert (trace.compute_s[0] > 0).all()
    # the threaded runtime on the same partition counts the same received items
    local = run_gauss(n, devices, model="cpm", method="points", seed=3)
    assert np.array_equal(trace.halo_items, local.trace.halo_items)


def test_gauss_on_ray_stops_after_steps(local_ray):
    from apportion.apps.gauss import lu_reference, run_gauss
    from apportion.platform import CPUDevice

    a = np.array([[0.0, 2.0, 1.0, 4.0], [1.0, 1.0, 0.0, 2.0], [3.0, 0.0, 1.0, 1.0], [2.0, 5.0, 1.0, 0.0]])
    partial = run_gauss(4, [CPUDevice(name="a"), CPUDevice(name="b")], method="columns", matrix=a, steps=1,
                        cluster="local")
    assert partial.trace.compute_s.shape == (1, 2)
    assert np.array_equal(partial.permutation, [2, 1, 0, 3]) and lu_reference(a)[1][0] == 2
    # step 0 only: row 0 is the pivot row (old row 2); column 0 below holds the multipliers, the rest is updated
    swapped = a[[2, 1, 0, 3]]
    multipliers = swapped[1:, 0] / swapped[0, 0]
    np.testing.assert_allclose(partial.lu[0], swapped[0])
    np.testing.assert_allclose(partial.lu[1:, 0], multipliers)
    np.testing.assert_allclose(partial.lu[1:, 1:], swapped[1:, 1:] - np.outer(multipliers, swapped[0, 1:]))


def test_cli_stencil_gauss_ray(local_ray, capsys):
    import json

    from apportion.cli.main import main

    # in-process, so the session's local Ray cluster is reused (`--ray` joins an initialised Ray)
    assert main(["stencil", "gauss", "--grid", "10", "--ray", "--platform", "auto", "--seed", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["application"] == "gauss" and not report["simulated"]
    assert np.array(report["per_iteration"]["compute_s"]).shape == (9, len(report["devices"]))


def test_ray_runtime_rejects_simulated_devices(local_ray):
    from apportion.apps.heat import run_heat
    from apportion.errors import InputError
    from apportion.platform import Platform

    with pytest.raises(InputError, match="real devices"):
        run_heat(12, 12, 1, Platform.load("seed002"), model="cpm", cluster="local")
    from apportion.apps.gauss import run_gauss

    with pytest.raises(InputError, match="real devices"):
        run_gauss(12, Platform.load("seed002"), model="cpm", cluster="local")
