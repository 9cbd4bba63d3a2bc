"""Benchmark: the asynchronous multi-device runtime (seed 003, issue 15) against SciPy csgraph and NetworKit.

Everything in one run, on generated graphs: delaunay 2^20 (random integer weights 1–99 for SSSP), rmat scale 18
(the same weights), road 2^20 (`generate("road")`: integer Euclidean lengths). Sections:

- speed: BFS, SSSP, PageRank and connected components on 2 one-thread CPU devices (threads transport, ring,
  `partition` placement computed once and reported beside), kernels warm (one untimed warm-up query on the same
  graph), graph building and conversions excluded from every timing; anchors in the same process: SciPy
  csgraph (BFS = `breadth_first_order`, `dijkstra`, `connected_components`) and NetworKit on 2 threads (BFS,
  Dijkstra, ParallelConnectedComponents, PageRank at tolerance 1e-8). Every anchor's answer is checked against
  apportion's reference before anything is reported, and every apportion answer against its reference.
- correctness: every app equals its reference on every graph on 1, 2 and 4 devices, ring and direct routing
  (threads), on the graphs of `--quick` size (and, in the speed section, on the full-size ones).
- work: SSSP work items with and without soft priority, `partition` against `random` placement.
- heterogeneity: a CPU device beside one throttled 3×: the makespan against the ideal 1 / (s_fast + s_slow),
  where s_i = 1 / (the time of the same query on device i alone, measured here); the scatter's segment split.
- failure: one of two devices dies half way through its batches (`FaultyDevice`): exact result, recovery time.
- ray (unless `--no-ray`): BFS, SSSP, topology-driven CC and PBF (the graph's edge weights between their
  quartiles 1 and 2) on a local 2-actor Ray cluster, result equal, time against threads.

    .venv/bin/python benchmarks/runtime.py            # full sizes; tables into docs/runtime.md (~15 min)
    .venv/bin/python benchmarks/runtime.py --quick    # 2^16 / rmat 14, a couple of minutes, prints only
    .venv/bin/python benchmarks/runtime.py --sections speed --apps pagerank --graphs rmat   # one part, prints only
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from _docs import write_generated_block

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "runtime.md"

FULL = [("delaunay", 1 << 20), ("rmat", 1 << 18), ("road", 1 << 20)]
QUICK = [("delaunay", 1 << 16), ("rmat", 1 << 14), ("road", 1 << 16)]
#: the seed of the query sources (`source_of`)
SOURCE_SEED = 2024
WEIGHT_SEED = 12345
PAGERANK_TOLERANCE = 1e-8  # NetworKit's; apportion runs at its default (L1 ≤ 1e-3 guaranteed) and is checked
APPS = ("bfs", "sssp", "pagerank", "cc")
SECTIONS = ("speed", "correctness", "work", "hetero", "profile", "failure", "ray")
APP_NAMES = {"bfs": "BFS", "sssp": "SSSP", "pagerank": "PageRank", "cc": "CC", "cc-worklist": "CC (worklist)",
             "pbf": "PBF"}


# ------------------------------------------------------------------------------------------------ graphs
@dataclass
class Case:
    """One benchmark graph: the weighted Graph, its source vertex, and the anchors' views of it."""

    label: str
    graph: object
    source: int
    scipy_plain: object = None   # CSR of the pattern (BFS, CC)
    scipy_weighted: object = None
    nk_plain: object = None
    nk_weighted: object = None
    placement: object = None
    references: dict = field(default_factory=dict)


def build_graph(kind: str, n: int):
    """The generated graph with integer weights: random 1–99 for delaunay and rmat, the lengths for road."""
    import apportion
    from apportion import Graph

    graph = apportion.generate(kind, n, seed=0)
    power = int(np.log2(n))
    label = f"rmat scale {power}" if kind == "rmat" else f"{kind} 2^{power}"
    if graph.edge_weights is not None:
        return graph.with_name(label)
    u, v, _ = graph.edges()
    weights = np.random.default_rng(WEIGHT_SEED).integers(1, 100, u.shape[0])
    return Graph.from_edges(u, v, weights, n=graph.n, name=label)


