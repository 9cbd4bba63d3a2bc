"""Public names (issue 13): partition functions verb first, the platform's link cost is `LinkCost` (the runtime's
`Link` is the paper's channel)."""

from __future__ import annotations

import apportion
import apportion.platform


def test_partition_functions_are_verb_first_and_the_old_edge_name_is_an_alias():
    partition_functions = sorted(n for n in apportion.__all__ if "partition" in n and n[0].islower())
    assert partition_functions == ["edge_partition", "partition", "partition_edges", "partition_grid"]
    assert apportion.edge_partition is apportion.partition_edges
    assert apportion.partition_edges.__name__ == "partition_edges"


def test_link_cost_is_named_link_cost():
    cost = apportion.platform.LinkCost(latency_s=1e-5, bandwidth_Bps=1e9)
    assert cost.transfer_time(1e9) == 1e-5 + 1.0
    assert not hasattr(apportion.platform, "Link") and "Link" not in apportion.platform.__all__
