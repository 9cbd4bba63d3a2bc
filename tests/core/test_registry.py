"""The one registry idiom (apportion._registry) and the registries built on it: an unknown name is one InputError
that lists every known name."""

from __future__ import annotations

import pytest

from apportion._registry import Registry
from apportion.errors import InputError
from apportion.graph.generate import generate
from apportion.partitioning.edge.api import EDGE_METHODS, partition_edges
from apportion.partitioning.edge.options import METHOD_OPTIONS, METHODS
from apportion.partitioning.grid import GRID_METHODS, METHOD_NAMES, partition_grid
from apportion.platform.platform import SHIPPED_PLATFORMS, Platform
from apportion.schedule.policies import POLICIES, POLICY_FACTORIES, make_policy


def test_lookup_aliases_and_unlisted_names():
    colours = Registry("colour", {"red": 1}, fold_case=True)
    colours.add("green", 2, aliases=("verde",))
    colours.add("secret", 3, listed=False)
    assert colours["RED"] == 1 and colours["verde"] == 2 and colours["secret"] == 3
    assert colours.names() == ("red", "green") and list(colours) == ["red", "green"] and len(colours) == 2
    assert "Verde" in colours and "blue" not in colours and 7 not in colours
    assert colours.get("blue", 0) == 0
    assert colours.canonical("verde") == "green"
    with pytest.raises(InputError, match=r"^unknown colour 'blue'; choose one of red, green$"):
        colours["blue"]
    with pytest.raises(InputError, match="colour must be a name"):
        colours[None]


def test_a_name_given_twice_is_refused():
    things = Registry("thing", {"a": 1})
    with pytest.raises(ValueError, match="registered twice"):
        things.add("a", 2)
    with pytest.raises(ValueError, match="registered twice"):
        things.add("b", 2, aliases=("a",))


def test_decorator_registers_in_order():
    steps = Registry("step")

    @steps.register("second")
    def two():
        return 2

    steps.add("first", lambda: 1)
    assert steps.names() == ("second", "first") and steps["second"] is two


def _assert_lists_all(excinfo, names):
    message = str(excinfo.value)
    assert "\n" not in message
    for name in names:
        assert name in message


def test_edge_methods_match_their_options_and_unknown_lists_them():
    assert EDGE_METHODS.names() == METHODS == tuple(METHOD_OPTIONS)
    graph = generate("grid2d", 4, seed=0)
    with pytest.raises(InputError, match="unknown edge-partitioning method 'nope'") as excinfo:
        partition_edges(graph, 2, method="nope")
    _assert_lists_all(excinfo, METHODS)


def test_grid_methods_and_unknown_lists_them():
    assert METHOD_NAMES == GRID_METHODS.names() and METHOD_NAMES[-1] == "best" and "nphp" in METHOD_NAMES
    with pytest.raises(InputError, match="unknown grid method 'nope'") as excinfo:
        partition_grid(10, 10, [1, 2], method="nope")
    _assert_lists_all(excinfo, METHOD_NAMES)


def test_policies_aliases_and_unknown_lists_them():
    assert POLICIES == POLICY_FACTORIES.names()
    assert make_policy("Min-Min").name == make_policy("minmin").name
    assert make_policy("static", shares=[1, 1]).name == "static"  # accepted, not offered
    assert "static" not in POLICIES
    with pytest.raises(InputError, match="unknown policy 'nope'") as excinfo:
        make_policy("nope")
    _assert_lists_all(excinfo, POLICIES)


def test_shipped_platforms_load_by_name_and_unknown_lists_them():
    for name in SHIPPED_PLATFORMS:
        assert len(Platform.load(name)) >= 2
    with pytest.raises(InputError, match="platform file not found") as excinfo:
        Platform.load("seed999")
    _assert_lists_all(excinfo, SHIPPED_PLATFORMS.names())
