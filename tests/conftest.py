"""Shared fixtures: the shared real graphs, small generated graphs, and the CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from apportion.datasets import shared_graphs_dir

REPO = Path(__file__).resolve().parents[1]


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
    """One local Ray cluster (2 CPUs) shared by every Ray test of the session, shut down at the end."""
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()
