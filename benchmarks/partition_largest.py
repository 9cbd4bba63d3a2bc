"""Benchmark: the largest generated graph each partitioner handles on this machine (rmat and delaunay, doubling).

    python benchmarks/partition_largest.py                       # from 2^23 vertices up, until every tool fails
    python benchmarks/partition_largest.py --start 21 --max 26   # other sizes
    python benchmarks/partition_largest.py --start 12 --max 13 --no-docs   # a quick check of the harness
    python benchmarks/partition_largest.py --kinds delaunay --start 27 --max 27 --no-docs   # one step alone

For each kind of graph the sizes double from 2^start until every tool has failed (or 2^max). Every step runs in
a fresh process watched from here: the generator (which writes the graph as NumPy arrays, and as a METIS text
file for KaMinPar), then apportion `default`, KaMinPar `default` and METIS (pymetis) at k = 64, ε = 0.03, on the
same thread count, then a check of each partition's cut and balance. A process is killed when its resident
memory passes `--memory-gb` (default: the machine's memory less 2 GB, so that the machine itself survives) or it
runs past `--timeout` seconds; that is the tool's failure at that size, and it is not run on larger graphs. A
generator failing ends the kind (no tool can be tried larger). Writes the table into docs/partition.md between
`<!-- BEGIN partition-largest -->` and `<!-- END partition-largest -->`; with `--kinds` naming some kinds, the other
kinds' rows already there are kept (and the table says they come from an earlier run).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _docs import write_generated_block
# the large suite's runner, its warm-up graph and its JIT warm-up
from partition import EPSILON, _LARGE_RUN, save_warm_graph, table, warm_up

DOCS = Path(__file__).resolve().parents[1] / "docs" / "partition.md"
KINDS = ("rmat", "delaunay")
TOOLS = ("apportion default", "KaMinPar default", "METIS")
K = 64

_GENERATE = """
import sys, numpy as np, apportion
from apportion.graph.io import write_graph
kind, log, npz, text = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
graph = apportion.generate(kind, n=1 << log, seed=0)
weights = {} if graph.edge_weights is None else {"weights": graph.edge_weights}
np.savez(npz, indptr=graph.indptr, indices=graph.indices, **weights)
if text != "-":
    write_graph(graph, text)
print(graph.n, graph.m)
"""

_CHECK = """
import sys, numpy as np
npz, part_file, k, epsilon = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
d = np.load(npz)
indptr, indices, part = d["indptr"], d["indices"], np.load(part_file)
edge_weights = d["weights"] if "weights" in d else None  # read once (an .npz reads an array on every access)
n = indptr.shape[0] - 1
cut = 0
step = 1 << 20
for lo in range(0, n, step):  # the arcs of a slice of the vertices at a time (no n-by-degree temporary)
    hi = min(n, lo + step)
    rows = np.repeat(np.arange(lo, hi), np.diff(indptr[lo:hi + 1]))
    crossing = part[rows] != part[indices[indptr[lo]:indptr[hi]]]
    if edge_weights is not None:  # a weighted graph's cut is the weight of its cut edges
        cut += int(edge_weights[indptr[lo]:indptr[hi]][crossing].sum())
    else:
        cut += int(np.count_nonzero(crossing))
