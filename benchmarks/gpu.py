"""Benchmark: every GPU path of apportion on a real GPU against its CPU path (and cuGraph when installed).

Paths: the scheduler's workloads (PBF, text search: numba-cuda kernels; matmul: cuBLAS through CuPy), the heat
step, the Gaussian-elimination update, locality-aware SpMV and the whole-graph BFS, SSSP, CC and PageRank kernels
(apps/graph_kernels.py) on generated graphs. Each path runs through `Device.run` on a CUDADevice and on a
CPUDevice (the CPU kernels), warmed up first (Numba and numba-cuda compile on first use), best of `--repeats`;
results are checked equal (floating-point results: to 1e-9 in relative L1) before anything is reported. GPU
"total" includes the host <-> device copies, "kernel" is launch + compute.
Locality-aware SpMV (seed 001) runs one thread block per part of a SPAC edge partition against cuSPARSE's CSR SpMV
(through CuPy) on the same matrix. cuGraph (`cugraph-cu12`), when importable, runs BFS, SSSP, PageRank and weakly
connected components on the same graph (its own copy of the graph is built outside the timing). The table goes
into docs/gpu.md between the `gpu` markers.

Without a GPU (none, or only the CUDA simulator) it says so and exits 0, writing nothing: docs/gpu.md keeps
saying "not yet measured on a GPU". `--quick` under NUMBA_ENABLE_CUDASIM=1 is a smoke run of this script on tiny
inputs (prints only).

    .venv/bin/python benchmarks/gpu.py              # on a machine with a GPU: writes docs/gpu.md
    NUMBA_ENABLE_CUDASIM=1 .venv/bin/python benchmarks/gpu.py --quick   # smoke run on the simulator
    .venv/bin/python benchmarks/gpu.py --only partition --partition-max 22   # the partitioner's table, graphs to 2^22

The partitioner's table is rewritten after each graph, so a run cut short keeps the graphs it measured.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _docs import write_generated_block

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "gpu.md"

FULL = {"graph_scale": 18, "pbf": 1 << 24, "text": 1 << 22, "heat": 2048, "matmul": 2048, "spmv_scale": 16,
        "spmv_parts": 512}
QUICK = {"graph_scale": 5, "pbf": 512, "text": 256, "heat": 16, "matmul": 32, "spmv_scale": 5, "spmv_parts": 4}


def best(device, kernels, args, repeats: int):
    """(best wall seconds, best kernel seconds, result) of `repeats` runs after one untimed warm-up."""
    device.warm_up(kernels, *args)
    wall, kernel, result = float("inf"), float("inf"), None
    for _ in range(repeats):
        execution = device.run(kernels, *args)
        wall = min(wall, execution.finished - execution.started)
        kernel = min(kernel, execution.timing.compute_s + execution.timing.launch_s)
        result = execution.result
    return wall, kernel, result


def same(a, b) -> bool:
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" and a.shape == b.shape:
        finite = np.isfinite(b)
        return bool(np.array_equal(np.isfinite(a), finite) and np.abs(a[finite] - b[finite]).sum()
                    <= 1e-9 * max(1.0, float(np.abs(b[finite]).sum())))
    return a.shape == b.shape and bool(np.array_equal(a, b))


def cases(sizes: dict):
    """(name, size label, kernels, args) of every GPU path."""
    import apportion
    from apportion.apps import graph_kernels as gk
    from apportion.apps.gauss import GAUSS_KERNELS
    from apportion.apps.heat import HEAT_KERNELS
    from apportion.apps.pbf import PBF_KERNELS, FilterWorkload
    from apportion.apps.spmv import SPMV_KERNELS
    from apportion.apps.sssp import arc_weights
    from apportion.apps.textsearch import TEXTSEARCH_KERNELS, TextSearchWorkload
    from apportion.graph.csr import Graph

    rng = np.random.default_rng(0)
    pbf = FilterWorkload(rng.random(sizes["pbf"], dtype=np.float32), 0.25, 0.75, 8)
    yield "pbf", f"{sizes['pbf']:,} float32", PBF_KERNELS, pbf.payload(list(range(8)))
    text = bytes(rng.choice(list(b"ACGT"), sizes["text"]).astype(np.uint8))
    search = TextSearchWorkload(text, ["ACGTA", "TTAG", "GGGC", "CAT"], 8)
    yield "textsearch", f"{sizes['text']:,} bytes, 4 patterns", TEXTSEARCH_KERNELS, search.payload(list(range(8)))
    side = sizes["heat"]
    yield "heat step", f"{side} x {side}", HEAT_KERNELS, (rng.random((side + 2, side + 2)), np.empty((side, side)),
                                                          0.2)
    # one elimination update of the whole block (k = -1); zero multipliers leave the values as they were, so the
    # repeated runs (in place on the CPU) compare equal while doing the full multiply-subtract work
    yield "gauss update", f"{side} x {side}", GAUSS_KERNELS, (rng.standard_normal((side, side)), 0, 0, -1,
                                                              np.zeros(side), rng.standard_normal(side))
    base = apportion.generate("rmat", scale=sizes["graph_scale"], seed=0)
    u, v, _ = base.edges()
    graph = Graph.from_edges(u, v, rng.integers(1, 100, u.shape[0]), n=base.n)
    label = f"rmat scale {sizes['graph_scale']}"
    # locality-aware SpMV (seed 001): the adjacency matrix of an R-MAT graph, nonzeros split by SPAC into parts, one
    # thread block per part; the label gives the distinct loads against k consecutive chunks of the CSR order
    matrix, plan, loads = spmv_case(sizes)
    yield ("spmv (locality-aware)", f"rmat {sizes['spmv_scale']} adjacency, {sizes['spmv_parts']} parts, loads "
           f"{loads[0]:,} vs {loads[1]:,} unpartitioned", SPMV_KERNELS, plan.kernel_args(rng.random(matrix.shape[1])))
    yield "bfs", label, gk.BFS_KERNELS, (graph.indptr, graph.indices, np.int64(0))
    yield "sssp", label, gk.SSSP_KERNELS, (graph.indptr, graph.indices, arc_weights(graph), np.int64(0))
    yield "cc", label, gk.CC_KERNELS, (graph.indptr, graph.indices)
    yield "pagerank", label, gk.PAGERANK_KERNELS, (graph.indptr, graph.indices, 0.85, 1e-12)


_spmv_cases: dict = {}


def spmv_case(sizes: dict):
    """(CSR matrix, SpmvPlan of its SPAC edge partition, (total loads, unpartitioned total loads)); built once per
    size (the SPAC partition into hundreds of parts takes tens of seconds)."""
    key = (sizes["spmv_scale"], sizes["spmv_parts"])
    if key not in _spmv_cases:
        _spmv_cases[key] = _build_spmv_case(sizes)
    return _spmv_cases[key]


def _build_spmv_case(sizes: dict):
    import apportion
    from apportion.apps.spmv import as_csr, bipartite_graph, build_plan

    graph = apportion.generate("rmat", scale=sizes["spmv_scale"], seed=1)
    u, v, _ = graph.edges()
    n = graph.n
    matrix = as_csr(sp.csr_array((np.ones(2 * u.shape[0]), (np.r_[u, v], np.r_[v, u])), shape=(n, n)))
    k = sizes["spmv_parts"]
    assignment = apportion.partition_edges(bipartite_graph(matrix), k, method="spac", seed=0).assignment
    plan = build_plan(matrix, assignment, k)
    plain = build_plan(matrix, (np.arange(matrix.nnz) * k // matrix.nnz).astype(np.int64), k)
    return matrix, plan, (int(plan.loads_per_part.sum()), int(plain.loads_per_part.sum()))


def cusparse_seconds(name: str, repeats: int, sizes: dict) -> float | None:
    """cuSPARSE's CSR SpMV (through CuPy) on the SpMV case's matrix, or None (no CuPy, or another case)."""
    if not name.startswith("spmv"):
        return None
    try:
        import cupy
        import cupyx.scipy.sparse as cusparse
    except Exception:
        return None
    matrix, _, _ = spmv_case(sizes)
    device_matrix = cusparse.csr_matrix(matrix)
    x = cupy.asarray(np.random.default_rng(0).random(matrix.shape[1]))
    device_matrix @ x
    seconds = float("inf")
    for _ in range(repeats):
        cupy.cuda.Stream.null.synchronize()
        start = time.perf_counter()
        device_matrix @ x
        cupy.cuda.Stream.null.synchronize()
        seconds = min(seconds, time.perf_counter() - start)
    return seconds


def cugraph_seconds(name: str, args, repeats: int) -> float | None:
    """cuGraph's best time for the graph case `name`, or None (not installed, or not a graph case)."""
    if name not in ("bfs", "sssp", "cc", "pagerank"):
        return None
    try:
        import cudf
        import cugraph
    except Exception:
        return None
    indptr, indices = args[0], args[1]
    sources = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
    frame = cudf.DataFrame({"src": sources, "dst": indices})
    if name == "sssp":
        frame["weight"] = args[2]
    graph = cugraph.Graph(directed=True)
    graph.from_cudf_edgelist(frame, "src", "dst", edge_attr="weight" if name == "sssp" else None)
    run = {"bfs": lambda: cugraph.bfs(graph, 0), "sssp": lambda: cugraph.sssp(graph, 0),
           "cc": lambda: cugraph.weakly_connected_components(graph), "pagerank": lambda: cugraph.pagerank(graph)}[name]
    run()
    seconds = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        seconds = min(seconds, time.perf_counter() - start)
    return seconds


