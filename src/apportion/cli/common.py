"""Helpers shared by the command modules: common flags, JSON output, tables, graph loading."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable

import numpy as np

from apportion.errors import InputError


def add_command(subparsers, name: str, handler: Callable[[argparse.Namespace], int], help: str,
                description: str | None = None, json_output: bool = True) -> argparse.ArgumentParser:
    """Add a command with the flags every command shares (`--quiet`, and `--json` when it reports results)."""
    parser = subparsers.add_parser(name, help=help, description=description or help)
    parser.set_defaults(handler=handler)
    if json_output:
        parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    return parser


def to_jsonable(value: Any) -> Any:
    """Convert NumPy scalars/arrays and nested containers into plain JSON types."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        f = float(value)
        return f if np.isfinite(f) else None
    if isinstance(value, float) and not np.isfinite(value):
        return None
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def emit_json(obj: dict) -> None:
    sys.stdout.write(json.dumps(to_jsonable(obj), indent=None, separators=(", ", ": ")) + "\n")


def print_table(title: str, rows: list[tuple[str, Any]]) -> None:
    """A two-column key/value table on stdout via rich."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column(justify="right")
    for key, value in rows:
        table.add_row(key, format_value(value))
    Console().print(table)


def format_value(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if v == 0 or 1e-3 <= abs(v) < 1e6:
            return f"{v:,.4g}" if abs(v) < 1000 else f"{v:,.1f}"
        return f"{v:.3e}"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (list, tuple, np.ndarray)):
        items = list(value)
        shown = ", ".join(format_value(v) for v in items[:8])
        return shown + (f", … ({len(items)} in all)" if len(items) > 8 else "")
    return str(value)


def load_graph(path: str, strict: bool = False):
    """Read a graph file for a command (or the shipped graph `dataset:NAME` names); errors become InputError
    naming the file."""
    from apportion.datasets import from_argument
    from apportion.graph.io import read_graph

    shipped = from_argument(path)
    if shipped is not None:
        return shipped
    return read_graph(path, strict=strict)


def parse_number_list(text: str, what: str, cast=float) -> list:
    """Parse '4,2,1,1' (also '2x10,4x5': ten 2s then five 4s... written count-major as 10x2? no: VALUExCOUNT)."""
    values: list = []
    for token in text.replace(" ", "").split(","):
        if not token:
            continue
        try:
            if "x" in token or "×" in token:
                value, count = token.replace("×", "x").split("x")
                values.extend([cast(value)] * int(count))
            else:
                values.append(cast(token))
        except ValueError:
            raise InputError(f"{what}: cannot read {token!r} as a number") from None
    if not values:
        raise InputError(f"{what}: empty list")
    return values


def platform_argument(spec: str):
    """`resolve_platform(spec)` for a command's --platform; library warnings (a GPU that `auto` leaves out)
    are printed at once as `apportion: warning: …` lines on stderr."""
    import warnings

    from apportion.platform.platform import resolve_platform

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        platform = resolve_platform(spec)
    for item in caught:
        sys.stderr.write(f"apportion: warning: {str(item.message).splitlines()[0]}\n")
    return platform
