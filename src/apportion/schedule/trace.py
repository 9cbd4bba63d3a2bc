"""Trace: what every device did and when — transfer, launch, compute, idle (and profile, failed) intervals.

Every policy records one (seed 000 ch. 3.3: the makespan and the split per round are read off it). Times are
seconds from the start of the run (simulated seconds for simulated platforms). `gantt(path)` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from apportion._atomic import atomic_path

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

    def gantt(self, path: str | Path, title: str = "", rounds: list[int] | None = None) -> Path:
        """Draw a Gantt chart (one row per device, colour per interval kind) to a PNG, atomically."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch

        chosen = [i for i in self.intervals if rounds is None or i.round in rounds]
        n = len(self.device_names)
        fig, ax = plt.subplots(figsize=(10, 1.0 + 0.55 * n))
        for kind in KINDS:
            for d in range(n):
                bars = [(i.start, i.duration) for i in chosen if i.device == d and i.kind == kind]
                if bars:
                    ax.broken_barh(bars, (d - 0.38, 0.76), facecolors=COLOURS[kind], linewidth=0)
        for r, start in enumerate(self.round_starts):
            if rounds is None or r in rounds:
                ax.axvline(start, color="#555555", linewidth=0.6, linestyle=":")
        ax.set_yticks(range(n))
        ax.set_yticklabels(self.device_names)
        ax.invert_yaxis()
        ax.set_xlabel("seconds")
        if title:
            ax.set_title(title)
        used = {i.kind for i in chosen}
        ax.legend(handles=[Patch(color=COLOURS[k], label=k) for k in KINDS if k in used], loc="center left",
                  bbox_to_anchor=(1.01, 0.5), ncol=1, frameon=False, fontsize=8)
        fig.tight_layout()
        path = Path(path)
        with atomic_path(path, suffix=".png") as tmp:
            fig.savefig(tmp, dpi=110, format="png")
        plt.close(fig)
        return path
