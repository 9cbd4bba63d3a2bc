"""Errors apportion raises on purpose.

`InputError` is bad input from the user (a malformed file, impossible targets, k > n): the CLI prints its one-line
message and exits with status 2. Anything else that escapes is an internal failure (exit status 1).
"""

from __future__ import annotations


class ApportionError(Exception):
    """Base class of every error apportion raises deliberately."""


class InputError(ApportionError, ValueError):
    """Bad input: names the file (when there is one), the line (when known) and the problem, on one line."""

    def __init__(self, problem: str, *, path: str | None = None, line: int | None = None):
        self.problem = problem
        self.path = None if path is None else str(path)
        self.line = line
        super().__init__(self._format())

    def _format(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        return where + self.problem.replace("\n", " ")

    def at(self, path: str | None = None, line: int | None = None) -> "InputError":
        """The same problem, located in `path` (and `line`) when it was not located yet."""
        return InputError(self.problem, path=self.path or path, line=self.line if self.line is not None else line)


class UnavailableError(ApportionError):
    """An optional capability is missing (CuPy without a GPU, Ray not installed, an anchor not installed)."""
