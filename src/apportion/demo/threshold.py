"""Demo section: thresholds of seed 004's split algorithms found on a sample, against the exhaustive search."""

from __future__ import annotations

TITLE = "Work split by sampling: the threshold of a CPU/GPU split algorithm (seed 004)"
ORDER = 42


def run(ctx) -> None:
    """Connected components and A×A of the shipped 4elt mesh, and scale-free A×A of an R-MAT matrix, on the
    simulated Xeon + K40c pair: the default estimate against the best threshold of the exhaustive search (the
    paper's Table I metrics), with the spmm curve drawn; then connected components on this machine's two CPU
    threads, checked against SciPy."""
    import numpy as np
    from rich.table import Table
    from scipy.sparse.csgraph import connected_components

    from apportion import datasets
    from apportion.apps.threshold import APPLICATIONS, compare_threshold, find_threshold, run_split
    from apportion.apps.threshold_plot import draw_threshold_curve
    from apportion.graph.generate import generate

    mesh = datasets.load("4elt")
    inputs = [("cc", mesh, "4elt", "% of vertices on CPU"), ("spmm", mesh, "4elt", "% of work on CPU"),
              ("hh", generate("rmat", 1 << 11, seed=ctx.seed).to_scipy(), "R-MAT 2^11", "row length")]
    table = Table(title="default estimator on the simulated seed004 pair (Xeon E5-2650 ×2 + Tesla K40c) against "
                        "the exhaustive search", title_justify="left")
    for column in ("app", "input", "threshold", "estimate", "best", "time diff. %", "overhead %", "runs"):
        table.add_column(column, justify="left" if column in ("app", "input", "threshold") else "right")
    reports = {}
    for app, data, label, unit in inputs:
        report = compare_threshold(app, data, "seed004", seed=ctx.seed)
        reports[app] = report
        table.add_row(app, label, unit, f"{report['threshold']:g}", f"{report['best_threshold']:g}",
                      f"{report['time_difference_pct']:.1f}", f"{report['overhead_pct']:.0f}", str(report["runs"]))
    ctx.console.print(table)
    spmm = reports["spmm"]
    path = ctx.picture("threshold_spmm_4elt.png")
    draw_threshold_curve(spmm["curve"], spmm["threshold"], spmm["run_s"], spmm["best_threshold"], str(path),
                         title="A×A of 4elt on simulated seed004: run time against the CPU's share of the work",
                         unit=APPLICATIONS["spmm"].unit)
    ctx.console.print(f"curve: {path}")

    estimate = find_threshold("cc", mesh, "local-pair", seed=ctx.seed)
    run = run_split("cc", mesh, "local-pair", estimate.threshold)
    _count, reference = connected_components(mesh.to_scipy(), directed=False)
    same = bool(np.array_equal(reference[run.result], reference)) and \
        len(np.unique(run.result)) == len(np.unique(reference))
    ctx.console.print(f"this machine (local-pair: two CPU threads), cc of 4elt: estimate {estimate.threshold:g} % of "
                      f"the vertices on the CPU side in {estimate.runs} sample runs ({estimate.seconds * 1e3:.2f} ms); "
                      f"run {run.time_s * 1e3:.2f} ms; components {'match' if same else 'DIFFER FROM'} SciPy's. "
                      "Measurements over 12-15 inputs: docs/threshold.md.")
