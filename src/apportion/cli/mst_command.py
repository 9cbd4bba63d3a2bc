"""Commands: mst (issue: multilevel partitioner, Borůvka MST)."""

from __future__ import annotations


def register(subparsers) -> None:
    """Add this group's commands (filled in by the subsystem that owns them)."""
