"""Each kernel is compiled once: no second copy for an int32 id, a literal constant or another array type.

Every extra copy costs compile time on a machine's first run (Numba types and compiles a function again for each
new argument type, and a literal `0` or `True` passed to a helper counts as a type of its own). The check runs
the vertex and edge partitioners' main paths in a fresh process, so only the signatures those paths create are
counted, then lists every apportion kernel holding more than one.
"""

import json
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
copies = {}
for module in list(sys.modules.values()):
    if getattr(module, "__name__", "").startswith("apportion"):
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
                copies[module.__name__ + "." + name] = [str(s) for s in obj.signatures]
print(json.dumps(copies))
"""


def test_partitioners_compile_one_copy_of_each_kernel():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    copies = json.loads(out.stdout.strip().splitlines()[-1])
    used = {name: sigs for name, sigs in copies.items() if sigs}
    assert len(used) > 40  # the paths really ran: dozens of kernels compiled or loaded from the cache
    several = {name: sigs for name, sigs in used.items() if len(sigs) > 1}
    assert not several, f"kernels compiled more than once: {json.dumps(several, indent=1)}"
