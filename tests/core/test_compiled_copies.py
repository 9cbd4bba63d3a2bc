"""Each kernel is compiled once: no second copy for an int32 id, a literal constant or another array type.

Every extra copy costs compile time on a machine's first run (Numba types and compiles a function again for each
new argument type, and a literal `0` or `True` passed to a helper counts as a type of its own). The check runs
the vertex and edge partitioners' main paths (k-way FM serial and as parallel searches) in a fresh process, so only the signatures those paths create are
counted, then lists every apportion kernel holding more than one.

One pair of copies is by design: a graph without weights has unit weights that take no memory (a broadcast 1,
`contract.unit_weights` and `unit_edge_weights`: Numba's layout "A"), its coarse levels real weights (layout
"C"), so a kernel that reads the finest level and the coarse ones is compiled for both (about 10 s more on a cold
cache, against 100 MB of ones per 2^21 vertices of a mesh). Copies that differ only there — a read-only int64
(vertex weights) or int32 (edge weights) array "A" against "C" — count as one; every other difference still
fails. Helpers with declared signatures (`_kernels.arrays.with_edge_weights`: one per edge weight dtype) compile
those and nothing else, so they are not counted.
"""

import json
import re
import subprocess
import sys

SCRIPT = """
import json, sys, warnings
warnings.simplefilter("ignore")
import apportion
from numba.core.registry import CPUDispatcher
from apportion.partitioning.edge.api import partition_edges

mesh = apportion.generate("delaunay", 3000, seed=1)
skewed = apportion.generate("rmat", 2 ** 12, seed=1)  # hubs and isolated vertices: the skewed-graph paths
for graph in (mesh, skewed):
    for preset in ("fast", "default"):
        apportion.partition(graph, 4, targets=[2, 1, 1, 1], preset=preset, seed=1)
    for method in ("spac", "ne", "hdrf", "dbh", "random"):
        partition_edges(graph, 8, method=method, seed=1)
# k-way FM as searches side by side (a row-major grid: ids with locality), which large levels run
from apportion.partitioning.vertex.options import preset_options
apportion.partition(apportion.generate("grid2d", rows=60, cols=60), 8, seed=1,
                    preset=preset_options("default", fm_search_seeds=40))
copies = {}
for module in list(sys.modules.values()):
    if getattr(module, "__name__", "").startswith("apportion"):
        for name, obj in vars(module).items():
            if (isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__
                    and obj._can_compile):
                copies[module.__name__ + "." + name] = [str(s) for s in obj.signatures]
print(json.dumps(copies))
"""


def _unit_weights_as_one(signature: str) -> str:
    """A signature with its read-only int64 and int32 arrays of layout "A" (unit weights) read as layout "C"."""
    return re.sub(r"Array\((int64|int32), (\d), 'A', True", r"Array(\1, \2, 'C', True", signature)


def test_unit_weight_copies_are_the_only_ones_forgiven():
    unit = "(Array(int64, 1, 'A', True, aligned=True), int64)"
    coarse = "(Array(int64, 1, 'C', True, aligned=True), int64)"
    writable = "(Array(int64, 1, 'A', False, aligned=True), int64)"
    unit32 = "(Array(int32, 1, 'A', True, aligned=True), int64)"
    assert _unit_weights_as_one(unit) == _unit_weights_as_one(coarse)
    assert _unit_weights_as_one(writable) != _unit_weights_as_one(coarse)
    assert _unit_weights_as_one(unit32) == _unit_weights_as_one(coarse.replace("int64, 1", "int32, 1"))
    assert _unit_weights_as_one(unit32) != _unit_weights_as_one(coarse)  # int32 against int64 weights: two copies


def test_partitioners_compile_one_copy_of_each_kernel():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    copies = json.loads(out.stdout.strip().splitlines()[-1])
    used = {name: sigs for name, sigs in copies.items() if sigs}
    assert len(used) > 40  # the paths really ran: dozens of kernels compiled or loaded from the cache
    several = {name: sigs for name, sigs in used.items() if len({_unit_weights_as_one(s) for s in sigs}) > 1}
    assert not several, f"kernels compiled more than once: {json.dumps(several, indent=1)}"
