"""Routing policies (seed 003 §3 and §4.3): which outputs of a router *may* take a message.

A policy is a callable `policy(source, dest, outputs) -> tuple of output indices`, where `source` is the index
of the sending device (-1 for the host), `dest` the device the message is meant for (its items' owner) or None
when it holds items for several owners, and `outputs` the router's number of outputs. The router gives each
packet to the first of the returned outputs that is *available* (has a posted receive and a free buffer).

- `ring()`: device i -> device i + 1 (mod k), the paper's default for distributed worklists (§4.3, based on its
  §2 measurements); every device forwards what it does not own to the next one. The host, which is not on the
  ring, sends straight to the owner (or to device 0 when there is none).
- `direct()`: straight to the owner (`dest`); the sender splits its items by owner first.
- `any_device()`: every output; the first free device takes the message (the paper's `AnyDevicePolicy`, Fig. 6:
  load balancing by availability).
"""

from __future__ import annotations

from typing import Callable

from apportion.errors import InputError

Policy = Callable[[int, "int | None", int], tuple]


def ring() -> Policy:
    """The ring: device i sends to device (i + 1) mod k; the host sends to the owner (device 0 without one)."""

    def ring_policy(source: int, dest: int | None, outputs: int) -> tuple:
        if source < 0:
            return (0 if dest is None else int(dest),)
        return ((source + 1) % outputs,)

    ring_policy.splits_by_owner = False  # a ring message may hold items of several owners
    return ring_policy


def direct() -> Policy:
    """Straight to the owner; a message without an owner is an error."""

    def direct_policy(source: int, dest: int | None, outputs: int) -> tuple:
        if dest is None:
            raise ValueError("direct routing needs the message's destination")
        return (int(dest),)

    direct_policy.splits_by_owner = True  # senders split their items by owner
    return direct_policy


def any_device() -> Policy:
    """Every output may take the message; the first available one does."""

    def any_policy(source: int, dest: int | None, outputs: int) -> tuple:
        return tuple(range(outputs))

    any_policy.splits_by_owner = False
    return any_policy


POLICIES = {"ring": ring, "direct": direct, "any": any_device}


def resolve_policy(routing: "str | Policy") -> Policy:
    """A policy from its name ("ring", "direct", "any") or a policy callable."""
    if callable(routing):
        return routing
    try:
        return POLICIES[str(routing)]()
    except KeyError:
        raise InputError(f"unknown routing {routing!r}; choose one of {', '.join(POLICIES)}") from None