def source_of(graph) -> int:
    """A random vertex of the largest component (seeded by SOURCE_SEED), never its least id: the relabelling
    that BFS and PageRank run on (`placement.relabelled`) lists each device's block in breadth-first order from
    the least id, so a BFS from that very vertex walks the layout in order — on rmat 18, one device, 13 ms from
    vertex 0 against 23-28 ms from other vertices — and would flatter the runtime's one-device time (and so
    hide what a second device gains) against anchors that run on the original numbering."""
    from scipy.sparse.csgraph import connected_components

    _, component = connected_components(graph.to_scipy(weighted=False), directed=False)
    members = np.flatnonzero(component == np.argmax(np.bincount(component)))
    candidates = members[1:] if members.shape[0] > 1 else members
    return int(np.random.default_rng(SOURCE_SEED).choice(candidates))


def networkit_graph(graph, weighted: bool):
    import networkit as nk

    u, v, w = graph.edges()
    nk_graph = nk.Graph(graph.n, weighted=weighted)
    data = w.astype(np.float64) if weighted else np.ones(u.shape[0])
    nk_graph.addEdges((data, (u.astype(np.uint64), v.astype(np.uint64))))
    return nk_graph


def prepare(kind: str, n: int, seed: int) -> Case:
    import apportion
    from apportion.apps.bfs import bfs_reference
    from apportion.apps.cc import cc_reference
    from apportion.apps.pagerank import pagerank_reference
    from apportion.apps.sssp import sssp_reference

    graph = build_graph(kind, n)
    case = Case(graph.name, graph, source_of(graph))
    case.scipy_plain = graph.to_scipy(weighted=False).tocsr()
    case.scipy_weighted = graph.to_scipy().astype(np.float64).tocsr()
    case.nk_plain = networkit_graph(graph, weighted=False)
    case.nk_weighted = networkit_graph(graph, weighted=True)
    case.placement = apportion.place(graph, devices=2, method="partition", seed=seed)
    case.references = {"bfs": bfs_reference(graph, case.source), "sssp": sssp_reference(graph, case.source),
                       "cc": cc_reference(graph), "pagerank": pagerank_reference(graph)}
    return case


def warm_partitioner() -> None:
    """Compile the partitioner's kernels before any placement is timed."""
    import apportion

    apportion.place(apportion.generate("delaunay", 4096, seed=1), devices=2, method="partition")


# ------------------------------------------------------------------------------------------------ running
def run_app(app: str, case: Case, **options):
    """One apportion query; `options` go to the app (devices, routing, placement, ...)."""
    import apportion

    options.setdefault("placement", case.placement)
    if app == "bfs":
        return apportion.bfs(case.graph, case.source, **options)
    if app == "sssp":
        return apportion.sssp(case.graph, case.source, **options)
    if app == "pagerank":
        return apportion.pagerank(case.graph, **options)
    if app == "cc-worklist":
        return apportion.connected_components(case.graph, method="worklist", **options)
    options.pop("placement")  # topology-driven CC hands out edge segments: no placement
    options.pop("routing", None)
    return apportion.connected_components(case.graph, **options)


def matches(app: str, case: Case, values: np.ndarray) -> bool:
    """The app's answer equals the reference (PageRank: within its guaranteed L1 tolerance)."""
    reference = case.references["cc" if app == "cc-worklist" else app]
    if app == "pagerank":
        return float(np.abs(values - reference).sum()) <= 1e-3
    return bool(np.array_equal(values, reference))


def timed(fn, repeats: int):
    """(best wall seconds, median, the result of the best call) of `repeats` calls."""
    times, best_result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
        if times[-1] == min(times):
            best_result = result
    return min(times), statistics.median(times), best_result


def hop_diameter_estimate(case: Case) -> tuple[int, int]:
    """(levels of the BFS from the source, a lower bound on the hop diameter): a double sweep, i.e. the
    eccentricity of a vertex farthest from the source (the largest component's diameter lies between the
    first figure and twice it)."""
    from apportion.apps.bfs import bfs_reference

    levels = case.references["bfs"]
    farthest = int(np.argmax(levels))
    return int(levels.max()), int(bfs_reference(case.graph, farthest).max())


