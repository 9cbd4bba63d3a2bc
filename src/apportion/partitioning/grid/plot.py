"""Pictures of grid partitions: rectangles coloured by processor speed, each with its message count
(matplotlib, imported only when a picture is drawn)."""

from __future__ import annotations

import textwrap

from apportion._pictures import check_picture_path, save_figure

#: what the pictures of `plot_rectangles` / `draw_rectangles` show, printed under them
RECTANGLES_CAPTION = ("Colour: the processor's speed. Number: messages the processor sends per iteration "
                      "(one to each processor whose rectangle touches its own).")
#: a grid whose rows / columns ratio is beyond this (or below its inverse) is drawn stretched to this ratio, and
#: says so in its title: drawn to scale, a 20 x 4,000 grid is a line one pixel high
MAX_DRAWN_ASPECT = 4.0


def drawn_aspect(rows: int, cols: int) -> float:
    """The height / width ratio the picture of a rows x cols grid is drawn at: the grid's own, clamped to
    [1 / MAX_DRAWN_ASPECT, MAX_DRAWN_ASPECT]."""
    aspect = rows / max(cols, 1)
    return min(max(aspect, 1.0 / MAX_DRAWN_ASPECT), MAX_DRAWN_ASPECT)


def draw_rectangles(ax, rect, title: str | None = None) -> tuple[list, list[str]]:
    """Draw `rect`'s pieces on the matplotlib axes `ax`: coloured by speed group, each labelled with its
    processor's message count (pieces too small to hold a number stay blank), axes in grid columns and rows
    (row 0 at the top, as in the grid's arrays). Returns the legend's (handles, labels), one per speed group."""
    from matplotlib.patches import Rectangle as Patch
    from matplotlib.ticker import MaxNLocator

    groups = sorted(set(rect.speeds.tolist()), reverse=True)
    counts = {g: int((rect.speeds == g).sum()) for g in groups}
    colours = _speed_colours(len(groups))
    messages = rect.metrics.messages if rect.metrics is not None else None
    for j in range(rect.pieces):
        i = int(rect.owner[j])
        colour = colours[groups.index(float(rect.speeds[i]))]
        ax.add_patch(Patch((rect.col[j], rect.row[j]), rect.width[j], rect.height[j], facecolor=colour,
                           edgecolor="black", linewidth=0.8))
        roomy = min(rect.width[j] / max(rect.cols, 1), rect.height[j] / max(rect.rows, 1)) >= 0.025
        if messages is not None and roomy:
            ax.text(rect.col[j] + rect.width[j] / 2, rect.row[j] + rect.height[j] / 2, str(int(messages[i])),
                    ha="center", va="center", fontsize=7)
    ax.set_xlim(0, rect.cols)
    ax.set_ylim(rect.rows, 0)
    aspect = rect.rows / max(rect.cols, 1)
    drawn = drawn_aspect(rect.rows, rect.cols)
    ax.set_aspect(drawn / aspect if aspect > 0 else "equal")  # y units per x unit on the page
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    ax.tick_params(labelsize=7)
    ax.set_xlabel("column", fontsize=8)
    ax.set_ylabel("row", fontsize=8)
    method = rect.method.upper() if rect.method in ("sgp", "asgp", "php", "nphp") else rect.method
    label = f"{title or method}: {rect.p} processors, {rect.rows:,} × {rect.cols:,} grid"
    if aspect > 0 and drawn != aspect:
        stretched = f"rows drawn {drawn / aspect:,.0f}× taller" if drawn > aspect else \
            f"columns drawn {aspect / drawn:,.0f}× wider"
        label += f"\nnot to scale: {stretched} than they are"
    if rect.metrics is not None:
        label += (f"\n{rect.metrics.data_items:,} items and ≤ {rect.metrics.max_messages} messages per processor "
                  "per iteration")
    ax.set_title(label, fontsize=9)
    handles = [Patch((0, 0), 1, 1, facecolor=colours[k], edgecolor="black", linewidth=0.5)
               for k in range(len(groups))]
    labels = [f"speed {g:g} ({counts[g]} processor{'s' if counts[g] > 1 else ''})" for g in groups]
    return handles, labels


def _speed_colours(count: int) -> list:
    """One colour per speed group, fastest first: tab10, or evenly spaced viridis beyond ten groups."""
    from matplotlib import colormaps

    if count <= 10:
        return [colormaps["tab10"](k) for k in range(count)]
    return [colormaps["viridis"](k / (count - 1)) for k in range(count)]


def plot_rectangles(rect, path, ax=None, title: str | None = None) -> None:
    """Draw `rect` (see `draw_rectangles`) with a legend of speed groups and a caption saying what the numbers
    are, and save it to `path` in the format its extension names (atomic write; InputError for an unknown
    extension). With `ax`, only draw the rectangles on it (the caller composes and saves the figure)."""
    if ax is not None:
        draw_rectangles(ax, rect, title)
        return
    from matplotlib.figure import Figure

    check_picture_path(path, "--plot")
    fig = Figure(figsize=(6.4, max(3.0, min(9.0, 5.0 * drawn_aspect(rect.rows, rect.cols) + 1.2))))
    ax = fig.add_subplot()
    handles, labels = draw_rectangles(ax, rect, title)
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=7, title="colour",
              title_fontsize=7, frameon=False)
    # under the axis label whatever the axes' height (points, not a fraction of the axes)
    ax.annotate(_wrap(RECTANGLES_CAPTION, 90), xy=(0.0, 0.0), xycoords="axes fraction", xytext=(0, -34),
                textcoords="offset points", ha="left", va="top", fontsize=7)
    save_figure(fig, path, dpi=120, option="--plot")


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width))
