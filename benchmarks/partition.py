"""Benchmark: apportion.partition against METIS, KaMinPar and Mt-KaHyPar, side by side in one run.

    python benchmarks/partition.py --quick      # shared graphs, k in {2, 8, 64}
    python benchmarks/partition.py              # + generated 2^20-vertex graphs, k in {2, 8, 64, 256}, memory
    python benchmarks/partition.py --only rmat_18   # just these instances (full-mode k), own docs marker
    python benchmarks/partition.py --memory     # just the peak-memory comparison on delaunay 2^20
    python benchmarks/partition.py --large [--large-max 22]   # rmat/delaunay 2^21.., k = 64, peak memory
    python benchmarks/partition.py --large-k    # k in the thousands up to n / 2

Everyone runs on the same thread count (default 2), JIT warmed, graph I/O excluded from the times. Prints the
tables and writes them into docs/partition.md between the markers `<!-- BEGIN partition-... -->` and
`<!-- END partition-... -->`. Cut and time ratios are against METIS (pymetis) on the same instance.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import apportion
from apportion.datasets import shared_graph
from apportion.graph.io import read_graph, write_graph
from apportion.partitioning.vertex.options import PRESETS

DOCS = Path(__file__).resolve().parents[1] / "docs" / "partition.md"
SHARED = ["4elt", "fe_4elt2", "wing", "delaunay_n15", "rgg_n_2_15_s0", "astro-ph", "PGPgiantcompo"]
GENERATED = [("delaunay_2^20", "delaunay", dict(n=1 << 20)), ("rgg_2^20", "rgg", dict(n=1 << 20)),
             ("rmat_18", "rmat", dict(n=1 << 18)), ("grid2d_1024", "grid2d", dict(rows=1024, cols=1024))]
EPSILON = 0.03


def run_metis(graph, k, threads):
    import pymetis

    options = pymetis.Options()
    options.seed = 0
    kwargs = dict(xadj=graph.indptr, adjncy=graph.indices, options=options)
    if graph.edge_weights is not None:
        kwargs["eweights"] = graph.edge_weights
    start = time.perf_counter()
    cut, part = pymetis.part_graph(k, **kwargs)
    return time.perf_counter() - start, np.asarray(part)


def run_kaminpar(path, k, threads, strong=False):
    import kaminpar

    kg = kaminpar.load_graph(str(path), kaminpar.GraphFileFormat.METIS)
    solver = kaminpar.KaMinPar(threads, kaminpar.strong_context() if strong else kaminpar.default_context())
    kaminpar.reseed(0)
    start = time.perf_counter()
    part = solver.compute_partition(kg, k, EPSILON)
    return time.perf_counter() - start, np.asarray(part)


_MT = {}


def run_mtkahypar(graph, k, threads):
    import mtkahypar

    if "init" not in _MT:
        _MT["init"] = mtkahypar.initialize(threads, False)
    init = _MT["init"]
    ctx = init.context_from_preset(mtkahypar.PresetType.DEFAULT)
    ctx.set_partitioning_parameters(k, EPSILON, mtkahypar.Objective.CUT)
    ctx.logging = False
    mtkahypar.set_seed(0)
    u, v, w = graph.edges()
    edges = np.stack([u, v], axis=1).astype(np.uint64)
    mg = init.create_graph(ctx, graph.n, graph.m, edges) if w is None else \
        init.create_graph(ctx, graph.n, graph.m, edges, [], w.tolist())
    start = time.perf_counter()
    ph = mg.partition(ctx)
    elapsed = time.perf_counter() - start
    return elapsed, np.array([ph.block_id(x) for x in range(graph.n)]) if graph.n < 200_000 else \
        np.asarray(ph.get_partition())


def cut_and_ok(graph, part, k, shares=None):
    u, v, w = graph.edges()
    w = np.ones(u.shape[0], dtype=np.int64) if w is None else w
    cut = int(w[part[u] != part[v]].sum())
    shares = np.full(k, 1 / k) if shares is None else shares
    vw = graph.vertex_weight_vector()
    bw = np.bincount(part, weights=vw, minlength=k)
    # METIS's and KaMinPar's definition, which apportion uses: floor((1 + ε) · ⌈share · W⌉) (the share rounded up
    # to a whole weight first: a block of a skewed 64-way split may hold 1 + ε times its rounded-up target)
    whole = np.ceil(shares * vw.sum() * (1.0 - 1e-12) - 1e-9)
    limit = np.floor((1 + EPSILON) * whole * (1.0 + 1e-12) + 1e-9)
    return cut, bool(np.all(bw <= limit)), float((bw / whole).max() - 1)


def geomean(values):
    values = [v for v in values if v and np.isfinite(v)]
    return float(np.exp(np.mean(np.log(values)))) if values else float("nan")


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_docs(name, text):
    if not DOCS.exists():
        return
    doc = DOCS.read_text()
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    if begin not in doc:
        doc += f"\n{begin}\n{end}\n"
    doc = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: f"{begin}\n{text}\n{end}", doc, flags=re.S)
    DOCS.write_text(doc)


def peak_memory(path, which, k, threads):
    """Resident memory (MiB) of a fresh process that loads the graph arrays from `path` (.npz), then
    partitions it: (RSS after loading, peak RSS during partitioning — the kernel's high-water mark reset after
    loading, so neither the imports' nor the loading's transient peaks count). The difference is what
    partitioning itself needed."""
    code = f"""
