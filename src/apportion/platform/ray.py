"""RayDevice: a worker actor on a Ray cluster running kernels remotely (the distributed engine, DESIGN.md).

`connect(address)` joins a cluster (`--cluster ADDRESS`, else the RAY_ADDRESS environment variable, else a local
one-process cluster when `local_cpus` is given); an unreachable cluster raises UnavailableError with one clear
line. Each RayDevice owns one actor (`num_cpus=threads`) that keeps a CPUDevice and runs the kernel set's CPU
implementation on the arguments it receives (NumPy arrays travel through Ray's object store). A killed actor
makes `run` raise DeviceFailure, so schedulers re-run its chunks elsewhere.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from typing import Any, Iterable, Sequence

from apportion.errors import UnavailableError
from apportion.platform.cpu import CPUDevice
from apportion.platform.device import Device, DeviceFailure, LinkCost, Timing


def _ray():
    try:
        import ray
    except Exception as exc:  # pragma: no cover - ray is a dependency
        raise UnavailableError(f"Ray is not installed: {exc}") from None
    return ray


#: the `ray` module, imported on first use (UnavailableError when Ray is missing): for modules that use Ray's API
ray_module = _ray


def _check_reachable(address: str, timeout_s: float = 3.0) -> None:
    """Fail fast (instead of Ray's long reconnect loop) when host:port does not accept connections."""
    if address in ("auto", "local") or ":" not in address.split("://", 1)[-1]:
        return
    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    try:
        port_number = int(port)
    except ValueError:
        raise UnavailableError(f"cluster address {address!r}: expected HOST:PORT") from None
    try:
        with socket.create_connection((host or "127.0.0.1", port_number), timeout=timeout_s):
            pass
    except OSError as exc:
        raise UnavailableError(f"Ray cluster at {address} is unreachable: {exc}") from None


# What a user must do when the cluster wants a token and this process has none (Ray's token authentication).
TOKEN_HINT = ("copy the cluster's token to ~/.ray/auth_token or set RAY_AUTH_TOKEN (`ray get-auth-token` on the "
              "head node prints it)")


def _wants_token(hostport: str, timeout_s: float = 3.0) -> bool:
    """Whether the Ray cluster whose GCS listens at host:port refuses a request that carries no token (token
    authentication, on by default for clusters that Ray 2.59+ starts where a token exists). One gRPC call for the
    cluster id, without credentials; any other outcome is left to `ray.init` to report."""
    import grpc  # Ray's own dependency

    with grpc.insecure_channel(hostport) as channel:
        ask_cluster_id = channel.unary_unary("/ray.rpc.NodeInfoGcsService/GetClusterId")
        try:
            ask_cluster_id(b"", timeout=timeout_s)
        except grpc.RpcError as exc:
            return exc.code() == grpc.StatusCode.UNAUTHENTICATED
    return False


def _use_token() -> bool:
    """Turn on token authentication for this process, with the token Ray's own clients find (RAY_AUTH_TOKEN,
    RAY_AUTH_TOKEN_PATH, ~/.ray/auth_token), as `ray.init(address="auto")` does. False when there is none."""
    try:
        from ray._private.authentication import authentication_token_setup as token_setup
    except ImportError:  # a Ray without token authentication
        return False
    # Ray logs "token authentication is enabled ... set RAY_AUTH_MODE=disabled to opt out": not news here
    logger = logging.getLogger(token_setup.__name__)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        return bool(token_setup.maybe_enable_token_auth_if_token_available(warn_if_disabled=False))
    finally:
        logger.setLevel(level)


def _authenticate(address: str) -> None:
    """Join an explicit HOST:PORT the way Ray's clients join `auto`: with the local token when the cluster wants
    one. Ray itself leaves tokens off for an explicit address unless RAY_AUTH_MODE=token is set, so a cluster
    started with `ray start --head` would refuse us after a 20-second retry loop. An explicit RAY_AUTH_MODE
    is respected; a cluster without token authentication is joined without one (a token-mode driver would
    refuse its workers' calls)."""
    if os.environ.get("RAY_AUTH_MODE") is not None or "://" in address or ":" not in address:
        return
    if _wants_token(address) and not _use_token():
        raise UnavailableError(f"cannot connect to Ray cluster {address}: it uses token authentication and this "
                               f"machine has no Ray token; {TOKEN_HINT}")


def connect(address: str | None = None, local_cpus: int | None = None) -> None:
    """Join the Ray cluster at `address` (or RAY_ADDRESS); with neither, start a local one with `local_cpus`.

    A cluster with token authentication (what `ray start --head` starts on a machine with a Ray token) is joined
    with the token Ray's own clients use: RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token.
    Does nothing when Ray is already initialised in this process. Raises UnavailableError (one line) if it
    cannot connect, saying what to set when the cluster wants a token this machine lacks.
    """
    ray = _ray()
    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS")
    try:
        if address:
            _check_reachable(address)
            _authenticate(address)
            ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        else:
            ray.init(num_cpus=local_cpus or 1, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    except UnavailableError:
        raise
    except Exception as exc:
        raise UnavailableError(f"cannot connect to Ray cluster {address or '(local)'}: "
                               f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None


# ---------------------------------------------------------------------- the cached actor idiom
# Every Ray actor of apportion (RayDevice's kernel worker, the stencil runtime's workers, the graph runtime's
# transport) is a plain class at the top of its module, so Ray's workers import it by name, and is made a Ray
# actor class once per process here. Each answers `ready()`, which `start_actors` waits for.
_ACTOR_CLASSES: dict[type, Any] = {}


def actor_class(cls: type):
    """The Ray actor class of `cls` (made on first use, then cached; Ray is imported here, not before)."""
    made = _ACTOR_CLASSES.get(cls)
    if made is None:
        made = _ACTOR_CLASSES[cls] = _ray().remote(cls)
    return made


def start_actors(cls: type, arguments: Sequence[tuple], *, num_cpus: float, timeout_s: float, what: str) -> list:
    """One actor of `cls` per tuple of constructor `arguments`, each reserving `num_cpus`; returns them once every
    one has answered `ready()`. Raises UnavailableError("<what> did not start: <Ray's first line>") otherwise
    (a cluster too small, a worker that cannot import the class, `timeout_s` passed)."""
    ray = _ray()
    made = actor_class(cls).options(num_cpus=num_cpus)
    actors: list = []
    try:
        for args in arguments:
            actors.append(made.remote(*args))
        ray.get([actor.ready.remote() for actor in actors], timeout=timeout_s)
    except Exception as exc:
        kill_actors(actors)  # the ones that did start would hold their CPUs until the driver exits
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UnavailableError(f"{what} did not start: {first_line}") from None
    return actors


def kill_actors(actors: Iterable) -> None:
    """End `actors` (no restart); an actor that is already gone is fine."""
    ray = _ray()
    for actor in actors:
        try:
            ray.kill(actor, no_restart=True)
        except Exception:  # noqa: BLE001 - already dead, or Ray already shut down
            pass


class KernelWorker:
    """RayDevice's actor: holds a CPUDevice on a cluster node and runs kernels on it."""

    def __init__(self, threads: int):
        self.device = CPUDevice(threads=threads)

    def run(self, kernels, args):
        execution = self.device.run(kernels, *args)
        return execution.result, execution.timing

    def ready(self) -> bool:
        return True


class RayDevice(Device):
    """A remote CPU worker: one Ray actor with `threads` CPUs. Call `connect(...)` first (or pass address)."""

    def __init__(self, name: str | None = None, threads: int = 1, address: str | None = None,
                 link: LinkCost | None = None):
        connect(address)
        ray = _ray()
        super().__init__(name=name or f"ray{id(self) % 10000}", kind="remote", implementation="cpu",
                         bundles=True, link=link)
        self.threads = int(threads)
        self.actor = start_actors(KernelWorker, [(self.threads,)], num_cpus=self.threads, timeout_s=120,
                                  what=f"Ray actor for {self.name}")[0]
        self._ray = ray

    def _execute(self, kernels, args) -> tuple[Any, Timing]:
        ray = self._ray
        start = time.perf_counter()
        try:
            result, remote_timing = ray.get(self.actor.run.remote(kernels, tuple(args)))
        except (ray.exceptions.RayActorError, ray.exceptions.ActorDiedError if hasattr(ray.exceptions,
                "ActorDiedError") else ray.exceptions.RayActorError) as exc:
            raise DeviceFailure(f"Ray actor of {self.name} died: {type(exc).__name__}") from None
        elapsed = time.perf_counter() - start
        # what is not remote compute is transport (object store, scheduling, network)
        transport = max(0.0, elapsed - remote_timing.total_s)
        return result, Timing(transfer_s=transport, compute_s=remote_timing.total_s, transfer_in_s=transport / 2)

    def kill(self, wait_s: float = 60.0) -> None:
        """Kill the actor (tests use this to show re-execution) and wait until Ray reports it dead.

        `ray.kill` only sends the request; a call submitted right after it can still reach the live actor.
        Waiting for a ping to fail makes the next run see the death every time."""
        ray = self._ray
        ray.kill(self.actor, no_restart=True)
        deadline = time.perf_counter() + wait_s
        while time.perf_counter() < deadline:
            try:
                ray.get(self.actor.ready.remote(), timeout=max(0.1, deadline - time.perf_counter()))
            except ray.exceptions.GetTimeoutError:
                break
            except Exception:  # RayActorError / ActorDiedError: it is gone
                return
            time.sleep(0.05)
        raise UnavailableError(f"Ray actor of {self.name} is still alive {wait_s:.0f} s after ray.kill")

    def describe(self) -> dict:
        return {**super().describe(), "threads": self.threads}

    def close(self) -> None:
        kill_actors([self.actor])
