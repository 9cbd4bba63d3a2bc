"""Demo section: NPHP and PHP side by side for the dissertation's 29-processor example (seed 002, Figure 3-9)."""

from __future__ import annotations

TITLE = "Grid partitioning: NPHP vs PHP (seed 002)"
ORDER = 50

EXAMPLE_29 = [2] * 10 + [4] * 5 + [5] * 4 + [3] * 5 + [1] * 5


def run(ctx) -> None:
    from matplotlib.figure import Figure
    from rich.table import Table

    from apportion._pictures import save_figure
    from apportion.partitioning.grid import partition_grid
    from apportion.partitioning.grid.plot import RECTANGLES_CAPTION, draw_rectangles

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
    fig = Figure(figsize=(11, 6.4), layout="constrained")
    axes = fig.subplots(1, 2)
    draw_rectangles(axes[0], results["php"], title="PHP")
    handles, labels = draw_rectangles(axes[1], results["nphp"], title="NPHP")
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels), fontsize=8, frameon=False,
               title=RECTANGLES_CAPTION, title_fontsize=8)
    path = save_figure(fig, ctx.picture("grid_nphp_vs_php.png"), dpi=110)
    ctx.console.print(f"NPHP vs PHP picture: {path} (numbers: messages each processor sends per iteration)")
