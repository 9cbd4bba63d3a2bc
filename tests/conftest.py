"""Shared fixtures: real graph files (tests/data/graphs), the CLI runner, a local Ray cluster.

Real graphs come from the repository itself, never from outside it: `apportion.datasets` ships the graphs in the
package, and tests/data/graphs holds a few original text files for the readers' tests, so a lone clone passes.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]
REAL_GRAPHS = REPO / "tests" / "data" / "graphs"

# Hypothesis profiles (docs/testing.md): "ci", the default, runs each property test with the max_examples its
# @settings give (the suite's usual time, no deadline: Numba compiles on first calls); "nightly"
# (HYPOTHESIS_PROFILE=nightly) runs NIGHTLY_FACTOR times as many examples of every property test.
NIGHTLY_FACTOR = 10
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("nightly", parent=settings.get_profile("ci"), max_examples=100 * NIGHTLY_FACTOR)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)


def pytest_collection_modifyitems(config, items):
    """Under the nightly profile, scale the max_examples that a test's own @settings fix (they override a
    profile's value, so the profile alone would not lengthen them)."""
    if PROFILE != "nightly":
        return
    scaled = set()
    for item in items:
        test = getattr(item, "obj", None)
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        if current is None or id(test) in scaled:
            continue
        scaled.add(id(test))
        test._hypothesis_internal_use_settings = settings(current, max_examples=current.max_examples * NIGHTLY_FACTOR)


@pytest.fixture(autouse=True)
def _numba_threads_restored():
    """Each test starts with the thread count the one before it found: tests that call the partitioner's internals
    (`multilevel._multilevel`, which sets a level's threads and leaves restoring them to `partition`) left one
    thread behind, and a later test of the thread count failed depending on the order."""
    import numba

    threads = numba.get_num_threads()
    yield
    numba.set_num_threads(threads)


@pytest.fixture(scope="session", autouse=True)
def _calibration_cache(tmp_path_factory):
    """Measured CPU speeds (apportion.platform.calibrate) go to a session folder, never the user's cache; CLI
    subprocesses inherit the variable."""
    old = os.environ.get("APPORTION_CACHE_DIR")
    os.environ["APPORTION_CACHE_DIR"] = str(tmp_path_factory.mktemp("apportion-cache"))
    yield
    if old is None:
        os.environ.pop("APPORTION_CACHE_DIR", None)
    else:
        os.environ["APPORTION_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def real_graph_file(tmp_path_factory):
    """`real_graph_file("jazz.graph")`: the path of one original file of tests/data/graphs, decompressed into a
    session folder when it is stored as NAME.gz."""
    folder = tmp_path_factory.mktemp("real-graphs")

    def get(name: str) -> Path:
        plain = REAL_GRAPHS / name
        if plain.is_file():
            return plain
        target = folder / name
        if not target.exists():
            with gzip.open(REAL_GRAPHS / f"{name}.gz", "rb") as source, open(target, "wb") as sink:
                shutil.copyfileobj(source, sink)
        return target

    return get


@pytest.fixture(scope="session")
def karate_file() -> Path:
    """The original karate.graph (METIS text, 34 vertices, 78 edges)."""
    return REAL_GRAPHS / "karate.graph"


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run `apportion ARGS` in a fresh interpreter (the real exit code and streams)."""
    env = dict(os.environ)
    env.pop("APPORTION_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "apportion.cli.main", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=timeout)


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(scope="session")
def local_ray():
    """One local Ray cluster (2 CPUs) shared by every Ray test of the session, shut down at the end.

    Ray is part of the test extra: a missing Ray is a broken environment, so the Ray tests fail rather than skip."""
    try:
        import ray
    except ImportError as error:
        pytest.fail(f"Ray is not installed ({error}); the Ray tests need it: pip install -e '.[test,ray]'")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


def weighted_jazz():
    """jazz with deterministic vertex weights 1..4 and edge weights 1..9: a real topology with both kinds of
    weight (no shipped dataset has both)."""
    import numpy as np

    from apportion import datasets
    from apportion.graph.csr import Graph

    jazz = datasets.load("jazz")
    u, v, _ = jazz.edges()
    return Graph.from_edges(u, v, 1 + (u * 7 + v * 3) % 9, n=jazz.n, vertex_weights=1 + np.arange(jazz.n) % 4,
                            name="weighted-jazz")


@pytest.fixture
def weighted_graph_file(tmp_path) -> Path:
    """`weighted_jazz()` written as a METIS file (fmt 11)."""
    from apportion.graph.io import write_graph

    path = tmp_path / "weighted-jazz.graph"
    write_graph(weighted_jazz(), path)
    return path


def pytest_runtest_setup(item):
    """`gpu` tests need a CUDA device, real or simulated (NUMBA_ENABLE_CUDASIM=1, as `make test` runs them);
    `gpu_hardware` tests (CuPy library calls) need a real GPU and CuPy. Skipped, with the reason, otherwise."""
    names = {mark.name for mark in item.iter_markers()}
    if not names & {"gpu", "gpu_hardware"}:
        return
    from apportion.platform.cuda import cuda_device_count, cupy_available, simulator_enabled

    if cuda_device_count() == 0:
        pytest.skip("no CUDA device (NUMBA_ENABLE_CUDASIM=1 runs the gpu tests on the CUDA simulator)")
    if "gpu_hardware" in names and (simulator_enabled() or not cupy_available()):
        pytest.skip("needs a real GPU and CuPy (a CuPy library call: no simulator)")
