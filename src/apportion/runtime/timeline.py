"""What each device of a runtime run did, in the runtime's words: busy, waiting, sending, failed.

A run's `trace` (`schedule.trace.Trace`) records the worker threads' intervals under the scheduler's kinds:
compute = busy (a kernel call), idle = waiting (for items, at a soft-priority threshold, for a free buffer),
transfer = sending (SplitSend and the router), failed = the device died. `device_times` sums them per device
and `draw_timeline` draws the per-device timeline picture with the runtime's names in the legend (the command
line's `run --trace` and the demo).
"""

from __future__ import annotations

from pathlib import Path

from apportion.schedule.trace import Trace

#: trace kind -> the runtime's word for it
RUNTIME_NAMES = {"compute": "busy", "idle": "waiting", "transfer": "sending", "failed": "failed"}


def device_times(trace: Trace) -> list[dict]:
    """One dict per device: {"name", "busy_s", "waiting_s", "sending_s", "failed_s"} (seconds, whole run)."""
    by_kind = trace.time_by_kind()
    return [{"name": name, **{f"{word}_s": by_kind[name][kind] for kind, word in RUNTIME_NAMES.items()}}
            for name in trace.device_names]


def draw_timeline(trace: Trace, path: str | Path, title: str = "") -> Path:
    """The per-device timeline of a run as a picture at `path` (format by extension, written atomically)."""
    return trace.gantt(path, title=title, labels=RUNTIME_NAMES, xlabel="seconds since the run started")
