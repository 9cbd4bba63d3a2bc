"""The demo: every module in this package with `TITLE`, `ORDER` and `run(ctx)` is one section.

Sections are found by module discovery, so each subsystem adds its own file and never edits a shared list.
A section prints with `ctx.console` and saves pictures under `ctx.output`.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from apportion.datasets import shared_graphs_dir


@dataclass
class DemoContext:
    console: Console
    output: Path
    graphs: Path | None
    seed: int = 0

    def picture(self, name: str) -> Path:
        """Path for a picture in the output folder (the folder exists)."""
        self.output.mkdir(parents=True, exist_ok=True)
        return self.output / name


def sections() -> list:
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "run") and hasattr(module, "ORDER"):
            found.append(module)
    return sorted(found, key=lambda m: m.ORDER)


def _kernels_compiled() -> bool:
    """Whether Numba's on-disk cache already holds the partitioner's kernels (the biggest compile of the demo)."""
    import os

    folder = Path(__file__).resolve().parents[1] / "partitioning" / "vertex"
    cache_root = os.environ.get("NUMBA_CACHE_DIR")
    if cache_root:  # one subfolder per source folder, named "<folder>_<hash>"
        return any(Path(cache_root).glob("vertex_*/_coarsen_kernels.*.nbi"))
    return any((folder / "__pycache__").glob("_coarsen_kernels.*.nbi"))


def run_demo(output: str, only: str | None = None) -> int:
    import matplotlib

    matplotlib.use("Agg")
    console = Console()
    ctx = DemoContext(console=console, output=Path(output), graphs=shared_graphs_dir())
    if not _kernels_compiled():
        console.print("[dim]First run on this machine: apportion's Numba kernels compile once (about 1.5 minutes on "
                      "2 cores); later runs of the demo take seconds.[/]")
    if ctx.graphs is None:
        console.print("[yellow]shared graphs not found (set APPORTION_GRAPHS); using generated graphs only[/]")
    start = time.perf_counter()
    for module in sections():
        if only and only not in module.__name__.rsplit(".", 1)[-1]:
            continue
        console.print(Rule(f"[bold]{module.TITLE}"))
        t0 = time.perf_counter()
        module.run(ctx)
        console.print(f"[dim]({time.perf_counter() - t0:.1f} s)[/]")
    console.print(Rule())
    pictures = sorted(p.name for p in ctx.output.glob("*.png")) if ctx.output.is_dir() else []
    console.print(f"demo finished in {time.perf_counter() - start:.1f} s; pictures in {ctx.output}/: "
                  + (", ".join(pictures) if pictures else "none"))
    return 0
