"""apportion.schedule.policies: one scheduling policy per file, chosen by name with `make_policy`."""

from __future__ import annotations

from apportion._registry import Registry
from apportion.schedule.policies.base import Policy
from apportion.schedule.policies.dynamic import DynamicPolicy
from apportion.schedule.policies.greedy import GreedyPolicy
from apportion.schedule.policies.hass import HassPolicy
from apportion.schedule.policies.minmin import MinMinPolicy
from apportion.schedule.policies.qilin import QilinPolicy
from apportion.schedule.policies.static import StaticPolicy

# name -> factory(**options) -> Policy. Policies without options ignore the options they are given.
POLICY_FACTORIES: Registry = Registry("policy", fold_case=True)
POLICY_FACTORIES.add("hass", HassPolicy)
POLICY_FACTORIES.add("qilin", QilinPolicy)
POLICY_FACTORIES.add("minmin", lambda **options: MinMinPolicy(), aliases=("min-min",))
POLICY_FACTORIES.add("greedy", lambda **options: GreedyPolicy())
POLICY_FACTORIES.add("static-even", lambda **options: StaticPolicy("even"), aliases=("static_even", "even"))
POLICY_FACTORIES.add("static-peak", lambda **options: StaticPolicy("peak"),
                     aliases=("static_peak", "peak", "static-flops"))
POLICY_FACTORIES.add("static", StaticPolicy, listed=False)   # static with its own `shares`
POLICY_FACTORIES.add("dynamic", DynamicPolicy)

POLICIES = POLICY_FACTORIES.names()


def make_policy(name, **options):
    """A fresh policy object for `name` (one of POLICIES; a Policy instance is returned as is).

    Options: hass -> HassOptions fields; qilin -> fraction; dynamic -> segment_chunks; static -> shares.
    Raises InputError for an unknown name, listing the known ones.
    """
    if isinstance(name, Policy):
        return name
    return POLICY_FACTORIES[str(name)](**options)