import numpy as np, apportion
from apportion.graph.csr import Graph
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1])
d = np.load({str(path)!r})
g = Graph._trusted(d["indptr"], d["indices"], None, None, "g")
open("/proc/self/clear_refs", "w").write("5")  # reset the high-water mark (VmHWM) to the current RSS
base = status("VmRSS")
if {which!r} == 'metis':
    import pymetis; pymetis.part_graph({k}, xadj=g.indptr, adjncy=g.indices)
else:
    apportion.partition(g, {k}, threads={threads})
print(base, status("VmHWM"))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]) / 1024, int(out[1]) / 1024


def memory_text(threads, k=64):
    """Peak memory of METIS and apportion on delaunay 2^20 (each in its own fresh process; the graph is
    generated once here and saved, so the generator's own peak does not hide the partitioners')."""
    graph = apportion.generate("delaunay", seed=0, n=1 << 20)
    path = Path(tempfile.mkdtemp(prefix="apportion-mem-")) / "delaunay.npz"
    np.savez(path, indptr=graph.indptr, indices=graph.indices)
    apportion.partition(graph, k, threads=threads)  # the JIT cache is warm for the subprocess
    base_m, peak_m = peak_memory(path, "metis", k, threads)
    base_a, peak_a = peak_memory(path, "apportion", k, threads)
    return (f"Peak memory on delaunay 2^20, k = {k} (MiB, whole process / above the loaded graph): "
            f"METIS {peak_m:.0f} / {peak_m - base_m:.0f}, apportion {peak_a:.0f} / {peak_a - base_a:.0f}; "
            f"ratio of the increments {(peak_a - base_a) / max(peak_m - base_m, 1):.2f}.")


#: the --large suite: generated graphs of 2^21 vertices and up (doubling to --large-max), k = 64
LARGE_KINDS = ("rmat", "delaunay")
#: the other generated kinds at 2^21 vertices (`--large-more`): a random geometric graph, a weighted road-like
#: graph, a Barabási-Albert graph (heavy-tailed, no hub block) and a 3-D grid (large flat boundaries)
MORE_LARGE_KINDS = ("rgg", "road", "ba", "grid3d")
LARGE_TOOLS = ("apportion fast", "apportion default", "METIS", "KaMinPar default")

_LARGE_RUN = """
import sys, time, numpy as np
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1])
tool, path, graph_file, out, k, threads, warm = sys.argv[1:8]
k, threads = int(k), int(threads)
if tool.startswith("apportion"):
    import apportion
    from apportion.graph.csr import Graph
    # load the kernels from the JIT cache before the clock starts, as KaMinPar's library is loaded before its: the
    # same call on a small graph of the same kind, read from a file as the large one is (generating it here would
    # load the generator's SciPy modules, 13 MB of the peak that a user's process reading its graph does not
    # hold); the renumbering's and the flows' kernels, which only large graphs reach, still load inside the
    # timing: loaded here they would add their 5 MB to the peak
    w = np.load(warm)
    apportion.partition(Graph._trusted(w["indptr"], w["indices"], None, w["weights"] if "weights" in w else None,
                                       "warm"), k,
                        preset=tool.split()[1], threads=threads)
    d = np.load(path)
    g = Graph._trusted(d["indptr"], d["indices"], None, d["weights"] if "weights" in d else None, "g")
    start = time.perf_counter()
    result = apportion.partition(g, k, preset=tool.split()[1], threads=threads, seed=0, imbalance=0.03)
    seconds, part = time.perf_counter() - start, result.assignment
elif tool == "METIS":
    import pymetis
    d = np.load(path)
    options = pymetis.Options()
    options.seed = 0
    start = time.perf_counter()
    _, part = pymetis.part_graph(k, xadj=d["indptr"], adjncy=d["indices"], options=options,
                                 eweights=d["weights"] if "weights" in d else None)
    seconds = time.perf_counter() - start
else:
    import kaminpar
    kg = kaminpar.load_graph(graph_file, kaminpar.GraphFileFormat.METIS)
    solver = kaminpar.KaMinPar(threads, kaminpar.default_context())
    kaminpar.reseed(0)
    start = time.perf_counter()
    part = solver.compute_partition(kg, k, 0.03)
    seconds = time.perf_counter() - start
np.save(out, np.asarray(part, dtype=np.int32))
print(seconds, status("VmHWM"))
"""


