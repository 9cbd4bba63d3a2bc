"""Helpers shared by the command modules: common flags, JSON output, tables, graph loading, output checks.

Every command that reads a graph declares it with `add_graph_input` (the positional GRAPH plus the reading
options `--format`, `--base`, `--relabel`, `--bipartite`, `--strict`) and reads it with `load_graph_args`;
`load_graph` is the one place a command-line graph name becomes a Graph. Every command that writes a file
calls `check_outputs` before any work: an output that is one of its inputs, or whose folder is missing, is
refused with one line.
"""

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

    def run(args: argparse.Namespace) -> int:
        reports_to_stderr(False)  # each command starts with its report on stdout (see check_outputs)
        return handler(args)

    run.__doc__ = handler.__doc__
    parser.set_defaults(handler=run)
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


# where reports go: stdout, unless stdout carries the command's output file (`-o -`)
_report_to_stderr = False


def reports_to_stderr(enabled: bool = True) -> None:
    """Send the report (table or JSON) to stderr: stdout carries the output file (`-o -`)."""
    global _report_to_stderr
    _report_to_stderr = enabled


def _report_stream():
    return sys.stderr if _report_to_stderr else sys.stdout


def emit_json(obj: dict) -> None:
    _report_stream().write(json.dumps(to_jsonable(obj), indent=None, separators=(", ", ": ")) + "\n")


