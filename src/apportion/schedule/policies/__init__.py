"""apportion.schedule.policies: one scheduling policy per file, chosen by name with `make_policy`."""

from __future__ import annotations

from apportion.errors import InputError
from apportion.schedule.policies.base import Policy
from apportion.schedule.policies.dynamic import DynamicPolicy
from apportion.schedule.policies.greedy import GreedyPolicy
from apportion.schedule.policies.hass import HassPolicy
from apportion.schedule.policies.minmin import MinMinPolicy
from apportion.schedule.policies.qilin import QilinPolicy
from apportion.schedule.policies.static import StaticPolicy

POLICIES = ("hass", "qilin", "minmin", "greedy", "static-even", "static-peak", "dynamic")


def make_policy(name, **options):
    """A fresh policy object for `name` (one of POLICIES; a Policy instance is returned as is).

    Options: hass -> HassOptions fields; qilin -> fraction; dynamic -> segment_chunks; static -> shares.
    """
    if isinstance(name, Policy):
        return name
    key = str(name).lower()
    if key == "hass":
        return HassPolicy(**options)
    if key == "qilin" or key.startswith("qilin"):
        return QilinPolicy(**options)
    if key in ("minmin", "min-min"):
        return MinMinPolicy()
    if key == "greedy":
        return GreedyPolicy()
    if key in ("static-even", "static_even", "even"):
        return StaticPolicy("even")
    if key in ("static-peak", "static_peak", "peak", "static-flops"):
        return StaticPolicy("peak")
    if key == "static":
        return StaticPolicy(**options)
    if key == "dynamic":
        return DynamicPolicy(**options)
    raise InputError(f"unknown policy {name!r} (choose from {', '.join(POLICIES)})")
