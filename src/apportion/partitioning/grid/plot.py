"""Pictures of grid partitions (matplotlib, imported only when a picture is drawn)."""

from __future__ import annotations

from apportion._atomic import atomic_path


def plot_rectangles(rect, path: str, ax=None, title: str | None = None) -> None:
    """Draw `rect`'s pieces coloured by speed group, with each processor's message count; atomic write when
    `ax` is None."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle as Patch

    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(6, 6 * rect.rows / max(rect.cols, 1) if rect.cols >= rect.rows else 6))
    groups = sorted(set(rect.speeds.tolist()), reverse=True)
    colours = plt.get_cmap("tab10")
    messages = rect.metrics.messages if rect.metrics is not None else None
    for j in range(rect.pieces):
        i = int(rect.owner[j])
        colour = colours(groups.index(float(rect.speeds[i])) % 10)
        ax.add_patch(Patch((rect.col[j], rect.row[j]), rect.width[j], rect.height[j], facecolor=colour,
                           edgecolor="black", linewidth=0.8, alpha=0.8))
        if messages is not None and rect.height[j] * rect.width[j] > 0.002 * rect.rows * rect.cols:
            ax.text(rect.col[j] + rect.width[j] / 2, rect.row[j] + rect.height[j] / 2, str(int(messages[i])),
                    ha="center", va="center", fontsize=7)
    ax.set_xlim(0, rect.cols)
    ax.set_ylim(rect.rows, 0)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    label = title or rect.method
    if rect.metrics is not None:
        label += f": {rect.metrics.data_items} items, max {rect.metrics.max_messages} messages"
    ax.set_title(label, fontsize=9)
    if own:
        handles = [Patch((0, 0), 1, 1, facecolor=colours(k % 10)) for k in range(len(groups))]
        ax.legend(handles, [f"speed {g:g}" for g in groups], loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)
        fig.tight_layout()
        with atomic_path(path, ".png") as tmp:
            fig.savefig(tmp, dpi=120, format="png")
        plt.close(fig)
