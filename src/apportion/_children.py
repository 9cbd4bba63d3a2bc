"""Child processes that must not outlive an interrupted command.

A Ctrl-C at the terminal reaches the whole process group, so children stop by themselves; a SIGINT sent to the
command alone (`kill -INT PID`, a supervisor) does not, and the command's handler ends it at once
(`cli/main.py`: `os._exit`, nothing unwinds), which left `apportion compile`'s worker processes compiling on
every core. A command registers the children it starts (`started`); the handler calls `terminate_all`.
"""

from __future__ import annotations

import subprocess

_running: list[subprocess.Popen] = []


def started(process: subprocess.Popen) -> subprocess.Popen:
    """Remember `process` until it ends; returns it."""
    _running[:] = [p for p in _running if p.poll() is None]
    _running.append(process)
    return process


def terminate_all() -> None:
    """SIGTERM to every remembered child still running (never waits: called from a signal handler)."""
    for process in _running:
        try:
            if process.poll() is None:
                process.terminate()
        except OSError:
            pass
