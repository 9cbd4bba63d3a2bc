"""Shared fixtures: the shared real graphs, small generated graphs, and the CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from apportion.datasets import shared_graphs_dir

REPO = Path(__file__).resolve().parents[1]

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


@pytest.fixture(scope="session")
def graphs_dir() -> Path:
    folder = shared_graphs_dir()
    if folder is None:
        pytest.fail("shared graphs not found: run from the repository with ../shared/graphs beside it "
                    "or set APPORTION_GRAPHS")
    return folder


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