def save_graph_arrays(graph, path: Path) -> None:
    """The graph as `_LARGE_RUN` reads it: an .npz of indptr, indices and, for a weighted graph (road), its
    edge weights (which METIS and apportion get as KaMinPar gets them from the METIS file)."""
    weights = {} if graph.edge_weights is None else {"weights": graph.edge_weights}
    np.savez(path, indptr=graph.indptr, indices=graph.indices, **weights)


def save_warm_graph(kind: str, path: Path) -> None:
    """The small graph of `kind` (2^12 vertices, seed 1) on which `_LARGE_RUN` loads apportion's kernels before
    its clock starts, saved as the large graph is (`save_graph_arrays`)."""
    save_graph_arrays(apportion.generate(kind, n=1 << 12, seed=1), path)


def warm_up(k: int, threads: int, kinds: tuple[str, ...] = ("rmat", "delaunay")) -> None:
    """Compile every kernel the large graphs reach, so the subprocesses load the JIT cache instead of timing
    a compilation: both presets on a small graph of each kind, once more with the flows both presets run only
    from 2^21 vertices (`flow_min_vertices`) and the breadth-first renumbering they run only from 2^19
    (`reorder_min_vertices`; until 2026-11-27 not warmed, so the first large mesh's run after a change to those
    kernels compiled them inside its timing). Each kind, not one of each family: a weighted graph (road) reaches
    kernels compiled for stored edge weights, which the unweighted ones' broadcast weights do not (until
    2026-11-28 road 2^21's first run, `fast`, compiled them inside its timing: 28 s instead of 1.8 s)."""
    from apportion.partitioning.vertex.options import preset_options

    for kind in kinds:
        graph = apportion.generate(kind, n=1 << 12 if kind in ("rmat", "grid3d") else 1 << 14, seed=0)  # 16³
        for preset in ("fast", "default"):
            apportion.partition(graph, k, preset=preset, threads=threads)
            apportion.partition(graph, k, preset=preset_options(preset, flow_min_vertices=0, reorder="bfs"),
                                threads=threads)