def anchors(app: str, case: Case, repeats: int) -> dict[str, float]:
    """Best times of SciPy and NetworKit for `app`, each answer checked against the reference first."""
    import networkit as nk
    from scipy.sparse.csgraph import breadth_first_order, connected_components, dijkstra

    reference = case.references[app]
    out = {}
    if app == "bfs":
        best, _, order = timed(lambda: breadth_first_order(case.scipy_plain, case.source, directed=True,
                                                           return_predecessors=False), repeats)
        assert order.shape[0] == int((reference >= 0).sum()), "SciPy BFS reached a different vertex set"
        out["scipy"] = best

        def networkit_bfs():
            algorithm = nk.distance.BFS(case.nk_plain, case.source, storePaths=False)
            algorithm.run()
            return algorithm

        best, _, algorithm = timed(networkit_bfs, repeats)
        distances = np.asarray(algorithm.getDistances())
        reached = reference >= 0
        assert np.array_equal(distances[reached], reference[reached]), "NetworKit BFS levels differ"
        out["networkit"] = best
    elif app == "sssp":
        best, _, distances = timed(lambda: dijkstra(case.scipy_weighted, directed=True, indices=case.source),
                                   repeats)
        assert np.array_equal(distances, reference), "SciPy Dijkstra differs"
        out["scipy"] = best

        def networkit_dijkstra():
            algorithm = nk.distance.Dijkstra(case.nk_weighted, case.source, storePaths=False)
            algorithm.run()
            return algorithm

        best, _, algorithm = timed(networkit_dijkstra, repeats)
        distances = np.asarray(algorithm.getDistances())
        reached = np.isfinite(reference)
        assert np.array_equal(distances[reached], reference[reached]), "NetworKit Dijkstra differs"
        out["networkit"] = best
    elif app == "cc":
        best, _, (count, _) = timed(lambda: connected_components(case.scipy_plain, directed=True,
                                                                 connection="weak"), repeats)
        assert count == np.unique(reference).shape[0], "SciPy's component count differs"
        out["scipy"] = best

        def networkit_cc():
            algorithm = nk.components.ParallelConnectedComponents(case.nk_plain)
            algorithm.run()
            return algorithm

        best, _, algorithm = timed(networkit_cc, repeats)
        assert algorithm.numberOfComponents() == np.unique(reference).shape[0], "NetworKit's count differs"
        out["networkit"] = best
    else:  # pagerank: NetworKit only (SciPy has none)
        def networkit_pagerank():
            algorithm = nk.centrality.PageRank(case.nk_plain, damp=0.85, tol=PAGERANK_TOLERANCE)
            algorithm.run()
            return algorithm

        best, _, algorithm = timed(networkit_pagerank, repeats)
        ranks = np.asarray(algorithm.scores())
        ranks = ranks / ranks.sum()
        # NetworKit stops on its own criterion; the check is loose (its L1 error at 1e-8 is far below this)
        assert np.abs(ranks - reference).sum() < 1e-2, "NetworKit PageRank differs"
        out["networkit"] = best
    return out


def shares(result) -> tuple[float, float, float]:
    """Fractions of the devices' traced time spent computing, sending and waiting (summed over devices)."""
    kinds = {"compute": 0.0, "transfer": 0.0, "idle": 0.0}
    for per_kind in result.trace.time_by_kind().values():
        for kind in kinds:
            kinds[kind] += per_kind.get(kind, 0.0)
    total = sum(kinds.values()) or 1.0
    return kinds["compute"] / total, kinds["transfer"] / total, kinds["idle"] / total


# ------------------------------------------------------------------------------------------------ sections
def speed(cases: list[Case], args) -> list[dict]:
    rows = []
    for case in cases:
        for app in [a for a in APPS if a in args.apps.split(",")]:
            repeats = args.repeats
            run_app(app, case, devices=2)  # warm-up: compiles nothing new after the first graph, warms caches
            best, median, result = timed(lambda: run_app(app, case, devices=2), repeats)
            if not matches(app, case, result.values):
                raise SystemExit(f"error: apportion {app} differs from its reference on {case.label}")
            anchor = anchors(app, case, args.repeats)
            faster = min(anchor.values())
            compute, transfer, idle = shares(result)
            rows.append({"graph": case.label, "app": app, "time": best, "median": median, "inner": result.time_s,
                         "scipy": anchor.get("scipy"), "networkit": anchor.get("networkit"), "ratio": best / faster,
                         "work_per_n": result.work_items / case.graph.n, "compute": compute, "transfer": transfer,
                         "idle": idle, "placement": case.placement.time_s if app != "cc" else None})
            print(f"  {case.label:16} {app:9} apportion {best:7.3f} s  " +
                  "  ".join(f"{k} {v:7.3f} s" for k, v in anchor.items()) +
                  f"  ratio {best / faster:5.2f}  work {result.work_items / case.graph.n:6.2f} n", flush=True)
    return rows