# ------------------------------------------------------------------------------- the partitioner (issue 20)
#: generated graphs of the partitioner comparison: (label, kind, options); the issue asks for 2^20 to 2^24
#: vertices
PARTITION_FULL = [("delaunay 2^20", "delaunay", dict(n=1 << 20)), ("rgg 2^20", "rgg", dict(n=1 << 20)),
                  ("delaunay 2^22", "delaunay", dict(n=1 << 22)), ("rgg 2^22", "rgg", dict(n=1 << 22)),
                  ("delaunay 2^24", "delaunay", dict(n=1 << 24))]
PARTITION_QUICK = [("delaunay 2^8", "delaunay", dict(n=1 << 8))]
#: the phases of `PartitionResult.times` shown for apportion's runs
PHASES = ("coarsen", "initial", "project", "rebalance", "refine", "total")
#: blocks and imbalance of the comparison (seed 000's experiments: k = 64, epsilon = 3 %)
PARTITION_K, PARTITION_QUICK_K, PARTITION_EPSILON = 64, 4, 0.03


def all_cores() -> int:
    import os

    return os.cpu_count() or 1


def _recount_cut(graph, assignment) -> int:
    u, v, w = graph.edges()
    w = np.ones(u.shape[0], dtype=np.int64) if w is None else w
    return int(w[np.asarray(assignment)[u] != np.asarray(assignment)[v]].sum())


