"""The optional shared graphs folder (larger real graphs for benchmarks; tests and the demo use the shipped
`apportion.datasets` instead).

Looked up in this order: $APPORTION_GRAPHS; a `shared/graphs` folder in the current directory or any parent;
`../shared/graphs` beside any of those. None when not found.
"""

from __future__ import annotations

import os
from pathlib import Path


def shared_graphs_dir() -> Path | None:
    env = os.environ.get("APPORTION_GRAPHS")
    if env:
        path = Path(env)
        return path if path.is_dir() else None
    starts = [Path.cwd(), Path(__file__).resolve().parent]
    for start in starts:
        for folder in [start, *start.parents]:
            for candidate in (folder / "shared" / "graphs", folder.parent / "shared" / "graphs"):
                if candidate.is_dir():
                    return candidate
    return None


def shared_graph(name: str) -> Path:
    """Path of one shared graph file; FileNotFoundError naming what was looked for when it is absent."""
    folder = shared_graphs_dir()
    if folder is None or not (folder / name).is_file():
        raise FileNotFoundError(f"shared graph {name!r} not found (set APPORTION_GRAPHS to the graphs folder)")
    return folder / name