def correctness(cases: list[Case]) -> list[dict]:
    rows = []
    for case in cases:
        for app in (*APPS, "cc-worklist"):
            verdicts = []
            routings = ("ring",) if app == "cc" else ("ring", "direct")
            for devices in (1, 2, 4):
                for routing in routings:
                    result = run_app(app, case, devices=devices, routing=routing, placement="partition")
                    verdicts.append(matches(app, case, result.values))
            rows.append({"graph": case.label, "app": app, "runs": len(verdicts), "equal": sum(verdicts)})
        print(f"  {case.label:16} " + "  ".join(f"{r['app']} {r['equal']}/{r['runs']}"
                                                 for r in rows if r["graph"] == case.label), flush=True)
    return rows


def work(cases: list[Case], args) -> list[dict]:
    import apportion

    rows = []
    for case in cases:
        random_placement = apportion.place(case.graph, devices=2, method="random", seed=args.seed)
        for name, placement in (("partition", case.placement), ("random", random_placement)):
            for priority in ("auto", "off"):
                start = time.perf_counter()
                result = run_app("sssp", case, devices=2, placement=placement, priority_delta=priority)
                elapsed = time.perf_counter() - start
                assert matches("sssp", case, result.values)
                rows.append({"graph": case.label, "placement": name, "priority": priority, "time": elapsed,
                             "work_per_n": result.work_items / case.graph.n, "delta": result.delta,
                             "raises": result.priority_raises, "cut": placement.cut,
                             "bytes": result.bytes_moved})
                print(f"  {case.label:16} {name:9} priority {priority:4}  {elapsed:7.3f} s  "
                      f"work {result.work_items / case.graph.n:7.2f} n", flush=True)
    return rows


def heterogeneity(cases: list[Case], args) -> list[dict]:
    """A CPU device and one throttled 3×: measured single-device times give the speeds and the ideal
    1 / (s_fast + s_slow); two unthrottled devices against their ideal t_fast / 2 beside it."""
    import apportion
    from apportion.platform.cpu import CPUDevice
    from apportion.platform.throttled import ThrottledDevice

    def pair():
        return [CPUDevice(1, name="cpu"), ThrottledDevice(CPUDevice(1, name="cpu"), 3.0, name="cpu/x3")]

    rows = []
    for case in cases:
        for app in ("bfs", "sssp", "cc"):
            alone = []
            for device in pair():
                placement = apportion.place(case.graph, devices=1, method="ranges")
                run_app(app, case, devices=[device], placement=placement)  # warm
                alone.append(timed(lambda: run_app(app, case, devices=[device], placement=placement),
                                   args.repeats)[0])
            speeds = [1.0 / t for t in alone]
            ideal = 1.0 / sum(speeds)
            devices = pair()
            placement = apportion.place(case.graph, devices=devices, method="partition", seed=args.seed,
                                        speeds=speeds)
            run_app(app, case, devices=devices, placement=placement)
            best, _, result = timed(lambda: run_app(app, case, devices=devices, placement=placement), args.repeats)
            assert matches(app, case, result.values)
            equal = timed(lambda: run_app(app, case, devices=2), args.repeats)[0]
            rows.append({"graph": case.label, "app": app, "fast": alone[0], "slow": alone[1], "ideal": ideal,
                         "time": best, "ratio": best / ideal, "split": result.per_device,
                         "vertices": placement.sizes().tolist() if app != "cc" else None,
                         "equal": equal, "equal_ratio": equal / (alone[0] / 2)})
            print(f"  {case.label:16} {app:5} alone {alone[0]:.3f} / {alone[1]:.3f} s  ideal {ideal:.3f} s  "
                  f"both {best:.3f} s  ({best / ideal:.2f} × ideal)  work split {result.per_device}; two equal "
                  f"devices {equal:.3f} s ({equal / (alone[0] / 2):.2f} × t/2)", flush=True)
    return rows