cut //= 2
weights = np.bincount(part, minlength=k)
limit = np.floor((1 + epsilon) * np.ceil(n / k))
print(cut, int(weights.shape[0] == k and np.all(weights <= limit)))
"""


def resident_kib(pid: int) -> int:
    """A live process's resident set (VmRSS, KiB); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def watched(args: list[str], memory_kib: int, timeout_s: float) -> tuple[str, str, float, int]:
    """Run `args`, killing it past `memory_kib` resident or `timeout_s` seconds. Returns (stdout, failure
    reason or "", seconds, peak resident KiB: the kernel's count for the finished process)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(args, stdout=out, stderr=err, text=True)
        peak, reason = 0, ""
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:  # finished: its exact peak resident set (ru_maxrss, KiB on Linux)
                returncode = os.waitstatus_to_exitcode(status)
                peak = max(peak, usage.ru_maxrss)
                break
            peak = max(peak, resident_kib(process.pid))
            if peak > memory_kib:
                reason = f"memory over {memory_kib / 2**20:.0f} GB"
            elif time.perf_counter() - start > timeout_s:
                reason = f"over {timeout_s / 60:.0f} min"
            if reason:
                process.kill()
                os.wait4(process.pid, 0)
                returncode = -9
                break
            time.sleep(0.2)
        process.returncode = returncode  # reaped here, not by Popen
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if not reason and returncode != 0:
        last = (stderr.strip().splitlines() or [f"exit {returncode}"])[-1]
        reason = f"failed: {last[:80]}"
    return stdout, reason, seconds, peak


def machine_memory_kib() -> int:
    with open("/proc/meminfo") as info:
        for line in info:
            if line.startswith("MemTotal:"):
                return int(line.split()[1])
    raise RuntimeError("no MemTotal in /proc/meminfo")


def kept_rows(page: str, rerun: tuple[str, ...]) -> tuple[list[list[str]], list[list[str]]]:
    """The summary rows and the step rows (each step with its tool rows) of the kinds *not* in `rerun`, from the
    generated block of `page` (docs/partition.md): a run of some kinds keeps the others' results."""
    begin, end = "<!-- BEGIN partition-largest -->", "<!-- END partition-largest -->"
    if begin not in page or end not in page:
        return [], []
    block = page.split(begin, 1)[1].split(end, 1)[0]
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in block.splitlines()
             if line.startswith("| ") and not line.startswith("| graph")]
    summary, steps, kind = [], [], None
    for row in cells:
        if len(row) == 4:  # the summary table: graph, tool, largest, first failure
            if row[0] in KINDS and row[0] not in rerun:
                summary.append(row)
            continue
        if row[0]:  # a step: "rmat 2^23" (generated, or the generator's failure); its tools follow with no name
            kind = row[0].split()[0]
        if kind in KINDS and kind not in rerun:
            steps.append(row)
    return summary, steps


def _by_kind(rows: list[list[str]]) -> list[list[str]]:
    """Summary rows in the order of KINDS (stable within a kind)."""
    return sorted(rows, key=lambda row: KINDS.index(row[0]))


def _grouped(rows: list[list[str]]) -> list[list[str]]:
    """Step rows (a named row, then its tools' unnamed ones) with the steps in the order of KINDS (stable)."""
    groups: list[list[list[str]]] = []
    for row in rows:
        if row[0] or not groups:
            groups.append([row])
        else:
            groups[-1].append(row)
    groups.sort(key=lambda group: KINDS.index(group[0][0].split()[0]))
    return [row for group in groups for row in group]