def print_table(title: str, rows: list[tuple[str, Any]]) -> None:
    """A two-column key/value table on stdout via rich."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column(justify="right")
    for key, value in rows:
        table.add_row(key, format_value(value))
    Console(file=_report_stream()).print(table)


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


GRAPH_HELP = ("graph file: .graph/.metis/.mgraph/.chaco (METIS), .mtx/.mm (Matrix Market), "
              ".txt/.edgelist/.el/.edges/.tsv (edge list), .npz (apportion binary); gzip/bzip2/xz data is read whatever the name "
              "(x.graph.gz: the format under the suffix); - reads standard input (with --format); "
              "dataset:NAME is a graph shipped with apportion (`apportion datasets`)")


def add_graph_input(parser: argparse.ArgumentParser, dest: str = "graph", metavar: str = "GRAPH",
                    help: str = GRAPH_HELP) -> None:
    """The positional graph argument and the reading options every graph-reading command shares."""
    parser.add_argument(dest, metavar=metavar, help=help)
    add_read_options(parser)


def add_read_options(parser: argparse.ArgumentParser) -> None:
    """`--format`, `--base`, `--relabel`, `--bipartite`, `--strict` (docs/cli.md, "Reading graphs")."""
    group = parser.add_argument_group("reading the graph")
    group.add_argument("--format", default=None, choices=("metis", "mtx", "edgelist", "npz"),
                       help="input format when the extension does not tell (needed for - and pipes)")
    group.add_argument("--base", type=int, choices=(0, 1), default=None,
                       help="edge lists: ids start at 0 (default) or 1")
    group.add_argument("--relabel", action="store_true",
                       help="edge lists: number the ids that occur 0..n-1 (for sparse or huge ids)")
    group.add_argument("--bipartite", action="store_true",
                       help=".mtx: read the bipartite row/column graph (n = rows + cols) instead of A + Aᵀ")
    group.add_argument("--strict", action="store_true", help="self-loops are errors instead of being dropped")


def read_options(args: argparse.Namespace) -> dict:
    """The `read_graph` keyword options the reading flags in `args` ask for (flags left off are omitted)."""
    options: dict = {"format": args.format, "strict": args.strict}
    if args.bipartite:
        options["bipartite"] = True
    if args.base is not None:
        options["base"] = args.base
    if args.relabel:
        options["relabel"] = True
    return options


def load_graph(path: str, strict: bool = False, **options):
    """Read the graph a command line names (a file, `-` for standard input); `options` are `read_graph`'s
    (format, base, relabel, bipartite). Errors are InputErrors naming the file.

    This is the single place where a command-line graph name is resolved into a Graph: `dataset:NAME` is a
    graph shipped with apportion (the reading options do not apply to it).
    """
    from apportion.graph.io import read_graph

    return read_graph(path, strict=strict, **options)


def load_graph_args(args: argparse.Namespace, path: str | None = None):
    """`load_graph` of `path` (default `args.graph`) with the reading options of `args`."""
    options = read_options(args)
    return load_graph(args.graph if path is None else path, **options)


def check_outputs(outputs, inputs=()) -> None:
    """Refuse, before any work, outputs that cannot be written or would overwrite an input.

    `outputs` and `inputs` are paths (None entries are skipped; `-` is standard input/output and never
    clashes). An output that is the same file as an input (also through a symlink, a hard link or `./x`), a
    path that is a folder, or a folder that does not exist is an InputError naming the user's path. When an
    output is `-`, the command's report goes to stderr (stdout carries the output).
    """
    import os

    from apportion._atomic import check_writable

    for output in outputs:
        if output is None:
            continue
        output = str(output)
        if output == "-":
            reports_to_stderr()
            continue
        check_writable(output)
        for source in inputs:
            if source is None or str(source) == "-":
                continue
            if _same_file(output, str(source)):
                raise InputError(f"the output is the input {str(source)!r}: refusing to overwrite it "
                                 "(name another output file)", path=output)
    named = [str(o) for o in outputs if o is not None and str(o) != "-"]
    real = [os.path.realpath(o) for o in named]
    if len(set(real)) < len(real):
        raise InputError("the same file is named for two outputs", path=named[0])


def _same_file(a: str, b: str) -> bool:
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare where the names lead
        return os.path.realpath(a) == os.path.realpath(b)


def default_partition_path(graph: str, k: int) -> str:
    """gpmetis's output name GRAPH.part.K, next to the graph (a compression suffix is dropped: x.graph.gz →
    x.graph.part.K); for a shipped graph `dataset:NAME`, NAME.part.K in the current folder. Standard input has no
    name to build it from."""
    from apportion.datasets import is_argument
    from apportion.graph.io._source import strip_compression

    if is_argument(graph):
        return f"{graph.split(':', 1)[1]}.part.{k}"
    if graph == "-":
        raise InputError("-o without a file name writes GRAPH.part.K, but the graph is standard input: name "
                         "the output file")
    return f"{strip_compression(graph)}.part.{k}"


#: the most entries a number list may expand to ("2x1000000000000" is refused, not a MemoryError)
MAX_LIST_ENTRIES = 1_000_000


def parse_number_list(text: str, what: str, cast=float) -> list:
    """Parse a comma-separated list of numbers such as '4,2,1,1'. An entry VALUExCOUNT (or VALUE×COUNT) stands
    for COUNT copies of VALUE: '2x10,4x5' is ten 2s then five 4s. Spaces are ignored; an empty entry ('1,,2',
    a leading or trailing comma), a count below 1 or a list of more than MAX_LIST_ENTRIES entries is an
    InputError naming `what` (the flag)."""
    values: list = []
    tokens = text.replace(" ", "").split(",")
    if tokens == [""]:
        raise InputError(f"{what}: empty list")
    for position, token in enumerate(tokens, start=1):
        if not token:
            raise InputError(f"{what}: entry {position} of {text!r} is empty (write numbers separated by "
                             "single commas)")
        try:
            if "x" in token or "×" in token:
                value, count_text = token.replace("×", "x").split("x")
                count = int(count_text)
                if count < 1:
                    raise InputError(f"{what}: the count in {token!r} must be at least 1")
                if len(values) + count > MAX_LIST_ENTRIES:
                    raise InputError(f"{what}: more than {MAX_LIST_ENTRIES:,} entries")
                values.extend([cast(value)] * count)
            else:
                values.append(cast(token))
        except InputError:
            raise
        except ValueError:  # (InputError is a ValueError too, hence the clause above)
            raise InputError(f"{what}: cannot read {token!r} as a number (or VALUExCOUNT)") from None
        if len(values) > MAX_LIST_ENTRIES:
            raise InputError(f"{what}: more than {MAX_LIST_ENTRIES:,} entries")
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