def profile(case: Case, args) -> list[dict]:
    """Where BFS's and SSSP's time goes on one graph: the compiled sequential kernel and SciPy beside 1 and 2
    devices at several Δ (threshold raises against redone work), with the trace's compute / send / wait."""
    from scipy.sparse.csgraph import breadth_first_order, dijkstra

    from apportion.apps.bfs import bfs_reference
    from apportion.runtime.priority import auto_delta
    from apportion.apps.sssp import arc_weights

    rows = []
    bfs_reference(case.graph, case.source)
    rows.append({"app": "bfs", "what": "compiled sequential BFS (`bfs_reference`)",
                 "time": timed(lambda: bfs_reference(case.graph, case.source), args.repeats)[0]})
    rows.append({"app": "bfs", "what": "SciPy `breadth_first_order`", "time": timed(
        lambda: breadth_first_order(case.scipy_plain, case.source, return_predecessors=False), args.repeats)[0]})
    base = auto_delta(None)
    for devices in (1, 2):
        for delta in (base, 4 * base, 16 * base, "off"):
            rows.append(profiled("bfs", case, devices, delta, args))
    rows.append({"app": "sssp", "what": "SciPy `dijkstra`", "time": timed(
        lambda: dijkstra(case.scipy_weighted, indices=case.source), args.repeats)[0]})
    base = auto_delta(arc_weights(case.graph))
    for devices in (1, 2):
        for delta in (base, 4 * base, 16 * base):
            rows.append(profiled("sssp", case, devices, delta, args))
    return rows


_ONE_DEVICE: dict = {}


def profiled(app: str, case: Case, devices: int, delta, args) -> dict:
    import apportion

    if devices == 1:  # one placement object, made once: BFS renumbers per placement (cached), like any query
        placement = _ONE_DEVICE.setdefault(case.label, apportion.place(case.graph, devices=1, method="ranges"))
    else:
        placement = case.placement
    run_app(app, case, devices=devices, priority_delta=delta, placement=placement)
    best, _, result = timed(lambda: run_app(app, case, devices=devices, priority_delta=delta,
                                            placement=placement), args.repeats)
    assert matches(app, case, result.values)
    seconds = {"compute": 0.0, "transfer": 0.0, "idle": 0.0}
    for per_kind in result.trace.time_by_kind().values():
        for kind in seconds:
            seconds[kind] += per_kind.get(kind, 0.0)
    label = "off" if delta == "off" else (f"{delta:,.0f}" if delta >= 10 else f"{delta:g}")
    print(f"  {case.label:16} {app:5} {devices} device(s) Δ {label:6} {best:.3f} s  work "
          f"{result.work_items / case.graph.n:.2f} n  raises {result.priority_raises}  "
          + "  ".join(f"{k} {v:.3f} s" for k, v in seconds.items()), flush=True)
    return {"app": app, "what": f"apportion, {devices} device{'s' if devices > 1 else ''}, Δ = {label}",
            "time": best, "work_per_n": result.work_items / case.graph.n, "raises": result.priority_raises,
            **seconds}


