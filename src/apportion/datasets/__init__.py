"""Small real graphs shipped with apportion, for examples, tests and the demo, the way NetworkX and
scikit-network ship theirs: `names()` lists them, `load(name)` returns a `Graph`, and the command line takes
`dataset:NAME` wherever it reads a GRAPH file (`apportion partition dataset:4elt -k 4`; `apportion datasets`
lists them).

| name             | vertices | edges   | kind                                              | file from           |
|------------------|---------:|--------:|---------------------------------------------------|---------------------|
| karate           |       34 |      78 | social network (Zachary's karate club)            | NetworKit, MIT      |
| jazz             |      198 |   2,742 | collaboration network of jazz musicians           | NetworKit, MIT      |
| polblogs         |    1,490 |  16,715 | US political blog links (266 isolated vertices)   | NetworKit, MIT      |
| test_mgraph      |      766 |   1,314 | METIS's multi-constraint example, 2 vertex weights | METIS, Apache-2.0  |
| wiki-Vote        |    7,115 | 100,762 | Wikipedia votes (SNAP, directed file symmetrised) | NetworKit, MIT      |
| PGPgiantcompo    |   10,680 |  24,316 | PGP web of trust, giant component                 | NetworKit, MIT      |
| 4elt             |   15,606 |  45,878 | 2-D finite-element mesh (Walshaw archive)         | METIS, Apache-2.0   |

Sources and licences: each file was taken unchanged from a public repository and converted with apportion's
own reader; the licence is that repository's (NetworKit: MIT; METIS: Apache-2.0). The data themselves were published with the papers credited in `info(name).credit` (Zachary 1977;
Gleiser and Danon 2003; Adamic and Glance 2005; Leskovec et al. 2010 via SNAP; Boguñá et al. 2004; Walshaw's
graph partitioning archive), which state no licence of their own: cite them when you publish results on them.
`data/NOTICE.md` beside the archives holds the licence texts.

Each graph is a compressed `.npz` archive in the layout of `apportion.graph.io.npz` (so loading validates it
like any user file), about 0.6 MiB in all; `tools/make_datasets.py` rebuilds them from the original files.

`shared_graphs_dir()` / `shared_graph(name)` still find the larger, optional `../shared/graphs` folder used by
the benchmarks (see `apportion.datasets.shared`).
"""

from __future__ import annotations

from pathlib import Path

from apportion.datasets._catalog import DATASETS, Dataset
from apportion.datasets.shared import shared_graph, shared_graphs_dir
from apportion.errors import InputError

__all__ = ["DATASETS", "DATA_DIR", "Dataset", "PREFIX", "from_argument", "info", "is_argument", "load", "names",
           "path", "shared_graph", "shared_graphs_dir"]

DATA_DIR = Path(__file__).resolve().parent / "data"
PREFIX = "dataset:"  # how the command line names a shipped graph: dataset:4elt

_BY_NAME = {entry.name: entry for entry in DATASETS}


def names() -> list[str]:
    """The names of the shipped graphs, smallest first."""
    return [entry.name for entry in sorted(DATASETS, key=lambda entry: (entry.m, entry.name))]


def info(name: str) -> Dataset:
    """The catalog record of one dataset (n, m, kind, weights, origin, credit, licence).

    The name is matched exactly, else ignoring case. Raises InputError naming the known datasets otherwise."""
    entry = _BY_NAME.get(name)
    if entry is None:
        folded = [e for e in DATASETS if e.name.lower() == str(name).lower()]
        if len(folded) != 1:
            raise InputError(f"unknown dataset {name!r} (known: {', '.join(names())})")
        entry = folded[0]
    return entry


def path(name: str) -> Path:
    """The path of one dataset's `.npz` archive inside the installed package."""
    return DATA_DIR / info(name).file


def load(name: str):
    """Load a shipped graph as an `apportion.Graph` named after the dataset (read and validated on every call).

    Raises InputError for an unknown name (the message lists the known ones) and for a damaged archive."""
    # imported here, not at the top: the catalog (names, info, `apportion datasets`) must not pay for the
    # Numba-compiled readers
    from apportion.graph.io.npz import read_npz

    entry = info(name)
    return read_npz(DATA_DIR / entry.file, name=entry.name)


def is_argument(text: object) -> bool:
    """Whether a command-line GRAPH argument names a shipped dataset (`dataset:NAME`)."""
    return isinstance(text, str) and text.startswith(PREFIX)


def from_argument(text: object):
    """The graph a command-line GRAPH argument names when it is `dataset:NAME`, else None (a file path).

    Raises InputError for `dataset:` followed by an unknown or empty name."""
    if not is_argument(text):
        return None
    name = str(text)[len(PREFIX):]
    if not name:
        raise InputError(f"{PREFIX} needs a dataset name (known: {', '.join(names())})")
    return load(name)
