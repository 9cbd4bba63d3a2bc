"""The picture of `apportion threshold --plot`: run time against threshold, the estimate and the best marked
(seed 004 Figs. 3, 5, 8 show the same comparison per input). Imports matplotlib, so it is loaded only when a
picture is asked for."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the backend

from apportion._pictures import save_figure  # noqa: E402


def draw_threshold_curve(curve: dict[float, float], estimate: float, estimate_time: float, best: float,
                         path: str, *, title: str = "", unit: str = "threshold", log_x: bool = False) -> None:
    """Write the curve threshold → seconds to `path` (format by extension), with the estimate and the best."""
    thresholds = sorted(curve)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(thresholds, [curve[t] * 1e3 for t in thresholds], color="0.3", lw=1.2, marker=".", ms=3,
            label="run time (exhaustive)")
    ax.axvline(best, color="tab:green", ls="--", lw=1, label=f"best {best:g}")
    ax.scatter([estimate], [estimate_time * 1e3], color="tab:red", zorder=3, label=f"estimate {estimate:g}")
    if log_x:
        ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel(unit)
    ax.set_ylabel("run time (ms)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        save_figure(fig, path, option="--plot")
    finally:
        plt.close(fig)