def failure(case: Case) -> list[dict]:
    """Device 1 of 2 dies on half the kernel calls it makes in a clean run."""
    from apportion.platform.cpu import CPUDevice
    from apportion.platform.faulty import FaultyDevice

    rows = []
    for app in ("bfs", "sssp", "cc"):
        counting = FaultyDevice(CPUDevice(1, name="cpu1"), fail_on_call=1 << 60)
        start = time.perf_counter()
        run_app(app, case, devices=[CPUDevice(1, name="cpu0"), counting])
        clean = time.perf_counter() - start
        fail_at = max(1, counting.calls // 2)
        devices = [CPUDevice(1, name="cpu0"), FaultyDevice(CPUDevice(1, name="cpu1"), fail_on_call=fail_at)]
        start = time.perf_counter()
        result = run_app(app, case, devices=devices)
        elapsed = time.perf_counter() - start
        rows.append({"app": app, "calls": counting.calls, "fail_at": fail_at, "clean": clean, "time": elapsed,
                     "exact": matches(app, case, result.values), "failures": result.failures,
                     "recovery": result.recovery_s, "work_per_n": result.work_items / case.graph.n})
        print(f"  {case.label:16} {app:5} clean {clean:.3f} s; device dies on call {fail_at}/{counting.calls}: "
              f"{elapsed:.3f} s, exact {rows[-1]['exact']}, recovery {1e3 * result.recovery_s:.2f} ms", flush=True)
    return rows


def ray_section(case: Case, args) -> list[dict]:
    """BFS, SSSP, topology-driven CC and PBF on a local 2-actor Ray cluster against threads, on one graph."""
    import ray

    import apportion
    from apportion.apps.pbf import pbf_reference

    weights = np.ascontiguousarray(case.graph.edges()[2])
    low, high = (float(q) for q in np.quantile(weights, [0.25, 0.5]))
    kept = pbf_reference(weights, low, high)

    def query(app: str, **options):
        if app == "pbf":
            return apportion.pbf(weights, low, high, **options)
        return run_app(app, case, **options)

    def exact(app: str, values: np.ndarray) -> bool:
        return bool(np.array_equal(values, kept)) if app == "pbf" else matches(app, case, values)

    rows = []
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        for app in ("bfs", "sssp", "cc", "pbf"):
            query(app, devices=2)  # warm: this section may run alone
            threads_best = timed(lambda: query(app, devices=2), args.repeats)[0]
            query(app, devices=2, transport="ray")  # warm: starts the actors (then reused), imports, compiles
            best, _, result = timed(lambda: query(app, devices=2, transport="ray"), args.ray_repeats)
            rows.append({"app": app, "threads": threads_best, "ray": best, "inner": result.time_s,
                         "exact": exact(app, result.values), "overhead": best / threads_best})
            print(f"  {case.label:16} {app:5} threads {threads_best:.3f} s  ray {best:.3f} s "
                  f"(run {result.time_s:.3f} s)  exact {rows[-1]['exact']}", flush=True)
    finally:
        from apportion.runtime.transports.ray import release_actors

        release_actors()
        ray.shutdown()
    return rows


# ------------------------------------------------------------------------------------------------ output
def recovery_ms(row: dict) -> str:
    """The restart time; topology-driven CC has none (the dead device's segments are sent to the others)."""
    if row["app"] == "cc":
        return "— (segments redone)"
    return f"{1e3 * row['recovery']:.2f}"


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.1f}"