def _timed(run):
    start = time.perf_counter()
    assignment = run()
    return time.perf_counter() - start, np.asarray(assignment)


def warm_up_partitioners(k: int, threads: int) -> None:
    """Compile what the partitioner rows run, untimed: the GPU path on a small mesh, the CPU path as the large
    suite warms it up (both presets, and the flows of big graphs)."""
    import apportion
    from partition import warm_up

    apportion.partition(apportion.generate("delaunay", 512, seed=1), 4, device="cuda")
    warm_up(k, threads)


def partitioner_rows(graph_case, k: int, threads: int, simulated: bool):
    """(graph, tool, seconds, cut, balanced, phases) rows of one graph: apportion's partitioner with
    device="cuda" (coarsening and refinement on the GPU, the coarsest graph on the CPU) and on the CPU with
    `threads` threads (phases: their `PartitionResult.times`; None for the others), METIS (pymetis), KaMinPar and
    cuGraph's spectral balanced-cut clustering when importable (each on the same graph; every result's cut
    recounted here). Every tool runs once, after `warm_up_partitioners`."""
    import tempfile

    import apportion

    rows = []
    label, kind, options = graph_case
    graph = apportion.generate(kind, seed=0, **options)
    limits = None
    for tool in ("apportion GPU", "apportion CPU", "METIS", "KaMinPar", "cuGraph spectral"):
        phases = None
        try:
            if tool == "apportion GPU":
                result = apportion.partition(graph, k, imbalance=PARTITION_EPSILON, device="cuda")
                seconds, assignment, phases = result.times["total"], result.assignment, dict(result.times)
                limits = result.max_block_weights
            elif tool == "apportion CPU":
                result = apportion.partition(graph, k, imbalance=PARTITION_EPSILON, threads=threads)
                seconds, assignment, phases = result.times["total"], result.assignment, dict(result.times)
            elif tool == "METIS":
                import pymetis

                seconds, assignment = _timed(lambda: pymetis.part_graph(k, xadj=graph.indptr,
                                                                        adjncy=graph.indices)[1])
            elif tool == "KaMinPar":
                import kaminpar

                from apportion.graph.io import write_graph

                with tempfile.TemporaryDirectory() as folder:
                    path = Path(folder) / "graph.metis"
                    write_graph(graph, path)
                    loaded = kaminpar.load_graph(str(path), kaminpar.GraphFileFormat.METIS)
                solver = kaminpar.KaMinPar(threads, kaminpar.default_context())
                kaminpar.reseed(0)
                seconds, assignment = _timed(lambda: solver.compute_partition(loaded, k, PARTITION_EPSILON))
            else:
                if simulated:
                    continue
                import cudf
                import cugraph

                u, v, _ = graph.edges()
                frame = cudf.DataFrame({"src": np.concatenate([u, v]), "dst": np.concatenate([v, u])})
                cu_graph = cugraph.Graph()
                cu_graph.from_cudf_edgelist(frame, source="src", destination="dst")
                seconds, clusters = _timed(lambda: cugraph.spectralBalancedCutClustering(cu_graph, k))
                clusters = clusters.to_pandas()
                assignment = np.zeros(graph.n, dtype=np.int64)
                assignment[clusters["vertex"].to_numpy()] = clusters["cluster"].to_numpy()
        except ImportError:
            continue
        weights = np.bincount(assignment, minlength=k)
        balanced = None if limits is None else bool(np.all(weights <= limits))
        rows.append((label, tool, seconds, _recount_cut(graph, assignment), balanced, phases))
        print(f"  {label}: {tool} {seconds:.3f} s, cut {rows[-1][3]:,}", file=sys.stderr)
    return rows


