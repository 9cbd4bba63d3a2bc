"""`schedule --cluster HOST:PORT` against a cluster started the usual way, `ray start --head`, which turns on
Ray's token authentication when a token exists (issue 12): apportion joins it with the token Ray's own clients
use, and says in one line what to set when this machine has none.

The cluster is this test's own (its own port and temporary folder); it is stopped by ending the process group
of its `ray start --block`, never with `ray stop`, which would stop every Ray cluster of this machine.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

import apportion

pytestmark = pytest.mark.ray

SOURCE = str(Path(apportion.__file__).resolve().parents[1])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["PYTHONPATH"] = SOURCE + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def token_cluster():
    """A one-CPU head node on 127.0.0.1 started by `ray start --head` with a token at hand; yields (address,
    token file)."""
    pytest.importorskip("ray")
    ray_command = Path(sys.executable).with_name("ray")
    folder = Path(tempfile.mkdtemp(prefix="apr", dir="/tmp"))  # short: Ray's socket paths live under it
    token = folder / "token"
    token.write_text(uuid.uuid4().hex)
    port = _free_port()
    log = open(folder / "head.log", "w")
    head = subprocess.Popen(
        [str(ray_command), "start", "--head", "--port", str(port), "--node-ip-address", "127.0.0.1",
         "--num-cpus", "1", "--include-dashboard=false", "--disable-usage-stats", "--temp-dir", str(folder / "ray"),
         "--block"],
        env=_clean_env(RAY_AUTH_TOKEN_PATH=str(token)), stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while "Ray runtime started" not in (folder / "head.log").read_text():
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start --head did not start:\n{(folder / 'head.log').read_text()[-2000:]}")
            time.sleep(0.5)
        yield f"127.0.0.1:{port}", token
    finally:
        for sig, wait_s in ((signal.SIGTERM, 60), (signal.SIGKILL, 10)):
            try:
                os.killpg(head.pid, sig)
            except ProcessLookupError:
                break
            try:
                head.wait(timeout=wait_s)
                # the head's children share its process group; give them the same signal's time
                deadline = time.monotonic() + wait_s
                while time.monotonic() < deadline:
                    os.killpg(head.pid, 0)
                    time.sleep(0.5)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                pass
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def _schedule(address: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "apportion.cli.main", "schedule", "matmul", "--cluster", address,
                           "--workers", "1", "--rounds", "1", "--size", "40", "--chunks", "4", "--json"],
                          env=env, capture_output=True, text=True, timeout=300)


def test_cluster_from_ray_start_wants_a_token(token_cluster):
    from apportion.platform.ray import _wants_token

    address, _ = token_cluster
    assert _wants_token(address), "`ray start --head` with a token at hand should turn token authentication on"
    assert not _wants_token(f"127.0.0.1:{_free_port()}", timeout_s=0.5)  # nothing there: not a token refusal


def test_cluster_host_port_joins_with_the_token_ray_clients_use(token_cluster):
    address, token = token_cluster
    done = _schedule(address, _clean_env(RAY_AUTH_TOKEN_PATH=str(token)))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["devices"] == ["ray0"] and report["chunks"] == 4 and report["shares"] == [[1.0]]


def test_cluster_without_a_token_here_says_what_to_set(token_cluster, tmp_path):
    address, _ = token_cluster
    done = _schedule(address, _clean_env(HOME=str(tmp_path)))  # no ~/.ray/auth_token, no RAY_AUTH_TOKEN*
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"apportion: error: cannot connect to Ray cluster {address}: it uses token "
                               "authentication")
    assert "~/.ray/auth_token" in lines[0] and "RAY_AUTH_TOKEN" in lines[0] and "ray get-auth-token" in lines[0]