def largest_text(start: int, stop: int, threads: int, memory_kib: int, timeout_s: float,
                 kinds: tuple[str, ...] = KINDS, kept: tuple[list, list] = ([], [])) -> str:
    """Double each kind from 2^start to 2^stop until every tool has failed; the generated markdown. `kept`:
    summary and step rows of other kinds from an earlier run (`kept_rows`), put beside this run's."""
    tmp = Path(tempfile.mkdtemp(prefix="apportion-largest-"))
    python = sys.executable
    rows, summary = [], []
    try:
        for kind in kinds:
            alive = list(TOOLS)
            largest: dict[str, str] = {tool: "–" for tool in TOOLS}
            warm = tmp / f"{kind}-warm.npz"
            save_warm_graph(kind, warm)
            first_failure: dict[str, str] = {tool: "–" for tool in TOOLS}
            for log in range(start, stop + 1):
                if not alive:
                    break
                npz, text = tmp / "g.npz", tmp / "g.graph"
                wants_text = "KaMinPar default" in alive
                out, reason, seconds, peak = watched(
                    [python, "-c", _GENERATE, kind, str(log), str(npz), str(text) if wants_text else "-"],
                    memory_kib, timeout_s)
                label = f"{kind} 2^{log}"
                if reason:
                    rows.append([label, "generator", f"{seconds:.0f}", f"{peak / 2**20:.2f}", "–", "–", reason])
                    print(f"[largest] {label} generator: {reason}", flush=True)
                    for tool in alive:
                        first_failure[tool] = f"2^{log}: the generator failed ({reason})"
                    break
                n, m = (int(x) for x in out.split()[-2:])
                rows.append([label, f"generated (n = {n:,}, m = {m:,})", f"{seconds:.0f}", f"{peak / 2**20:.2f}",
                             "–", "–", ""])
                for tool in list(alive):
                    part = tmp / "part.npy"
                    out, reason, _, peak = watched(
                        [python, "-c", _LARGE_RUN, tool, str(npz), str(text), str(part), str(K), str(threads),
                         str(warm)],
                        memory_kib, timeout_s)
                    cut, balanced = "–", "–"
                    if not reason:
                        checked, check_reason, _, _ = watched([python, "-c", _CHECK, str(npz), str(part), str(K),
                                                               str(EPSILON)], memory_kib, timeout_s)
                        if not check_reason:
                            c, ok = checked.split()[-2:]
                            cut, balanced = f"{int(c):,}", "yes" if ok == "1" else "NO"
                        part.unlink(missing_ok=True)
                    seconds_text = f"{float(out.split()[-2]):.1f}" if not reason else "–"
                    rows.append(["", tool, seconds_text, f"{peak / 2**20:.2f}", cut, balanced, reason])
                    print(f"[largest] {label} {tool}: {seconds_text} s, peak {peak / 2**20:.2f} GB, cut {cut}, "
                          f"balanced {balanced} {reason}", flush=True)
                    if reason:
                        alive.remove(tool)
                        first_failure[tool] = f"2^{log}: {reason}"
                    else:
                        largest[tool] = f"2^{log} ({seconds_text} s, {peak / 2**20:.2f} GB)"
                text.unlink(missing_ok=True)
                npz.unlink(missing_ok=True)
            for tool in TOOLS:
                summary.append([kind, tool, largest[tool], first_failure[tool]])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    kept_summary, kept_steps = kept
    earlier = sorted({row[0] for row in kept_summary}, key=KINDS.index)
    note = (f" The {' and '.join(earlier)} rows come from an earlier run of this script (this run: "
            f"{', '.join(kinds)} only)." if earlier else "")
    steps = kept_steps + rows
    return (f"Mode `largest`, k = {K}, ε = {EPSILON}, {threads} threads, seed 0; sizes from 2^{start} doubling "
            f"to 2^{stop}; each step in a fresh process, killed past {memory_kib / 2**20:.0f} GB resident or "
            f"{timeout_s / 60:.0f} min; peak memory is the process's peak resident set (reading the graph included; the time "
            f"is the partitioner's alone). A tool that fails is not run on larger graphs.{note}\n\n"
            + table(["graph", "tool", "largest partitioned (time, peak memory)", "first failure"],
                    _by_kind(kept_summary + summary))
            + "\n\nEvery step:\n\n"
            + table(["graph", "step", "time (s)", "peak GB", "cut", "balanced", "failure"], _grouped(steps)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=23, metavar="LOG2", help="first size, 2^LOG2 vertices")
    parser.add_argument("--max", type=int, default=27, metavar="LOG2", help="last size tried")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds of graph (default: all)")
    parser.add_argument("--memory-gb", type=float, default=None,
                        help="kill a process past this resident memory (default: the machine's less 2 GB)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="kill a process after this many seconds")
    parser.add_argument("--no-docs", action="store_true", help="do not write docs/partition.md")
    args = parser.parse_args()
    if args.memory_gb is not None and args.memory_gb <= 0 or args.timeout <= 0 or args.start > args.max:
        parser.error("--memory-gb and --timeout must be positive and --start at most --max")
    limit = int(args.memory_gb * 2**20) if args.memory_gb else machine_memory_kib() - 2 * 2**20
    kinds = tuple(args.kinds.split(","))
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        parser.error(f"unknown kind {unknown[0]!r}: choose from {', '.join(KINDS)}")
    warm_up(K, args.threads, kinds)  # every step's process then loads the JIT cache
    # a run of some kinds keeps the other kinds' rows of the page (from an earlier run; the table says so)
    kept = kept_rows(DOCS.read_text(encoding="utf-8"), kinds) if not args.no_docs and DOCS.exists() else ([], [])
    text = largest_text(args.start, args.max, args.threads, limit, args.timeout, kinds, kept)
    print(text)
    if not args.no_docs:
        write_generated_block(DOCS, "partition-largest", text)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
