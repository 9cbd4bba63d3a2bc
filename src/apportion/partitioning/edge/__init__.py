"""Balanced edge partitioning (seed 001): SPAC, streaming baselines, WVP, NE and a hypergraph reference.

Entry point: `apportion.edge_partition` (api.py); result: `EdgePartition` (result.py).
"""
