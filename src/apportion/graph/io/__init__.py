"""Reading and writing graph files: METIS `.graph`, Matrix Market `.mtx`, edge lists and apportion's `.npz`.

`read_graph(path)` and `write_graph(graph, path)` pick the format from the extension (or `format=`), looking
under a compression suffix (`x.graph.gz` is METIS); the format modules hold the rules. Every reader is
streaming and vectorised (Numba tokenizer, no Python loop per line or edge) and raises `InputError` naming the
file, the line and the problem for malformed input. Readers recognise gzip, bzip2 and xz data by its content
whatever the name (`_source.py`), read `-` as standard input and read pipes front to back; writers compress
when the name ends in `.gz`, `.bz2` or `.xz` and write `-` to standard output.
"""

from __future__ import annotations

import os
from pathlib import Path

from apportion.errors import InputError
from apportion.graph.csr import Graph, as_graph
from apportion.graph.io._source import is_stdin, sourced, strip_compression

# extension -> format name
EXTENSIONS: dict[str, str] = {
    ".graph": "metis", ".metis": "metis", ".mgraph": "metis", ".chaco": "metis",
    ".mtx": "mtx", ".mm": "mtx",
    ".txt": "edgelist", ".edgelist": "edgelist", ".el": "edgelist", ".edges": "edgelist", ".tsv": "edgelist",
    ".npz": "npz",
}
FORMATS = ("metis", "mtx", "edgelist", "npz")

# options each reader accepts besides strict/name
_READ_OPTIONS = {
    "metis": set(),
    "mtx": {"bipartite"},
    "edgelist": {"base", "relabel", "weighted"},
    "npz": set(),
}


def format_of(path: str | os.PathLike, format: str | None = None) -> str:
    """The format name for `path`: `format` when given, else from the extension under any compression suffix
    (`x.mtx.bz2` → "mtx"); InputError if unknown, and for `-` (standard input/output has no name)."""
    if format is not None:
        fmt = format.lower().lstrip(".")
        fmt = {"graph": "metis", "edges": "edgelist", "txt": "edgelist", "el": "edgelist"}.get(fmt, fmt)
        if fmt not in FORMATS:
            raise InputError(f"unknown graph format {format!r} (one of {', '.join(FORMATS)})")
        return fmt
    if is_stdin(path):
        raise InputError("standard input/output has no file name to tell the graph format from: pass the format "
                         "(--format / format=)", path="-")
    suffix = Path(strip_compression(path)).suffix.lower()
    if suffix not in EXTENSIONS:
        known = ", ".join(sorted(EXTENSIONS))
        raise InputError(f"cannot tell the graph format from the extension {suffix or '(none)'!r} "
                         f"(known: {known}; or pass --format / format=)", path=str(path))
    return EXTENSIONS[suffix]


def read_graph(path: str | os.PathLike, *, format: str | None = None, strict: bool = False, **options) -> Graph:
    """Read a graph file into an undirected simple `Graph`.

    Args:
        path: the file; its extension (under a `.gz`/`.bz2`/`.xz` suffix) picks the format unless `format` is
            given ("metis", "mtx", "edgelist", "npz"). Compressed data (gzip, bzip2, xz) is recognised by its
            content whatever the name; `-` is standard input (give `format`); pipes and `/dev/stdin` work.
            `dataset:NAME` is a graph shipped with apportion (`apportion.datasets`; the options do not apply).
        strict: self-loops are errors instead of being dropped with a warning.
        options: per format — mtx: `bipartite`; edgelist: `base` (0/1), `relabel` (None/True/False),
            `weighted`; all: `name`. An option another format uses is ignored when it is None/False
            (so the CLI can pass `--bipartite` / `--base` uniformly); otherwise it is an error.

    Raises:
        InputError: malformed content, naming the file, the line (where meaningful) and the problem; sizes
            whose arrays cannot fit in this machine's memory.
        FileNotFoundError: the file does not exist.
    """
    path = _path_argument(path, "read_graph")
    from apportion.datasets import from_argument  # the catalogue only: its reader loads when it is used

    shipped = from_argument(path)  # `dataset:NAME`, as on the command line
    if shipped is not None:
        return shipped
    fmt = format_of(path, format)
    if not is_stdin(path):
        if os.path.isdir(path):
            raise InputError("is a directory, not a graph file", path=path)
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
    accepted = _READ_OPTIONS[fmt] | {"name"}
    kwargs = {}
    for key, value in options.items():
        if key in accepted:
            kwargs[key] = value
        elif key in {"bipartite", "base", "relabel", "weighted"} and value in (None, False, 0):
            continue
        else:
            raise InputError(f"option {key}={value!r} does not apply to {fmt} files", path=path)
    if fmt == "metis":
        from apportion.graph.io.metis import read_metis as reader
    elif fmt == "mtx":
        from apportion.graph.io.mtx import read_mtx as reader
    elif fmt == "edgelist":
        from apportion.graph.io.edgelist import read_edgelist as reader
    else:
        from apportion.graph.io.npz import read_npz as reader
    try:
        with sourced(path) as source:
            if fmt != "npz":
                source.text_head()  # binary content is refused before any format rule quotes it
            return reader(source, strict=strict, **kwargs)
    except InputError as error:  # a check of the Graph itself (weight totals) does not know the file
        raise error.at(path) from None


def names_matrix_market(path: str, format: str | None = None) -> bool:
    """Whether the input argument `path` is a Matrix Market file by its name (`.mtx`, `.mm`, under a
    compression suffix or not) or by `format="mtx"`: False for `dataset:NAME` and for a name that says nothing
    (the graph reader then says why). The apps that multiply matrices read such a file with
    `mtx.read_matrix`, values kept, instead of as a graph."""
    from apportion.datasets import is_argument  # the catalogue only, as in read_graph

    if is_argument(path):
        return False
    try:
        return format_of(path, format) == "mtx"
    except InputError:
        return False


def _path_argument(path, function: str) -> str:
    """`path` as a string when it is one (a str or an os.PathLike of one); InputError naming its type otherwise
    (None, bytes, an open file: `str(None)` would have opened a file called 'None')."""
    if isinstance(path, str):
        return path
    if isinstance(path, os.PathLike):
        name = os.fspath(path)
        if isinstance(name, str):
            return name
    raise InputError(f"{function}: the path must be a str or a pathlib.Path, got {type(path).__name__}")


def write_graph(graph: Graph, path: str | os.PathLike, *, format: str | None = None) -> None:
    """Write `graph` to `path` in the format of its extension (or `format`), atomically.

    METIS and `.npz` keep every weight; Matrix Market and edge lists keep edge weights only (a warning says
    vertex weights were dropped). A name ending in `.gz`/`.bz2`/`.xz` is compressed; `-` is standard output
    (give `format`). The folder must exist. `graph` is anything the library's functions take (`as_graph`: a
    Graph, a NetworkX graph, a SciPy sparse matrix); anything else is an InputError naming its type.
    """
    graph = as_graph(graph)
    path = _path_argument(path, "write_graph")
    fmt = format_of(path, format)
    if fmt == "metis":
        from apportion.graph.io.metis import write_metis as writer
    elif fmt == "mtx":
        from apportion.graph.io.mtx import write_mtx as writer
    elif fmt == "edgelist":
        from apportion.graph.io.edgelist import write_edgelist as writer
    else:
        from apportion.graph.io.npz import write_npz as writer
    writer(graph, path)


__all__ = ["read_graph", "write_graph", "format_of", "names_matrix_market", "EXTENSIONS", "FORMATS"]
