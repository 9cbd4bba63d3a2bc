"""Progress and console output shared by the library and the CLI.

Progress bars appear only when stderr is a terminal and the user did not ask for quiet; long operations call
`progress(...)` and never need to know whether a bar is shown.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")

_quiet = False


def set_quiet(quiet: bool) -> None:
    global _quiet
    _quiet = bool(quiet)


def progress_enabled() -> bool:
    return not _quiet and sys.stderr.isatty()


class _NullTask:
    def advance(self, amount: float = 1.0) -> None:
        pass

    def update(self, completed: float | None = None, total: float | None = None, description: str | None = None) -> None:
        pass


class _RichTask:
    def __init__(self, bar, task_id):
        self._bar = bar
        self._id = task_id

    def advance(self, amount: float = 1.0) -> None:
        self._bar.advance(self._id, amount)

    def update(self, completed: float | None = None, total: float | None = None, description: str | None = None) -> None:
        kwargs = {}
        if completed is not None:
            kwargs["completed"] = completed
        if total is not None:
            kwargs["total"] = total
        if description is not None:
            kwargs["description"] = description
        self._bar.update(self._id, **kwargs)


@contextlib.contextmanager
def progress(description: str, total: float | None = None) -> Iterator[_NullTask | _RichTask]:
    """A progress task: `with progress("reading", total=size) as task: task.advance(n)`.

    Shows a transient rich bar on stderr after a short delay when enabled; otherwise does nothing.
    """
    if not progress_enabled():
        yield _NullTask()
        return
    from rich.console import Console
    from rich.progress import (BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    if total is None:  # no measure of the work: a spinner and the elapsed time
        columns = (SpinnerColumn(), TextColumn("[bold]{task.description}"), TimeElapsedColumn())
    else:
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                   TimeElapsedColumn(), TimeRemainingColumn())
    bar = Progress(*columns, console=Console(stderr=True), transient=True)
    with bar:
        yield _RichTask(bar, bar.add_task(description, total=total))


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Iterate with a progress bar when enabled."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with progress(description, total=total) as task:
        for item in items:
            yield item
            task.advance(1)


class Stopwatch:
    """Named phase timings: `with watch.phase("coarsen"): ...`; `watch.times` maps phase → seconds."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.times[name] = self.times.get(name, 0.0) + time.perf_counter() - start
