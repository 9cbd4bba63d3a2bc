"""Balanced edge partitioning (seed 001): SPAC, streaming baselines, WVP, NE and a hypergraph reference.

Entry point: `apportion.partition_edges` (api.py; `edge_partition` is its earlier name); result: `EdgePartition` (result.py).
"""
