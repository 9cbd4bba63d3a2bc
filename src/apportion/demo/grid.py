"""Demo section: NPHP and PHP side by side for the dissertation's 29-processor example (seed 002, Figure 3-9)."""

from __future__ import annotations

TITLE = "Grid partitioning: NPHP vs PHP (seed 002)"
ORDER = 50

EXAMPLE_29 = [2] * 10 + [4] * 5 + [5] * 4 + [3] * 5 + [1] * 5


def run(ctx) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rich.table import Table

    from apportion.partitioning.grid import partition_grid
    from apportion.partitioning.grid.plot import plot_rectangles

    n = 2000
    table = Table(title=f"29 processors (2×10, 4×5, 5×4, 3×5, 1×5) on a {n}×{n} grid")
    for column in ("method", "data items / n", "max messages", "total messages", "comm time (s)"):
        table.add_column(column, justify="right")
    results = {}
    for method in ("rows", "php", "nphp", "best"):
        rect = partition_grid(n, n, EXAMPLE_29, method=method)
        results[method] = rect
        m = rect.metrics
        table.add_row(method if method != "best" else f"best ({rect.method})", f"{m.data_items / n:.2f}",
                      str(m.max_messages), str(m.total_messages), f"{m.comm_time_s:.4f}")
    ctx.console.print(table)
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.5))
    plot_rectangles(results["php"], None, ax=axes[0], title="PHP")
    plot_rectangles(results["nphp"], None, ax=axes[1], title="NPHP")
    fig.tight_layout()
    path = ctx.picture("grid_nphp_vs_php.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    ctx.console.print(f"NPHP vs PHP picture: {path} (numbers: messages per processor)")