def partitioner_table(rows, gpu_name: str, threads: int, k: int) -> str:
    """The markdown table of `partitioner_rows`: time and cut per tool, cut / METIS cut, KaMinPar time / time."""
    metis = {label: cut for label, tool, _, cut, _, _ in rows if tool == "METIS"}
    kaminpar = {label: s for label, tool, s, _, _, _ in rows if tool == "KaMinPar"}
    lines = [f"Measured on {gpu_name}, CPU tools with {threads} thread(s), k = {k}, epsilon = "
             f"{PARTITION_EPSILON:g}, one run each; `benchmarks/gpu.py`. apportion GPU: coarsening and Jet "
             "refinement on the GPU, the coarsest graph partitioned on the CPU.", "",
             "| graph | tool | time (s) | cut | cut / METIS | KaMinPar time / time | within limits |",
             "|---|---|---:|---:|---:|---:|---|"]
    for label, tool, seconds, cut, balanced, _ in rows:
        ratio = f"{cut / metis[label]:.3f}" if metis.get(label) else "–"
        speed = f"{kaminpar[label] / seconds:.2f}×" if label in kaminpar and seconds > 0 else "–"
        lines.append(f"| {label} | {tool} | {seconds:.3f} | {cut:,} | {ratio} | {speed} | "
                     f"{'–' if balanced is None else ('yes' if balanced else 'no')} |")
    timed = [(label, tool, phases) for label, tool, _, _, _, phases in rows if phases]
    if timed:  # where apportion's time goes, GPU path beside CPU path (`PartitionResult.times`)
        lines += ["", "Per-phase seconds of apportion (GPU: coarsen and refine on the device, initial on the CPU):", "",
                  "| graph | tool | " + " | ".join(PHASES) + " |", "|---|---|" + "---:|" * len(PHASES)]
        for label, tool, phases in timed:
            lines.append(f"| {label} | {tool} | " + " | ".join(f"{phases.get(phase, 0.0):.3f}" for phase in PHASES)
                         + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny inputs (a smoke run; prints only)")
    parser.add_argument("--threads", type=int, default=2, help="threads of the CPU device (default 2)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per path; the best is kept")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/gpu.md alone")
    parser.add_argument("--only", choices=("paths", "partition"), help="run one of the two tables")
    parser.add_argument("--partition-max", type=int, default=24, metavar="LOG2",
                        help="the partitioner's largest graph, log2 of its vertices (default 24)")
    args = parser.parse_args()

    from apportion.platform.cpu import CPUDevice
    from apportion.platform.cuda import CUDADevice, cuda_device_count, cupy_available, simulator_enabled

    simulated = simulator_enabled()
    if cuda_device_count() == 0 or (simulated and not args.quick):
        print("gpu benchmark: no GPU on this machine" + (" (only the CUDA simulator)" if simulated else "")
              + "; nothing measured, docs/gpu.md still says 'not yet measured on a GPU'")
        return 0
    gpu = CUDADevice(0)
    cpu = CPUDevice(args.threads, name="cpu")
    if args.only != "partition" and paths_table(args, gpu, cpu, simulated) is None:
        return 1
    if args.only == "paths":
        return 0
    cores = all_cores()  # the CPU partitioners on all cores (issue 20)
    k = PARTITION_QUICK_K if args.quick else PARTITION_K
    graphs = PARTITION_QUICK if args.quick else [case for case in PARTITION_FULL
                                                 if case[2]["n"] <= 1 << args.partition_max]
    warm_up_partitioners(k, cores)
    rows = []
    for graph_case in graphs:  # the table is rewritten after each graph, so a run cut short keeps what it measured
        rows += partitioner_rows(graph_case, k, cores, simulated)
        partition_table = partitioner_table(rows, gpu.gpu_name, cores, k)
        if not (simulated or args.quick or args.no_write):
            write_generated_block(DOC, "gpu-partition", partition_table, title="GPU paths")
    print(partition_table)
    if simulated:
        print("(the CUDA simulator: these times say nothing about a GPU; nothing written)")
    return 0


def paths_table(args, gpu, cpu, simulated: bool) -> str | None:
    """Time every GPU path against its CPU path, print the table and write it (unless quick, simulated or
    --no-write); None when a GPU result differs from the CPU's."""
    from apportion.platform.cuda import cupy_available

    rows = []
    sizes = QUICK if args.quick else FULL
    for name, size, kernels, kernel_args in cases(sizes):
        print(f"  {name} ({size})", file=sys.stderr, flush=True)
        cpu_s, _, want = best(cpu, kernels, kernel_args, args.repeats)
        gpu_s, kernel_s, got = best(gpu, kernels, kernel_args, args.repeats)
        if not same(got, want):
            print(f"gpu benchmark: {name}: the GPU result differs from the CPU result", file=sys.stderr)
            return None
        cugraph_s = None if simulated else (cugraph_seconds(name, kernel_args, args.repeats)
                                            or cusparse_seconds(name, args.repeats, sizes))
        rows.append((name, size, cpu_s, gpu_s, kernel_s, cugraph_s))
        table = paths_markdown(rows, gpu.gpu_name, args)
        if not (simulated or args.quick or args.no_write):  # rewritten after each path: a run cut short keeps it
            write_generated_block(DOC, "gpu", table, title="GPU paths")
    if cupy_available() and not simulated:
        from apportion.apps.matmul import MATMUL_KERNELS

        n = (QUICK if args.quick else FULL)["matmul"]
        a, b = np.random.default_rng(1).random((n, n)), np.random.default_rng(2).random((n, n))
        cpu_s, _, want = best(cpu, MATMUL_KERNELS, (a, b), args.repeats)
        gpu_s, kernel_s, got = best(gpu, MATMUL_KERNELS, (a, b), args.repeats)
        if not np.allclose(got, want):
            print("gpu benchmark: matmul: the GPU result differs from the CPU result", file=sys.stderr)
            return None
        rows.append(("matmul (cuBLAS)", f"{n} x {n} float64", cpu_s, gpu_s, kernel_s, None))

    table = paths_markdown(rows, gpu.gpu_name, args)
    print(table)
    if simulated:
        print("(the CUDA simulator: these times say nothing about a GPU; nothing written)")
    elif not (args.quick or args.no_write):
        write_generated_block(DOC, "gpu", table, title="GPU paths")
    return table


def paths_markdown(rows, gpu_name: str, args) -> str:
    """The markdown table of the GPU paths' rows (name, input, CPU s, GPU total s, GPU kernel s, cuGraph s)."""
    def fmt(seconds):
        return "–" if seconds is None else f"{seconds * 1e3:.2f}"

    processor = platform.processor() or platform.machine()
    lines = [f"Measured on {gpu_name} against {args.threads} CPU thread(s) ({processor}), "
             f"best of {args.repeats}, milliseconds; `benchmarks/gpu.py`.", "",
             "| path | input | CPU | GPU total | GPU kernel | speed-up (total) | cuGraph / cuSPARSE |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for name, size, cpu_s, gpu_s, kernel_s, cugraph_s in rows:
        lines.append(f"| {name} | {size} | {fmt(cpu_s)} | {fmt(gpu_s)} | {fmt(kernel_s)} | {cpu_s / gpu_s:.2f}× | "
                     f"{fmt(cugraph_s)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