def render(results: dict, cases: list[Case], args, started: float) -> str:
    import networkit
    import numba
    import scipy

    lines = ["### Graphs", "", "| graph | n | m | source | BFS levels from the source | hop diameter ≥ (double "
             "sweep) | partition placement (s), cut edges |", "|---|---|---|---|---|---|---|"]
    for case in cases:
        depth, diameter = hop_diameter_estimate(case)
        lines.append(f"| {case.label} | {case.graph.n:,} | {case.graph.m:,} | {case.source} | {depth} | "
                     f"{diameter} | {fmt(case.placement.time_s)}, {case.placement.cut:,} |")
    lines += ["", "### Speed (2 devices, threads, ring, partition placement)", "",
              "| graph | app | apportion (s) | of which seeds → finish (s) | SciPy (s) | NetworKit 2 thr. (s) | "
              "÷ faster anchor | work items / n | compute / send / wait |",
              "|---|---|---|---|---|---|---|---|---|"]
    for row in results["speed"]:
        ratio = row["ratio"]
        mark = f"**{ratio:.2f}×**" if ratio <= 1.0 else f"{ratio:.2f}×"
        lines.append(f"| {row['graph']} | {APP_NAMES[row['app']]} | {fmt(row['time'])} | {fmt(row['inner'])} | "
                     f"{fmt(row['scipy'])} | {fmt(row['networkit'])} | {mark} | {row['work_per_n']:.2f} | "
                     f"{100 * row['compute']:.0f} / {100 * row['transfer']:.0f} / {100 * row['idle']:.0f} % |")
    lines += ["", "### Correctness (threads; quick-size graphs)", "",
              "| graph | " + " | ".join(APP_NAMES[a] for a in (*APPS, "cc-worklist")) + " |",
              "|---|" + "---|" * (len(APPS) + 1)]
    for label in dict.fromkeys(r["graph"] for r in results["correctness"]):
        cells = [f"{r['equal']}/{r['runs']}" for r in results["correctness"] if r["graph"] == label]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "### SSSP work: soft priority and placement (2 devices, ring)", "",
              "| graph | placement (cut edges) | priority | time (s) | work items / n | Δ | threshold raises | "
              "bytes moved |", "|---|---|---|---|---|---|---|---|"]
    for row in results["work"]:
        delta = "off" if row["delta"] is None else f"{row['delta']:.0f}"
        lines.append(f"| {row['graph']} | {row['placement']} ({row['cut']:,}) | {row['priority']} | "
                     f"{fmt(row['time'])} | {row['work_per_n']:.2f} | {delta} | {row['raises']} | "
                     f"{row['bytes']:,} |")
    lines += ["", "### Heterogeneity: a CPU device and one throttled 3× (placement targets from the measured "
              "speeds)", "",
              "| graph | app | fast alone (s) | slow alone (s) | ideal 1/(s₁+s₂) (s) | both (s) | ÷ ideal | "
              "work items per device | vertices per device | two fast devices (s), ÷ t_fast/2 |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for row in results["hetero"]:
        vertices = "— (edge segments)" if row["vertices"] is None else " / ".join(f"{v:,}" for v in row["vertices"])
        split = " / ".join(f"{v:,}" for v in row["split"])
        lines.append(f"| {row['graph']} | {APP_NAMES[row['app']]} | {fmt(row['fast'])} | {fmt(row['slow'])} | "
                     f"{fmt(row['ideal'])} | {fmt(row['time'])} | {row['ratio']:.2f}× | {split} | {vertices} | "
                     f"{fmt(row['equal'])}, {row['equal_ratio']:.2f}× |")
    lines += ["", f"### Where the time goes ({results['profile_graph']}, source {results['profile_source']})", "",
              "| app | what | time (s) | work items / n | threshold raises | compute / send / wait, summed over "
              "devices (s) |", "|---|---|---|---|---|---|"]
    for row in results["profile"]:
        if "raises" not in row:
            lines.append(f"| {APP_NAMES[row['app']]} | {row['what']} | {fmt(row['time'])} | | | |")
        else:
            lines.append(f"| {APP_NAMES[row['app']]} | {row['what']} | {fmt(row['time'])} | {row['work_per_n']:.2f} | "
                         f"{row['raises']} | {row['compute']:.3f} / {row['transfer']:.3f} / {row['idle']:.3f} |")
    lines += ["", f"### A device dies mid-run ({results['failure_graph']}, 2 devices, the second a FaultyDevice)",
              "", "| app | clean run (s) | kernel calls of the dying device (clean run) | dies on call | run with "
              "the failure (s) | exact | recovery (ms) | work items / n |", "|---|---|---|---|---|---|---|---|"]
    for row in results["failure"]:
        lines.append(f"| {APP_NAMES[row['app']]} | {fmt(row['clean'])} | {row['calls']} | {row['fail_at']} | "
                     f"{fmt(row['time'])} | {'yes' if row['exact'] else '**no**'} | {recovery_ms(row)} | "
                     f"{row['work_per_n']:.2f} |")
    if results.get("ray"):
        lines += ["", f"### Ray: a local 2-actor cluster ({results['ray_graph']})", "",
                  "| app | threads (s) | Ray, whole query (s) | Ray, the run's time_s (s) | ÷ threads | exact |",
                  "|---|---|---|---|---|---|"]
        for row in results["ray"]:
            lines.append(f"| {APP_NAMES[row['app']]} | {fmt(row['threads'])} | {fmt(row['ray'])} | "
                         f"{fmt(row['inner'])} | {row['overhead']:.1f}× | {'yes' if row['exact'] else '**no**'} |")
    load = os.getloadavg()
    lines += ["", f"Generated by `benchmarks/runtime.py{' --quick' if args.quick else ''}` in "
              f"{(time.perf_counter() - started) / 60:.1f} min on {platform.machine()} with {os.cpu_count()} logical "
              f"CPUs; `uptime` load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 "
              f"min: other processes shared the cores, so read the times as ±50 %). apportion: 2 one-thread CPU "
              f"devices unless said, best of {args.repeats} wall-clock queries after one warm-up, "
              f"placement passed in and timed apart. Anchors: best of {args.repeats}; SciPy {scipy.__version__} "
              f"(one thread), NetworKit {networkit.__version__} ({args.threads} threads), Numba "
              f"{numba.__version__}. Weights: uniform integers 1–99 (seed {WEIGHT_SEED}) on delaunay and rmat, "
              f"integer lengths on road. ÷ faster anchor below 1 (bold) means apportion was faster."]
    return "\n".join(lines)


def print_rich(markdown: str) -> None:
    """The rendered page as rich tables on stdout (the same text the docs get, one table per `###` heading)."""
    import re

    from rich.console import Console
    from rich.table import Table

    console = Console()
    title, table = "", None
    for line in markdown.splitlines() + [""]:
        if line.startswith("|"):
            cells = [re.sub(r"\*\*(.+?)\*\*", r"[bold]\1[/bold]", c.strip()) for c in line.strip("|").split("|")]
            if table is None:
                table = Table(title=title, title_justify="left")
                for cell in cells:
                    table.add_column(cell)
            elif not all(set(c) <= {"-"} for c in cells):
                table.add_row(*cells)
            continue
        if table is not None:
            console.print(table)
            table = None
        if line.startswith("### "):
            title = line[4:]
        elif line.strip():
            console.print(line, markup=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2^16 / rmat 14 graphs (a smoke run); prints only")
    parser.add_argument("--repeats", type=int, default=3, help="timed queries per tool (default 3; best kept)")
    parser.add_argument("--ray-repeats", type=int, default=1, help="timed Ray queries (default 1)")
    parser.add_argument("--threads", type=int, default=2, help="NetworKit threads (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="placement seed")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray section")
    parser.add_argument("--no-docs", action="store_true", help="print only; leave docs/runtime.md alone")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated sections to run (default all: {','.join(SECTIONS)}); a subset "
                             "prints only")
    parser.add_argument("--apps", default=",".join(APPS), help="apps of the speed section (default all)")
    parser.add_argument("--graphs", default="delaunay,rmat,road",
                        help="graph kinds of the speed section (default all; the other sections use theirs)")
    args = parser.parse_args()
    sections = [s for s in args.sections.split(",") if s]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}; choose from {','.join(SECTIONS)}")
    partial = set(sections) != set(SECTIONS) or set(args.apps.split(",")) != set(APPS) \
        or set(args.graphs.split(",")) != {"delaunay", "rmat", "road"}
    started = time.perf_counter()

    import networkit as nk

    nk.setNumberOfThreads(args.threads)
    warm_partitioner()
    wanted = set(args.graphs.split(","))
    if not partial:
        wanted = {"delaunay", "rmat", "road"}
    if "hetero" in sections:
        wanted |= {"rmat", "road"}
    if {"work", "profile", "failure", "ray"} & set(sections):
        wanted |= {"road"} if args.quick else {"delaunay", "road"}
    needs_small = "correctness" in sections or args.quick
    small = [prepare(kind, n, args.seed) for kind, n in QUICK if needs_small and (kind in wanted or
                                                                                   "correctness" in sections)]
    sizes = QUICK if args.quick else FULL
    cases = small if args.quick else [prepare(kind, n, args.seed) for kind, n in sizes if kind in wanted]
    by_kind = {case.graph.name.split()[0]: case for case in cases}
    print(f"graphs ready in {time.perf_counter() - started:.1f} s: "
          + ", ".join(f"{c.label} (n={c.graph.n:,} m={c.graph.m:,})" for c in cases), flush=True)
    results: dict = {"speed": [], "correctness": [], "work": [], "hetero": [], "profile": [], "failure": []}
    speed_cases = [c for c in cases if c.graph.name.split()[0] in set(args.graphs.split(","))]
    if "speed" in sections:
        print("speed", flush=True)
        results["speed"] = speed(speed_cases, args)
    if "correctness" in sections:
        print("correctness", flush=True)
        results["correctness"] = correctness(small)
    road = by_kind.get("road")
    if "work" in sections:
        print("work", flush=True)
        results["work"] = work([by_kind["delaunay"], road] if not args.quick else cases, args)
    if "hetero" in sections:
        print("heterogeneity", flush=True)
        results["hetero"] = heterogeneity([by_kind["rmat"], road], args)
    results["profile_graph"], results["profile_source"] = (road.label, road.source) if road else ("", 0)
    if "profile" in sections:
        print("profile", flush=True)
        results["profile"] = profile(road, args)
    results["failure_graph"] = road.label if road else ""
    if "failure" in sections:
        print("failure", flush=True)
        results["failure"] = failure(road)
    if "ray" in sections and not args.no_ray:
        print("ray", flush=True)
        results["ray_graph"] = road.label
        results["ray"] = ray_section(road, args)
    table = render(results, cases, args, started)
    print()
    print_rich(table)
    if not args.no_docs and not args.quick and not partial:
        write_generated_block(DOC, "runtime", table)
        print(f"tables written to {DOC.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
