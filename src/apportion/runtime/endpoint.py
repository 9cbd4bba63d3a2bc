"""Endpoints: the nodes of a dataflow graph (seed 003 §3: "endpoints represent either physical devices ... or
virtual devices called routers").

An `Endpoint` names one end of a `Link`: the host (the driving Python thread), a device (one of the project's
`apportion.platform` devices, by its index in the run) or a router. Endpoints are plain values: two endpoints
are equal when their kind and index are equal, so links and routing policies can be written with integers.
"""

from __future__ import annotations

from dataclasses import dataclass

HOST = "host"
DEVICE = "device"
ROUTER = "router"


@dataclass(frozen=True)
class Endpoint:
    """One node of the dataflow graph: `kind` is "host", "device" or "router"; `index` numbers devices (0..k-1)
    and routers; the host has index -1."""

    kind: str
    index: int = -1

    def __post_init__(self) -> None:
        if self.kind not in (HOST, DEVICE, ROUTER):
            raise ValueError(f"endpoint kind must be host, device or router, got {self.kind!r}")

    @staticmethod
    def host() -> "Endpoint":
        return Endpoint(HOST, -1)

    @staticmethod
    def device(index: int) -> "Endpoint":
        return Endpoint(DEVICE, int(index))

    @staticmethod
    def router(index: int = 0) -> "Endpoint":
        return Endpoint(ROUTER, int(index))

    @property
    def is_host(self) -> bool:
        return self.kind == HOST

    def __str__(self) -> str:
        return "host" if self.is_host else f"{self.kind}{self.index}"
