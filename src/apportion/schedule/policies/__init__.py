"""apportion.schedule.policies: one scheduling policy per file, chosen by name with `make_policy`."""

from __future__ import annotations

from apportion.errors import InputError

POLICIES = ("hass", "qilin", "minmin", "greedy", "static-even", "static-peak", "dynamic")


def make_policy(name, **options):
    """A fresh policy object for `name` (one of POLICIES; a Policy instance is returned as is).

    Options: hass -> HassOptions fields; qilin -> fraction; dynamic -> segment_chunks; static -> shares.
    """
    from apportion.schedule.policies.base import Policy

    if isinstance(name, Policy):
        return name
    key = str(name).lower()
    if key == "hass":
        from apportion.schedule.policies.hass import HassPolicy

        return HassPolicy(**options)
    if key == "qilin" or key.startswith("qilin"):
        from apportion.schedule.policies.qilin import QilinPolicy

        return QilinPolicy(**options)
    if key in ("minmin", "min-min"):
        from apportion.schedule.policies.minmin import MinMinPolicy

        return MinMinPolicy()
    if key == "greedy":
        from apportion.schedule.policies.greedy import GreedyPolicy

        return GreedyPolicy()
    if key in ("static-even", "static_even", "even"):
        from apportion.schedule.policies.static import StaticPolicy

        return StaticPolicy("even")
    if key in ("static-peak", "static_peak", "peak", "static-flops"):
        from apportion.schedule.policies.static import StaticPolicy

        return StaticPolicy("peak")
    if key == "static":
        from apportion.schedule.policies.static import StaticPolicy

        return StaticPolicy(**options)
    if key == "dynamic":
        from apportion.schedule.policies.dynamic import DynamicPolicy

        return DynamicPolicy(**options)
    raise InputError(f"unknown policy {name!r} (choose from {', '.join(POLICIES)})")
