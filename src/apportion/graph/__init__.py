"""Graphs: the CSR `Graph`, readers and writers, generators and partition metrics."""

from apportion.graph.csr import Graph

__all__ = ["Graph"]