def large_text(threads: int, max_log: int, k: int = 64, kinds: tuple[str, ...] = LARGE_KINDS) -> str:
    """The --large suite: each tool in a fresh process (graph read from disk inside it, so its peak RSS is the
    whole process's, reading included), on rmat and delaunay of 2^21 vertices doubling up to 2^max_log."""
    tmp = Path(tempfile.mkdtemp(prefix="apportion-large-"))
    rows = []
    warm_up(k, threads, kinds)
    for log in range(21, max_log + 1):
        for kind in kinds:
            graph = apportion.generate(kind, n=1 << log, seed=0)
            npz, text, warm = tmp / f"{kind}.npz", tmp / f"{kind}.graph", tmp / f"{kind}-warm.npz"
            save_graph_arrays(graph, npz)
            save_warm_graph(kind, warm)
            write_graph(graph, text)
            results = {}
            for tool in LARGE_TOOLS:
                out = tmp / "part.npy"
                try:
                    run = subprocess.run([sys.executable, "-c", _LARGE_RUN, tool, str(npz), str(text), str(out),
                                          str(k), str(threads), str(warm)], capture_output=True, text=True, check=True)
                    seconds, peak_kib = run.stdout.split()[-2:]
                    cut, ok, _ = cut_and_ok(graph, np.load(out), k)
                    results[tool] = (float(seconds), int(peak_kib) / 2**20, cut, ok)
                except (subprocess.CalledProcessError, ValueError) as exc:  # an anchor failing is reported
                    print(f"{tool} failed on {kind} 2^{log}: {getattr(exc, 'stderr', exc)}", file=sys.stderr)
                    results[tool] = (float("nan"), float("nan"), 0, False)
                print(f"[large] {kind} 2^{log} {tool}: {results[tool]}", flush=True)
            kmp_t, kmp_mem = results["KaMinPar default"][:2]
            metis_cut = results["METIS"][2]
            for tool in LARGE_TOOLS:
                t, mem, cut, ok = results[tool]
                rows.append([f"{kind} 2^{log}" if tool == LARGE_TOOLS[0] else "", tool, f"{t:.1f}",
                             f"{t / kmp_t:.2f}", f"{mem:.2f}", f"{mem / kmp_mem:.2f}", f"{cut:,}",
                             f"{cut / metis_cut:.3f}" if metis_cut else "–", "yes" if ok else "NO"])
            (tmp / f"{kind}.graph").unlink()
    return (f"Mode `large`, k = {k}, ε = 0.03, {threads} threads, seed 0; every tool in a fresh process, one after "
            f"another; peak memory is the process's peak resident set (VmHWM), reading the graph included "
            f"(apportion and METIS from NumPy arrays, KaMinPar from its METIS file); apportion's kernels are loaded "
            f"from Numba's cache before its clock starts (the same call on a 2^12-vertex graph of the same kind, as "
            f"KaMinPar's library is loaded before its).\n\n"
            + table(["graph", "tool", "time (s)", "time / KaMinPar", "peak GB", "memory / KaMinPar", "cut",
                     "cut / METIS", "balanced"], rows))


def large_k_instances():
    """The --large-k suite: (label, graph, k) with k in the thousands and up to n / 2, where the initial
    partitioning's k - 1 splits and the balance kernels' per-block work decide the time."""
    path = apportion.Graph.from_edges(np.arange(10**5 - 1), np.arange(1, 10**5), n=10**5)
    mesh = apportion.generate("delaunay", n=10**5, seed=0)
    u, v, _ = mesh.edges()
    loose = apportion.Graph.from_edges(u, v, n=10**6)  # 90 % isolated vertices
    return [("path 10^5", path, 5 * 10**4), ("delaunay 10^5", mesh, 5 * 10**4),
            ("grid2d 1000²", apportion.generate("grid2d", rows=1000, cols=1000), 8192),
            ("rmat 2^18", apportion.generate("rmat", n=1 << 18, seed=0), 8192),
            ("delaunay 10^5 + 9·10^5 isolated", loose, 8192)]


LARGE_K_TOOLS = ("apportion fast", "apportion default", "apportion strong", "METIS", "KaMinPar default",
                 "KaMinPar strong")


