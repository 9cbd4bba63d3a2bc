"""Demo section: edge partitioning of a power-law graph, vertex copies by method (seed 001)."""

from __future__ import annotations

import time

TITLE = "Edge partitioning: vertex copies by method (SPAC, seed 001)"
ORDER = 30


_K = 16


def _demo_graph(ctx):
    import apportion

    # a generated power-law graph small enough for the section to stay within a few seconds (wiki-Vote, 2.5×
    # larger, is in docs/edge-partition.md with every method and Mt-KaHyPar)
    return apportion.generate("ba", 4000, seed=ctx.seed, m_attach=5)


def warm(ctx) -> None:
    """Compile this section's kernels that do not need the vertex partitioner (streaming methods, NE and the
    group-move refinement), so a first-run warm-up can do that beside the partitioner's compilation."""
    from apportion.partitioning.edge.api import partition_edges

    graph = _demo_graph(ctx)
    for method in ("random", "dbh", "hdrf", "ne"):
        partition_edges(graph, _K, method=method, seed=ctx.seed)


def run(ctx) -> None:
    import warnings

    from rich.table import Table

    from apportion.partitioning.edge.api import partition_edges

    warnings.simplefilter("ignore")
    graph = _demo_graph(ctx)
    k = _K
    ctx.console.print(f"{graph.name or 'Barabási–Albert graph'}: {graph.n:,} vertices, {graph.m:,} edges, power-law degrees; "
                      f"k = {k} parts, exact edge balance (imbalance 0)")
    table = Table(show_header=True, header_style="bold")
    for column in ("method", "vertex copies", "without refinement", "replication factor", "edges per part (min–max)",
                   "time (s)"):
        table.add_column(column, justify="right" if column != "method" else "left")
    # WVP, SPAC's default vertex preset and Mt-KaHyPar are left out to keep the section short;
    # benchmarks/edge_partition.py runs them all
    runs = [("random", "random", {}), ("dbh", "dbh", {}), ("hdrf", "hdrf", {}), ("ne", "ne", {}),
            ("spac (fast vertex preset)", "spac", {"vertex_preset": "fast"})]
    for label, method, options in runs:
        t0 = time.perf_counter()
        result = partition_edges(graph, k, method=method, seed=ctx.seed, **options)
        before = result.details.get("copies_before_refine")
        table.add_row(label, f"{result.vertex_copies:,}", "–" if before is None else f"{before:,}",
                      f"{result.replication_factor:.3f}",
                      f"{result.edges_per_part.min():,}–{result.edges_per_part.max():,}",
                      f"{time.perf_counter() - t0:.2f}")
    ctx.console.print(table)
    ctx.console.print("copies = Σ_v (parts holding v − 1); spac and ne end with the group-move refinement "
                      "(\"without refinement\": their copies before it). Every method against Mt-KaHyPar on real "
                      "graphs: docs/edge-partition.md.")
