"""Progress and console output shared by the library and the CLI.

Progress lines appear only when stderr is a terminal and the user did not ask for quiet; long operations call
`progress(...)` or `track(...)` and never need to know whether anything is shown. Calls nest: a progress task
opened while another is open (the CLI's line for a whole command, the library's for one of its phases) is drawn
as one more line of the same display, under its parent, and removed when its block ends, so library code may
report progress whoever called it. The display is transient: it is erased when the outermost task ends, so a
terminal keeps only the command's results.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")

_quiet = False
_lock = threading.RLock()
_display = None        # the rich Progress on stderr while at least one task is open, else None
_open_tasks = 0


def set_quiet(quiet: bool) -> None:
    """Silence (True) or allow (False) every progress line of this process (the CLI's --quiet and --json)."""
    global _quiet
    _quiet = bool(quiet)


def progress_enabled() -> bool:
    """Whether progress lines are drawn: not quiet, and stderr is a terminal (never when it is a pipe or file)."""
    if _quiet:
        return False
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False


class _NullTask:
    """The task handed out when nothing is drawn: every call does nothing."""

    def advance(self, amount: float = 1.0) -> None:
        pass

    def update(self, completed: float | None = None, total: float | None = None, description: str | None = None) -> None:
        pass


class _RichTask:
    """One line of the shared display."""

    def __init__(self, display, task_id, indent: str):
        self._display = display
        self._id = task_id
        self._indent = indent

    def advance(self, amount: float = 1.0) -> None:
        self._display.advance(self._id, amount)

    def update(self, completed: float | None = None, total: float | None = None, description: str | None = None) -> None:
        kwargs = {}
        if completed is not None:
            kwargs["completed"] = completed
        if total is not None:
            kwargs["total"] = total
        if description is not None:
            kwargs["description"] = self._indent + description
        self._display.update(self._id, **kwargs)


def _new_display():
    """A transient rich Progress on stderr whose columns suit both kinds of task: with a total, a bar, the
    percentage and the time left; without one, a pulsing bar; always a spinner and the elapsed time."""
    from rich.console import Console
    from rich.progress import (BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.text import Text

    class _RemainingColumn(TimeRemainingColumn):
        def render(self, task):  # nothing rather than "-:--:--" when the amount of work is unknown
            return Text("") if task.total is None else super().render(task)

    return Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(bar_width=30),
                    TaskProgressColumn(), TimeElapsedColumn(), _RemainingColumn(),
                    console=Console(stderr=True), transient=True)


@contextlib.contextmanager
def progress(description: str, total: float | None = None) -> Iterator[_NullTask | _RichTask]:
    """A progress task: `with progress("reading", total=size) as task: task.advance(n)`.

    When enabled, draws one transient line on stderr (a bar when `total` is given, else a spinner), under the
    lines of the tasks already open; otherwise does nothing. `task.update(description=...)` renames the line
    (to show the current phase), `task.update(total=...)` sets the amount of work once known.
    """
    global _display, _open_tasks
    if not progress_enabled():
        yield _NullTask()
        return
    with _lock:
        if _display is None:
            _display = _new_display()
            _display.start()
        display = _display
        indent = "  " * _open_tasks
        task_id = display.add_task(indent + description, total=total)
        _open_tasks += 1
        display.refresh()  # drawn now, not at the next tick: a task that ends sooner is seen too
    try:
        yield _RichTask(display, task_id, indent)
    finally:
        with _lock:
            _open_tasks -= 1
            display.remove_task(task_id)
            if _open_tasks == 0:
                display.stop()
                _display = None


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Iterate over `items` with a progress line when enabled (`total` defaults to len(items) when it has one)."""
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
