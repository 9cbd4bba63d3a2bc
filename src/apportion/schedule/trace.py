"""Trace: what every device did and when — transfer, launch, compute, idle (and profile, failed) intervals.

Every policy records one (seed 000 ch. 3.3: the makespan and the split per round are read off it). Times are
seconds from the start of the run (simulated seconds for simulated platforms). `gantt(path)` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from apportion._pictures import check_picture_path, save_figure

KINDS = ("transfer", "launch", "compute", "profile", "idle", "failed")
COLOURS = {"transfer": "#f2a65a", "launch": "#8e6cbf", "compute": "#3b7dd8", "profile": "#5bb56b",
           "idle": "#e6e6e6", "failed": "#d64545"}


@dataclass(frozen=True)
class Interval:
    """One stretch of one device's time in one round."""

    device: int
    round: int
    kind: str
    start: float
    end: float
    chunks: int = 0
    note: str = ""

    @property
    def duration(self) -> float:
        return self.end - self.start


@dataclass
class Trace:
    """Intervals per device over all rounds; `device_names[i]` names device i; `round_starts[r]` offsets."""

    device_names: list[str]
    intervals: list[Interval] = field(default_factory=list)
    round_starts: list[float] = field(default_factory=list)
    events: list[str] = field(default_factory=list)

    def add(self, device: int, round_index: int, kind: str, start: float, end: float, chunks: int = 0,
            note: str = "") -> None:
        if kind not in KINDS:
            raise ValueError(kind)
        if end > start:
            self.intervals.append(Interval(device, round_index, kind, float(start), float(end), chunks, note))

    def add_run(self, device: int, round_index: int, start: float, timing, chunks: int, profile: bool = False) -> float:
        """Record one device run laid out as transfer-in, launch, compute, transfer-out; returns its end."""
        t = start
        before = timing.before_compute_s
        self.add(device, round_index, "transfer", t, t + before, chunks)
        t += before
        self.add(device, round_index, "launch", t, t + timing.launch_s, chunks)
        t += timing.launch_s
        self.add(device, round_index, "profile" if profile else "compute", t, t + timing.compute_s, chunks)
        t += timing.compute_s
        after = timing.transfer_s - before
        self.add(device, round_index, "transfer", t, t + after, chunks)
        return t + after

    def fill_idle(self, round_index: int, start: float, end: float) -> None:
        """Mark every gap of every device in [start, end) of a round as idle."""
        for d in range(len(self.device_names)):
            busy = sorted((i.start, i.end) for i in self.intervals if i.device == d and i.round == round_index
                          and i.kind != "idle")
            t = start
            for s, e in busy:
                if s > t + 1e-15:
                    self.add(d, round_index, "idle", t, s)
                t = max(t, e)
            if end > t + 1e-15:
                self.add(d, round_index, "idle", t, end)

    def time_by_kind(self, round_index: int | None = None) -> dict[str, dict[str, float]]:
        """Seconds per device name and kind (one round or all)."""
        out = {name: {k: 0.0 for k in KINDS} for name in self.device_names}
        for i in self.intervals:
            if round_index is None or i.round == round_index:
                out[self.device_names[i.device]][i.kind] += i.duration
        return out

    def to_dict(self) -> dict:
        return {"devices": list(self.device_names), "round_starts": list(self.round_starts),
                "events": list(self.events),
                "intervals": [{"device": i.device, "round": i.round, "kind": i.kind, "start": i.start,
                               "end": i.end, "chunks": i.chunks, **({"note": i.note} if i.note else {})}
                              for i in self.intervals]}

    def gantt(self, path: str | Path, title: str = "", rounds: list[int] | None = None,
              labels: dict[str, str] | None = None, xlabel: str | None = None) -> Path:
        """Draw a Gantt chart: one row per device, a colour per interval kind (legend), dotted lines where the
        rounds start, labelled with their numbers; only `rounds` when given. `labels` renames kinds in the
        legend (the graph runtime's compute/idle/transfer are busy/waiting/sending), `xlabel` replaces the time
        axis's label. Writes `path` in the format its extension names (.png, .svg, .pdf, …) all at once; an
        unknown extension raises InputError before anything is drawn. Returns `path` as a Path."""
        check_picture_path(path)
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        chosen = [i for i in self.intervals if rounds is None or i.round in rounds]
        n = len(self.device_names)
        fig = Figure(figsize=(10, 1.3 + 0.55 * n))
        ax = fig.add_subplot()
        for kind in KINDS:
            for d in range(n):
                bars = [(i.start, i.duration) for i in chosen if i.device == d and i.kind == kind]
                if bars:
                    # an edge of the same colour closes the anti-aliasing seams between back-to-back chunks
                    ax.broken_barh(bars, (d - 0.38, 0.76), facecolors=COLOURS[kind], edgecolors=COLOURS[kind],
                                   linewidth=0.4)
        shown = [(r, start) for r, start in enumerate(self.round_starts) if rounds is None or r in rounds]
        every = max(1, -(-len(shown) // 12))  # at most about twelve round labels, so they never overlap
        for position, (r, start) in enumerate(shown):
            ax.axvline(start, color="#333333", linewidth=0.8, linestyle=":", zorder=3)
            if position % every == 0:
                ax.text(start, 1.01, f"round {r}", transform=ax.get_xaxis_transform(), ha="left", va="bottom",
                        fontsize=7, color="#555555")
        ax.set_yticks(range(n))
        ax.set_yticklabels(self.device_names)
        ax.set_ylim(n - 0.5, -0.5)  # first device at the top
        ax.set_xlabel(xlabel or "seconds since the run started (simulated seconds on a simulated platform)")
        if title:
            ax.set_title(title, pad=16)
        used = {i.kind for i in chosen}
        handles = [Patch(color=COLOURS[k], label=(labels or {}).get(k, k)) for k in KINDS if k in used]
        if shown:
            handles.append(Line2D([], [], color="#333333", linewidth=0.8, linestyle=":", label="round start"))
        ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.01, 0.5), ncol=1, frameon=False, fontsize=8)
        return save_figure(fig, path, dpi=110)