def large_k_text(threads: int) -> str:
    """The --large-k suite, in this process one tool after another (JIT warmed on a small large-k instance)."""
    warm = apportion.generate("delaunay", n=4096, seed=1)
    for preset in ("fast", "default", "strong"):
        apportion.partition(warm, 2048, preset=preset, threads=threads)
    tmp = Path(tempfile.mkdtemp(prefix="apportion-large-k-"))
    rows = []
    failures = {}  # (graph label, tool) -> the first line of its error
    for label, graph, k in large_k_instances():
        path = tmp / "graph.graph"
        write_graph(graph, path)
        results = {}
        for tool in LARGE_K_TOOLS:
            try:
                if tool.startswith("apportion"):
                    start = time.perf_counter()
                    part = apportion.partition(graph, k, preset=tool.split()[1], threads=threads, seed=0,
                                               imbalance=EPSILON).assignment
                    seconds = time.perf_counter() - start
                elif tool == "METIS":
                    seconds, part = run_metis(graph, k, threads)
                else:
                    seconds, part = run_kaminpar(path, k, threads, strong=tool.endswith("strong"))
                cut, ok, _ = cut_and_ok(graph, np.asarray(part), k)
                results[tool] = (seconds, cut, ok)
            except Exception as exc:  # an anchor failing is reported, not fatal
                print(f"{tool} failed on {label}, k = {k}: {exc}", file=sys.stderr)
                failures[(label, tool)] = str(exc).splitlines()[0][:60] if str(exc) else type(exc).__name__
                results[tool] = (float("nan"), 0, False)
            print(f"[large-k] {label} k={k} {tool}: {results[tool]}", flush=True)
        kmp_time, metis_cut = results["KaMinPar default"][0], results["METIS"][1]
        for tool in LARGE_K_TOOLS:
            seconds, cut, ok = results[tool]
            first = [label if tool == LARGE_K_TOOLS[0] else "", f"{k:,}" if tool == LARGE_K_TOOLS[0] else "", tool]
            if (label, tool) in failures:
                rows.append(first + [f"failed: {failures[(label, tool)]}", "–", "–", "–", "–"])
                continue
            rows.append(first + [f"{seconds:.2f}", f"{seconds / kmp_time:.2f}", f"{cut:,}",
                                 f"{cut / metis_cut:.3f}" if metis_cut else "–", "yes" if ok else "NO"])
        path.unlink()
    return (f"Mode `large-k`, ε = {EPSILON}, {threads} threads, seed 0, in one process one tool after another "
            f"(apportion's kernels compiled before on a 4096-vertex mesh at k = 2048; graph I/O excluded; KaMinPar "
            f"from its METIS file); the machine is shared with other jobs (times are noisy).\n\n"
            + table(["graph", "k", "tool", "time (s)", "time / KaMinPar default", "cut", "cut / METIS", "balanced"],
                    rows))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shared graphs only, k in {2, 8, 64}")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-docs", action="store_true", help="do not write docs/partition.md")
    parser.add_argument("--only", default=None,
                        help="comma-separated instance names (e.g. rmat_18): run just those, all k of the full "
                             "mode, and write the table under its own marker partition-only-<names>")
    parser.add_argument("--memory", action="store_true",
                        help="only the peak-memory comparison on delaunay 2^20 (marker partition-memory)")
    parser.add_argument("--large", action="store_true",
                        help="only the large suite: rmat and delaunay of 2^21 vertices and up, k = 64, each tool "
                             "in a fresh process with its peak memory (marker partition-large)")
    parser.add_argument("--large-max", type=int, default=21, metavar="LOG2",
                        help="the large suite doubles the graphs up to 2^LOG2 vertices (default 21)")
    parser.add_argument("--large-more", action="store_true",
                        help="the large suite's runner on the other generated kinds (rgg, road, ba, grid3d) of "
                             "2^21 vertices (marker partition-large-more)")
    parser.add_argument("--large-k", action="store_true",
                        help="only the large-k suite: k from 8192 to n / 2 on meshes, a path, R-MAT and a graph of "
                             "isolated vertices (marker partition-large-k)")
    args = parser.parse_args()
    threads = args.threads
    # the single-table modes: (chosen, docs marker, how to make the table)
    for chosen, marker, make in ((args.large_k, "partition-large-k", lambda: large_k_text(threads)),
                                 (args.large, "partition-large", lambda: large_text(threads, args.large_max)),
                                 (args.large_more, "partition-large-more",
                                  lambda: large_text(threads, 21, kinds=MORE_LARGE_KINDS)),
                                 (args.memory, "partition-memory", lambda: memory_text(threads))):
        if chosen:
            text = make()
            print(text)
            if not args.no_docs:
                write_docs(marker, text)
            return 0
    ks = [2, 8, 64] if args.quick else [2, 8, 64, 256]
    only = set(args.only.split(",")) if args.only else None
    # the larger real graphs live in the optional shared folder (FileNotFoundError naming APPORTION_GRAPHS)
    instances = [(name, read_graph(shared_graph(f"{name}.graph"))) for name in SHARED if only is None or name in only]
    if not args.quick:
        for label, kind, spec in GENERATED:
            if only is None or label in only:
                instances.append((label, apportion.generate(kind, seed=0, **spec)))
    warm = read_graph(shared_graph("4elt.graph"))
    tmp = Path(tempfile.mkdtemp(prefix="apportion-bench-"))
    # warm the JIT
    apportion.partition(warm, 8, threads=threads)
    apportion.partition(warm, 8, threads=threads, preset="quality", targets=np.arange(1, 9))
    tools = list(PRESETS) + ["KaMinPar", "KaMinPar-strong", "Mt-KaHyPar"]
    quality_rows, time_rows, phase_rows, balance_rows = [], [], [], []
    ratios = {t: [] for t in tools}
    tratios = {t: [] for t in tools}
    tratios_big = {t: [] for t in tools}
    all_balanced = True
    for name, graph in instances:
        path = tmp / f"{name}.graph"
        write_graph(graph, path)
        for k in ks:
            if k > graph.n:
                continue
            results = {}
            tm, pm = run_metis(graph, k, threads)
            results["METIS"] = (tm,) + cut_and_ok(graph, pm, k)
            for preset in PRESETS:
                p = apportion.partition(graph, k, preset=preset, threads=threads, seed=0)
                results[preset] = (p.times["total"], p.cut, p.balanced, p.imbalance)
                all_balanced &= p.balanced
                if preset == "default":
                    phase_rows.append([name, k] + [f"{p.times.get(ph, 0.0):.3f}" for ph in
                                                   ("coarsen", "initial", "project", "refine", "rebalance",
                                                    "total")] + [p.levels])
            for label, fn in (("KaMinPar", lambda: run_kaminpar(path, k, threads)),
                              ("KaMinPar-strong", lambda: run_kaminpar(path, k, threads, strong=True)),
                              ("Mt-KaHyPar", lambda: run_mtkahypar(graph, k, threads))):
                try:
                    t, part = fn()
                    results[label] = (t,) + cut_and_ok(graph, part, k)
                except Exception as exc:  # an anchor failing is reported, not fatal
                    print(f"{label} failed on {name} k={k}: {exc}", file=sys.stderr)
                    results[label] = (float("nan"), 0, False, float("nan"))
            metis_time, metis_cut = results["METIS"][0], results["METIS"][1]
            row_q = [name, k, metis_cut]
            row_t = [name, k, f"{metis_time:.3f}"]
            for tool in tools:
                t, cut = results[tool][0], results[tool][1]
                r = cut / metis_cut if metis_cut else float("nan")
                ratios[tool].append(r)
                tratios[tool].append(t / metis_time)
                if graph.n >= 1 << 20:
                    tratios_big[tool].append(t / metis_time)
                row_q.append(f"{r:.3f}" + ("" if results[tool][2] else " ✗"))
                row_t.append(f"{t / metis_time:.2f}")
            quality_rows.append(row_q)
            time_rows.append(row_t)
            print(" ".join(map(str, row_q)), "|", " ".join(map(str, row_t[2:])), flush=True)
        # balance with unequal targets
        for label, targets in (("4,2,1,1", np.array([4, 2, 1, 1], float)),
                               ("64 skewed", np.geomspace(1, 16, 64))):
            if len(targets) > graph.n:
                continue
            p = apportion.partition(graph, len(targets), targets=targets, threads=threads)
            cut, ok, imb = cut_and_ok(graph, p.assignment, len(targets), targets / targets.sum())
            all_balanced &= ok and p.balanced
            balance_rows.append([name, label, p.cut, f"{p.imbalance:.4f}", "yes" if ok else "NO"])
    summary = [["geometric-mean cut / METIS"] + [f"{geomean(ratios[t]):.3f}" for t in tools],
               ["largest cut / METIS"] + [f"{max(ratios[t]):.3f}" for t in tools],
               ["geometric-mean time / METIS"] + [f"{geomean(tratios[t]):.2f}" for t in tools]]
    if not args.quick:
        summary.append(["time / METIS, n ≥ 2^20"] + [f"{geomean(tratios_big[t]):.2f}" for t in tools])
    mode = "quick" if args.quick else "full" if only is None else "only-" + "-".join(sorted(only))
    header = [""] + [f"apportion {preset}" for preset in PRESETS] + ["KaMinPar default", "KaMinPar strong",
                                                                      "Mt-KaHyPar default"]
    text = (f"Mode `{mode}`, {threads} threads, ε = {EPSILON}, seed 0, machine shared with other jobs "
            f"(times are noisy). Every apportion run balanced: **{'yes' if all_balanced else 'NO'}**.\n\n"
            + table(header, summary) + "\n\nCut / METIS cut per instance (✗ = a block above its limit):\n\n"
            + table(["graph", "k", "METIS cut"] + tools, quality_rows)
            + "\n\nTime / METIS time per instance:\n\n" + table(["graph", "k", "METIS s"] + tools, time_rows)
            + "\n\nPer-phase seconds of `default`:\n\n"
            + table(["graph", "k", "coarsen", "initial", "project", "refine", "rebalance", "total", "levels"],
                    phase_rows)
            + "\n\nUnequal targets (`default`):\n\n"
            + table(["graph", "targets", "cut", "imbalance", "within ε"], balance_rows))
    if not args.quick and only is None:
        text += "\n\n" + memory_text(threads)
    print(text)
    if not args.no_docs:
        write_docs(f"partition-{mode}", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
