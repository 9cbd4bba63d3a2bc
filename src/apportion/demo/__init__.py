"""The demo: every module in this package with `TITLE`, `ORDER` and `run(ctx)` is one section.

Sections are found by module discovery, so each subsystem adds its own file and never edits a shared list.
A section prints with `ctx.console` and saves pictures under `ctx.output`; the real graphs it shows come from
`apportion.datasets` (shipped in the package), so the demo needs nothing beside the installed package.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from apportion import _children as children
from apportion.errors import InputError
from apportion.ui import progress


@dataclass
class DemoContext:
    console: Console
    output: Path
    seed: int = 0
    drawn: list = field(default_factory=list)  # the pictures' names this run asked for, in order

    def picture(self, name: str) -> Path:
        """Path for a picture in the output folder (the folder exists); the run's closing line lists it."""
        self.output.mkdir(parents=True, exist_ok=True)
        if name not in self.drawn:
            self.drawn.append(name)
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


# Sections that share the vertex partitioner's kernels (SPAC partitions its transformed graph with it) compile in
# the same worker, so no kernel is compiled twice during the parallel warm-up.
_SHARED_KERNEL_GROUPS = ({"partition", "edge"},)


def _short_name(module) -> str:
    return module.__name__.rsplit(".", 1)[-1]


def warm_up_groups(names: list[str], workers: int, warmable: frozenset[str] = frozenset()) -> list[list[str]]:
    """Split section names over `workers` processes for the first-run compilation.

    Sections sharing kernels stay together in the first worker; the rest go round-robin over the others, each
    list in demo order. A shared section in `warmable` (it has a `warm(ctx)` that compiles its kernels outside
    the shared ones) also gets a job `"<name>:warm"` at the start of the second worker: the first worker
    reaches that section only after the sections before it, so by then those kernels are in the on-disk cache
    instead of being compiled by both workers at once. (Numba looks in the cache at a kernel's first call in a
    process, so the order of the jobs decides which worker compiles what.)"""
    if workers <= 1 or len(names) <= 1:
        return [list(names)]
    groups: list[list[str]] = [[] for _ in range(workers)]
    shared = set().union(*_SHARED_KERNEL_GROUPS)
    rest = [name for name in names if name not in shared]
    groups[0] = [name for name in names if name in shared]
    others = range(1, workers) if groups[0] else range(workers)
    for i, name in enumerate(rest):
        groups[others[i % len(others)]].append(name)
    if len(groups[0]) > 1:  # one shared section alone compiles nothing twice: no split needed
        groups[1][:0] = [f"{name}:warm" for name in groups[0] if name in warmable]
    return [group for group in groups if group]


def _warm_worker(jobs: list[str]) -> None:
    """Run the named sections once with output thrown away (or, for `"<name>:warm"`, only the section's `warm`):
    this compiles (and caches) their Numba kernels."""
    import matplotlib

    matplotlib.use("Agg")
    by_name = {_short_name(module): module for module in sections()}
    with open(os.devnull, "w") as sink, tempfile.TemporaryDirectory(prefix="apportion-warm-") as folder:
        ctx = DemoContext(console=Console(file=sink), output=Path(folder))
        for job in jobs:
            name, _, mode = job.partition(":")
            try:
                module = by_name[name]
                (module.warm if mode == "warm" else module.run)(ctx)
            except Exception:  # the real run that follows reports any failure properly
                pass


def _compile_in_parallel(chosen: list, workers: int) -> None:
    """First run: compile the sections' kernels in parallel worker processes (Numba compiles on one core per
    process) so that the real, sequential run finds them all in the on-disk cache."""
    names = [_short_name(module) for module in chosen]
    warmable = frozenset(_short_name(module) for module in chosen if hasattr(module, "warm"))
    groups = warm_up_groups(names, workers, warmable)
    procs = []
    for group in groups:
        code = f"from apportion.demo import _warm_worker; _warm_worker({group!r})"
        procs.append(children.started(subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                                                       stderr=subprocess.DEVNULL)))
    try:
        with progress("compiling kernels", total=len(procs)) as task:
            for proc in procs:
                proc.wait()
                task.advance()
    finally:  # interrupted (Ctrl-C, or SIGINT to this process alone): the workers go with it
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()


def compile_kernels(workers: int | None = None, force: bool = False) -> dict:
    """Compile (and cache on disk) the Numba kernels that the demo's sections use, which are those of every
    main command, in `workers` parallel processes (default: one per core, at most 4). This is the first-run
    cost of apportion; `make demo` pays it while installing so that the demo itself starts warm.

    Returns {"compiled": bool, "seconds": float, "workers": int}; nothing is compiled when the kernels are
    already in the cache, unless `force`."""
    workers = workers or min(os.cpu_count() or 1, 4)
    if _kernels_compiled() and not force:
        return {"compiled": False, "seconds": 0.0, "workers": workers}
    t0 = time.perf_counter()
    _compile_in_parallel(sections(), max(1, workers))
    return {"compiled": True, "seconds": round(time.perf_counter() - t0, 3), "workers": workers}


def run_demo(output: str, only: str | None = None) -> int:
    import matplotlib

    matplotlib.use("Agg")
    console = Console()
    ctx = DemoContext(console=console, output=Path(output))
    wanted = [part.strip() for part in only.split(",") if part.strip()] if only else []
    found = sections()
    chosen = [module for module in found if not wanted or any(w in _short_name(module) for w in wanted)]
    if not chosen:
        raise InputError(f"--only {only!r} matches no demo section (sections: "
                         + ", ".join(_short_name(module) for module in found) + ")")
    start = time.perf_counter()
    workers = min(os.cpu_count() or 1, 4)
    if not _kernels_compiled() and workers > 1 and len(chosen) > 1:
        console.print(f"[dim]First run on this machine: compiling apportion's Numba kernels once, in {workers} "
                      "processes (`apportion compile` does this ahead; later runs skip it)...[/]")
        t0 = time.perf_counter()
        _compile_in_parallel(chosen, workers)
        console.print(f"[dim]kernels compiled in {time.perf_counter() - t0:.1f} s[/]")
    elif not _kernels_compiled():
        console.print("[dim]First run on this machine: apportion's Numba kernels compile once as the sections run "
                      "(later runs take seconds).[/]")
    for module in chosen:
        console.print(Rule(f"[bold]{module.TITLE}"))
        t0 = time.perf_counter()
        module.run(ctx)
        console.print(f"[dim]({time.perf_counter() - t0:.1f} s)[/]")
    console.print(Rule())
    pictures = [name for name in ctx.drawn if (ctx.output / name).is_file()]  # this run's, not older ones there
    console.print(f"demo finished in {time.perf_counter() - start:.1f} s; pictures in {ctx.output}/: "
                  + (", ".join(pictures) if pictures else "none"))
    return 0
