"""Benchmark: HASS against the oracle and the baselines (seed 000 ch. 3.4), on simulated and real devices.

    python benchmarks/schedule.py [--quick] [--ray] [--no-docs]

1. Simulated seed-000 platform (Xeon E5540 + Tesla C1060 + Quadro 600): matmul 6000^2 and 10000^2, 50 MB text
   search, 10 rounds: HASS per round / oracle, against min-min, greedy, static-peak and dynamic.
2. Qilin trained on 10 %, 30 %, 50 % of the input against HASS, on the CPU + C1060 pair (Qilin is 1 CPU + 1 GPU).
3. Real devices here: CPUDevice(1) + ThrottledDevice(CPUDevice(1), 3): HASS per round against the best static
   split found by exhaustive search (every split of the chunks, each run, best kept) — side by side, one run.
4. Scheduling overhead per decision (us) and in total relative to the makespan, locally (threads) and on Ray
   (`--ray`: a local 2-CPU Ray cluster).
5. Every policy on real devices (`--policies`, its own block `schedule-policies`): fast + one throttled 3x, and
   fast + two throttled 3x, on matmul, text search and PBF: an exhaustive search measures every composition of
   the chunks as a static split (round 1 of a two-round schedule) to pick candidates; the policies run; then
   the best candidates and every split a policy took are measured again, interleaved repetitions, and those
   medians name the best static split and judge each policy's round-3 split (HASS's also at round 6). Each
   policy's own run is also shown against the search's best split's same round in a schedule of as many
   rounds; wall clock and dedicated time (thread CPU x throttle factor), with the load average.
Tables go to docs/scheduling.md between <!-- BEGIN name --> and <!-- END name --> for the names `schedule` (1-2),
`schedule-real` (3-4) and `schedule-policies` (5); Gantt charts to docs/img/schedule_*.png. --quick shrinks the
real-device parts (sizes, repetitions). `--simulated` runs only parts 1-2, `--policies` only part 5.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from apportion.apps.matmul import matmul_workload, random_matrices
from apportion.platform import CPUDevice, Platform, ThrottledDevice
from apportion.schedule.api import run_schedule
from apportion.schedule.policies.static import StaticPolicy
from apportion.apps.workloads import build_workload
from _docs import write_generated_block

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "scheduling.md"
IMG = ROOT / "docs" / "img"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def simulated_section(lines, rounds=10):
    platform = Platform.load("seed000")
    cases = [("matmul 6000²", "matmul", 6000), ("matmul 10000²", "matmul", 10000),
             ("text search 50 MB", "textsearch", 50), ("PBF 64 M elements", "pbf", 64)]
    summary = []
    for label, name, size in cases:
        workload = build_workload(name, size, materialize=False)
        runs = {p: run_schedule(workload, platform, p, rounds, compute=False)
                for p in ("hass", "minmin", "greedy", "static-peak", "dynamic", "static-even")}
        hass = runs["hass"]
        oracle = hass.oracle_makespan
        if name == "matmul" and size == 6000:
            hass.trace.gantt(IMG / "schedule_seed000_matmul_hass.png", rounds=[0, 1, 2],
                             title="HASS, simulated seed000, matmul 6000², rounds 0-2")
            runs["greedy"].trace.gantt(IMG / "schedule_seed000_matmul_greedy.png", rounds=[0],
                                       title="greedy, simulated seed000, matmul 6000², round 0")
        rows = []
        for r in range(rounds):
            rows.append([r, f"{hass.makespans[r]:.4f}", f"{hass.makespans[r] / oracle:.3f}",
                         " / ".join(f"{s:.3f}" for s in hass.shares[r]),
                         f"{runs['minmin'].makespans[r] / oracle:.3f}", f"{runs['greedy'].makespans[r] / oracle:.3f}"])
        lines.append(f"\n**{label}** ({workload.n_chunks} chunks; oracle makespan {oracle:.4f} s, oracle shares "
                     + " / ".join(f"{s:.3f}" for s in hass.oracle_shares) + f"; HASS split final from round "
                     f"{hass.converged_at})\n")
        lines.append(table(["round", "HASS (s)", "HASS / oracle", "HASS shares (CPU / C1060 / Q600)",
                            "min-min / oracle", "greedy / oracle"], rows))
        best_by_6 = min(hass.makespans[:7]) / oracle
        summary.append([label, f"{hass.makespans[6] / oracle:.3f}", f"{best_by_6:.3f}",
                        f"{runs['minmin'].makespans[-1] / oracle:.3f}", f"{runs['greedy'].makespans[-1] / oracle:.3f}",
                        f"{runs['static-peak'].makespans[-1] / oracle:.3f}",
                        f"{runs['static-even'].makespans[-1] / oracle:.3f}",
                        f"{runs['dynamic'].makespans[-1] / oracle:.3f}"])
        print(f"[sim] {label}: HASS round 6 / oracle = {hass.makespans[6] / oracle:.3f}, min-min "
              f"{runs['minmin'].makespans[-1] / oracle:.3f}, greedy {runs['greedy'].makespans[-1] / oracle:.3f}")
    lines.append("\n**Summary** (makespan / oracle; HASS at round 6, baselines' last round)\n")
    lines.append(table(["workload", "HASS r6", "HASS best r0-6", "min-min", "greedy", "static-peak", "static-even",
                        "dynamic"], summary))


def qilin_section(lines, rounds=10):
    platform = Platform.load("seed000").subset(["xeon-e5540", "tesla-c1060"], name="seed000-cpu+c1060")
    rows = []
    for label, name, size in [("matmul 10000²", "matmul", 10000), ("text search 50 MB", "textsearch", 50)]:
        workload = build_workload(name, size, materialize=False)
        hass = run_schedule(workload, platform, "hass", rounds, compute=False)
        oracle = hass.oracle_makespan
        row = [label, " ".join(f"{m / oracle:.3f}" for m in hass.makespans[:7])]
        for fraction in (0.1, 0.3, 0.5):
            q = run_schedule(workload, platform, "qilin", 1, compute=False, policy_options={"fraction": fraction})
            row.append(f"{q.makespans[0] / oracle:.3f} (train {q.training_s:.2f} s)")
        rows.append(row)
        print(f"[qilin] {label}: {row[2:]}")
    lines.append("\n**Qilin vs HASS, CPU + Tesla C1060** (makespan / oracle; Qilin's training time is not in its "
                 "makespan)\n")
    lines.append(table(["workload", "HASS rounds 0-6", "Qilin 10 %", "Qilin 30 %", "Qilin 50 %"], rows))


def thread_capacity(block, b, seconds=0.6):
    """Chunks per second of this process with one thread, then with two threads, running the CPU kernel side by
    side (same measurement window). On an idle 2-core machine two threads do ~2x; under Linux's CFS autogroup
    the process gets one group's share of the cores however many threads it runs, so on a loaded machine two
    threads do ~1x: the two CPU "devices" then share one budget instead of being two processors."""
    import threading

    from apportion.apps._matmul_kernels import matmul_rows

    def rate(threads):
        counts = [0] * threads
        stop = time.perf_counter() + seconds

        def loop(i):
            while time.perf_counter() < stop:
                matmul_rows(block, b)
                counts[i] += 1

        workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
        begin = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return sum(counts) / (time.perf_counter() - begin)

    one = rate(1)
    return rate(2) / one


def spread(values, scale=1e3):
    v = np.asarray(values, dtype=np.float64) * scale
    return f"{np.median(v):.0f} [{v.min():.0f}–{v.max():.0f}]"


def real_section(lines, quick, rounds=8):
    """HASS vs every static split on CPUDevice(1) + ThrottledDevice(CPUDevice(1), 3), interleaved repetitions.

    Size: matmul 1600² in 24 chunks (quick: 960² in 24) — a chunk costs ~13 ms of CPU alone, tens of ms on the
    shared machine, far above the scheduler's time slice; 24 chunks split 18 / 6 exactly at the 3:1 ratio.
    Two makespans per run: wall (what happened) and dedicated (max over devices of the summed thread CPU time of
    its runs x throttle factor: what the same split takes when each device has a core of its own).
    """
    import os

    size, chunks, reps = (960, 24, 2) if quick else (1600, 24, 3)
    a, b = random_matrices(size, seed=0)
    workload = matmul_workload(a, b, chunks)

    def platform():
        return [CPUDevice(1, name="cpu"), ThrottledDevice(CPUDevice(1, name="cpu-b"), 3.0, name="cpu/3")]

    run_schedule(workload, platform(), "static-even", 1)  # compile the kernels before timing anything
    block = np.ascontiguousarray(a[: size // chunks])
    # exhaustive search over static splits; the machine is shared, so every split is run `reps` times and
    # HASS's whole multi-round run is repeated `reps` times, interleaved, and medians are compared
    wall = {k: [] for k in range(chunks + 1)}
    dedicated = {k: [] for k in range(chunks + 1)}
    hass_runs, loads, capacity = [], [], []
    for _ in range(reps):
        loads.append(os.getloadavg()[0])
        capacity.append(thread_capacity(block, b))
        for k in range(chunks + 1):
            record = run_schedule(workload, platform(), StaticPolicy(shares=[k, chunks - k]), 1).rounds[0]
            wall[k].append(record.makespan)
            dedicated[k].append(record.dedicated_makespan)
        hass_runs.append(run_schedule(workload, platform(), "hass", rounds))
    loads.append(os.getloadavg()[0])
    capacity.append(thread_capacity(block, b))
    wall_med = {k: float(np.median(v)) for k, v in wall.items()}
    ded_med = {k: float(np.median(v)) for k, v in dedicated.items()}
    best_k = min(wall_med, key=wall_med.get)
    best_ded_k = min(ded_med, key=ded_med.get)
    best_static, best_ded = wall_med[best_k], ded_med[best_ded_k]
    hass_wall = np.array([h.makespans for h in hass_runs])
    hass_ded = np.array([[r.dedicated_makespan for r in h.rounds] for h in hass_runs])
    hass = hass_runs[int(np.argsort(hass_wall[:, -1])[reps // 2])]
    hass.trace.gantt(IMG / "schedule_real_hass.png", title=f"HASS on this machine: CPUDevice(1) + "
                     f"ThrottledDevice(CPUDevice(1), 3), matmul {size}², {rounds} rounds")
    rows = [[r, spread(hass_wall[:, r]), f"{np.median(hass_wall[:, r]) / best_static:.3f}",
             spread(hass_ded[:, r]), f"{np.median(hass_ded[:, r]) / best_ded:.3f}",
             " / ".join(str(int(np.median([h.rounds[r].chunks[d] for h in hass_runs]))) for d in range(2)),
             f"{1e6 * rec.overhead_s / max(1, rec.decisions):.1f}", f"{100 * rec.overhead_s / rec.makespan:.3f} %"]
            for r, rec in enumerate(hass.rounds)]
    splits = [[k, spread(wall[k]), spread(dedicated[k])] for k in range(chunks + 1)
              if k in (0, chunks // 2, best_k, best_ded_k, chunks * 3 // 4, chunks - 2, chunks - 1, chunks)]
    lines.append(f"\n**Real devices here** (matmul {size}², {chunks} chunks, {reps} interleaved repetitions; "
                 f"load average (1 min) during the run {min(loads):.1f}–{max(loads):.1f} on 2 cores; two threads "
                 f"of this process computed {min(capacity):.2f}–{max(capacity):.2f}x what one thread did). "
                 f"Best static split, wall clock: {best_k}/{chunks} chunks on the fast device, median "
                 f"{best_static * 1e3:.0f} ms; dedicated time: {best_ded_k}/{chunks}, median {best_ded * 1e3:.0f} ms. "
                 "Times are median [min–max] over the repetitions; chunk counts are medians; overheads from the "
                 "median run.\n")
    lines.append(table(["round", "HASS wall (ms)", "wall / best static", "HASS dedicated (ms)",
                        "dedicated / best static", "chunks fast / throttled", "overhead per decision (µs)",
                        "overhead / makespan"], rows))
    lines.append("\nStatic splits (chunks on the fast device; the rest on the throttled one):\n")
    lines.append(table(["fast chunks", "wall (ms)", "dedicated (ms)"], splits))
    print(f"[real] load {min(loads):.1f}-{max(loads):.1f}, 2-thread capacity {min(capacity):.2f}-{max(capacity):.2f}")
    print(f"[real] wall: best static {best_k}/{chunks} {best_static * 1e3:.0f} ms; HASS / best per round: "
          + " ".join(f"{m / best_static:.3f}" for m in np.median(hass_wall, axis=0)))
    print(f"[real] dedicated: best static {best_ded_k}/{chunks} {best_ded * 1e3:.0f} ms; HASS / best per round: "
          + " ".join(f"{m / best_ded:.3f}" for m in np.median(hass_ded, axis=0)))
    return workload


REAL_WORKLOADS = {"matmul": ("matmul 1600²", 1600), "textsearch": ("text search 4 MB", 4),
                  "pbf": ("PBF 32 M elements", 32)}
REAL_POLICIES = ("hass", "minmin", "greedy", "dynamic", "static-peak", "static-even", "qilin")


def compositions(total, parts):
    """Every way to give `total` chunks to `parts` devices (each ≥ 0), in lexicographic order."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in compositions(total - first, parts - 1):
            yield (first, *rest)


def real_policies_section(quick):
    """Part 5 (module docstring): every policy against the exhaustive best static split on real devices."""
    import os

    chunks, reps, confirm_reps, final_reps = (12, 1, 1, 2) if quick else (12, 1, 3, 5)
    platforms = {
        "fast + throttled 3×": lambda: [CPUDevice(1, name="fast"),
                                        ThrottledDevice(CPUDevice(1, name="slow-inner"), 3.0, name="slow")],
        "fast + 2 throttled 3×": lambda: [CPUDevice(1, name="fast"),
                                          ThrottledDevice(CPUDevice(1, name="s1"), 3.0, name="slow1"),
                                          ThrottledDevice(CPUDevice(1, name="s2"), 3.0, name="slow2")],
    }
    loads = [os.getloadavg()[0]]
    out = [f"_Generated by `python benchmarks/schedule.py --policies{' --quick' if quick else ''}`._", ""]
    summary = []
    t0 = time.perf_counter()

    def measure(workload, make, candidates, times):
        """Every candidate split `times` times, interleaved, each as round 1 of a two-round schedule (like the
        policies' later rounds, not the first round of a fresh platform): {split: ([wall], [dedicated])}."""
        found = {c: ([], []) for c in candidates}
        for _ in range(times):
            for c in candidates:
                record = run_schedule(workload, make(), StaticPolicy(shares=list(c)), 2).rounds[1]
                found[c][0].append(record.makespan)
                found[c][1].append(record.dedicated_makespan)
            loads.append(os.getloadavg()[0])
        return found

    for platform_label, make in platforms.items():
        p = len(make())
        splits = list(compositions(chunks, p))
        rows = []
        for name, (label, size) in REAL_WORKLOADS.items():
            workload = build_workload(name, size / (4 if quick else 1), chunks)
            run_schedule(workload, make(), "static-even", 1)  # compile before timing anything
            # 1. the search: every split once (the minimum over many noisy splits is biased low, so this only
            #    picks the candidates)
            coarse = measure(workload, make, splits, reps)
            by_wall = sorted(splits, key=lambda c: np.median(coarse[c][0]))
            by_ded = sorted(splits, key=lambda c: np.median(coarse[c][1]))
            # 2. the policies, interleaved with the two best candidates run as schedules of as many rounds as
            #    HASS's (a policy's round r is compared with the best static split's round r: a platform's first
            #    rounds are slower than its later ones whatever the split)
            runs = {policy: [] for policy in REAL_POLICIES if policy != "qilin" or p == 2}
            confirm = {"wall": [], "dedicated": []}
            for _ in range(confirm_reps):
                confirm["wall"].append(run_schedule(workload, make(), StaticPolicy(shares=list(by_wall[0])), 7))
                confirm["dedicated"].append(run_schedule(workload, make(), StaticPolicy(shares=list(by_ded[0])), 7))
                for policy in runs:
                    runs[policy].append(run_schedule(workload, make(), policy, 7 if policy == "hass" else 4))
                loads.append(os.getloadavg()[0])
            # 3. the final measurement: the search's best six by each clock and every split a policy took, each
            #    `final_reps` times, interleaved; the best static split and every policy's split are judged by it
            taken = {tuple(int(c) for c in s.rounds[r].chunks) for schedules in runs.values() for s in schedules
                     for r in (3, 6) if r < len(s.rounds)}
            candidates = list(dict.fromkeys(by_wall[:6] + by_ded[:6] + sorted(taken)))
            final = measure(workload, make, candidates, final_reps)
            wall_med = {c: float(np.median(v[0])) for c, v in final.items()}
            ded_med = {c: float(np.median(v[1])) for c, v in final.items()}
            best_wall = min(wall_med, key=wall_med.get)
            best_ded = min(ded_med, key=ded_med.get)

            def best_at(r):
                return (float(np.median([s.rounds[r].makespan for s in confirm["wall"]])),
                        float(np.median([s.rounds[r].dedicated_makespan for s in confirm["dedicated"]])))

            reference = ("" if (by_wall[0], by_ded[0]) == (best_wall, best_ded) else
                         f" (runs against the search's {'/'.join(map(str, by_wall[0]))} · "
                         f"{'/'.join(map(str, by_ded[0]))})")
            rows.append([f"**{label}**", "best static (exhaustive search)", "/".join(map(str, best_wall)) + " · "
                         + "/".join(map(str, best_ded)) + reference, "1", "1", f"{best_at(3)[0] * 1e3:.0f} ms", "1",
                         f"{best_at(3)[1] * 1e3:.0f} ms", "1"])
            for policy, schedules in runs.items():
                for r in ((3, 6) if policy == "hass" else (3,)):
                    best_wall_s, best_ded_s = best_at(r)
                    w = float(np.median([s.rounds[r].makespan for s in schedules]))
                    d = float(np.median([s.rounds[r].dedicated_makespan for s in schedules]))
                    # the split itself, judged by the search's own measurement of it as a static split: the
                    # same method and repetitions as the best one, so one run's luck does not decide
                    took = [tuple(int(c) for c in s.rounds[r].chunks) for s in schedules]
                    sw = float(np.median([wall_med[t] / wall_med[best_wall] for t in took]))
                    sd = float(np.median([ded_med[t] / ded_med[best_ded] for t in took]))
                    split = "/".join(str(int(np.median([t[i] for t in took]))) for i in range(p))
                    rows.append(["", f"{policy} round {r}", split, f"{sw:.2f}", f"{sd:.2f}", f"{w * 1e3:.0f} ms",
                                 f"{w / best_wall_s:.2f}", f"{d * 1e3:.0f} ms", f"{d / best_ded_s:.2f}"])
                    summary.append((platform_label, label, policy, r, sw, sd, w / best_wall_s, d / best_ded_s))
            print(f"[policies] {platform_label} {label}: best static {best_wall} (wall) {best_ded} (dedicated); "
                  + ", ".join(f"{pol} r{r} split {sw:.2f}/{sd:.2f} run {rw:.2f}/{rd:.2f}"
                              for pl, lb, pol, r, sw, sd, rw, rd in summary if pl == platform_label and lb == label),
                  flush=True)
        out += [f"**{platform_label}** ({chunks} chunks per load; splits as chunks per device, "
                + " / ".join(d.name for d in make()) + "; best static: wall-clock best · dedicated-time best)", "",
                table(["workload", "policy", "split", "split / best static, wall", "split / best static, dedicated",
                       "run wall (median)", "run wall / best static's", "run dedicated (median)",
                       "run dedicated / best static's"], rows), ""]
    r3 = [x for x in summary if x[3] == 3]
    hass6 = [x for x in summary if x[2] == "hass" and x[3] == 6]
    out += [f"Round 3, every policy's split within 10 % of the best static split: {sum(x[4] <= 1.10 for x in r3)} "
            f"of {len(r3)} by the wall clock, {sum(x[5] <= 1.10 for x in r3)} of {len(r3)} by dedicated time; "
            f"HASS's round-6 split within 5 %: {sum(x[4] <= 1.05 for x in hass6)} of {len(hass6)} by the wall clock, "
            f"{sum(x[5] <= 1.05 for x in hass6)} of {len(hass6)} by dedicated time. Cases outside: "
            + ("; ".join(f"{pl}, {lb}, {pol} r{r}: {sw:.2f} wall / {sd:.2f} dedicated"
                         for pl, lb, pol, r, sw, sd, rw, rd in summary
                         if (r == 3 and max(sw, sd) > 1.10) or (pol == "hass" and r == 6 and max(sw, sd) > 1.05))
               or "none") + ".",
            "", f"Load average (1 min) of the 2-core machine during the run: {min(loads):.1f}–{max(loads):.1f}. "
            f"Method: every split measured {reps} time(s) as round 1 of a two-round schedule picks the candidates; "
            f"the policies run {confirm_reps} times ({7} rounds for HASS, 4 for the others), interleaved with the "
            f"search's best split run as 7-round schedules (the \"run\" columns: each round r against that "
            f"split's round r, medians); then the search's best six splits and every split a policy took are "
            f"measured {final_reps} times, interleaved, and these medians name the best static split and judge "
            f"each policy's split (\"split / best static\", the median over its runs); "
            f"{time.perf_counter() - t0:.0f} s in all."]
    return "\n".join(out)


def ray_section(lines, workload):
    import ray

    from apportion.platform.ray import RayDevice

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        devices = [RayDevice(name="ray0"), RayDevice(name="ray1")]
        schedule = run_schedule(workload, devices, "hass", 4)
        rows = [[r.index, f"{r.makespan * 1e3:.2f}", f"{1e6 * r.overhead_s / max(1, r.decisions):.1f}",
                 f"{100 * r.overhead_s / r.makespan:.2f} %",
                 f"{1e3 * sum(i.duration for i in schedule.trace.intervals if i.round == r.index and i.kind == 'transfer'):.2f}"]
                for r in schedule.rounds]
        lines.append("\n**Ray** (2 actors on a local 2-CPU cluster, same matmul; transport = object store + "
                     "remote call time, summed over devices)\n")
        lines.append(table(["round", "makespan (ms)", "overhead per decision (µs)", "overhead / makespan",
                            "transport (ms)"], rows))
        print("[ray] " + " ".join(f"{r.makespan * 1e3:.1f}ms" for r in schedule.rounds))
        for d in devices:
            d.close()
    finally:
        ray.shutdown()




def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ray", action="store_true", help="also measure on a local Ray cluster")
    parser.add_argument("--no-docs", action="store_true")
    parser.add_argument("--policies", action="store_true", help="only part 5: every policy on real devices")
    parser.add_argument("--simulated", action="store_true", help="only parts 1-2 (simulated; no real devices)")
    args = parser.parse_args(argv)
    IMG.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    if args.policies:
        text = real_policies_section(args.quick)
        print(text)
        if not args.no_docs:
            write_generated_block(DOC, "schedule-policies", text)
        print(f"done in {time.perf_counter() - start:.1f} s")
        return 0
    lines = [f"_Generated by `python benchmarks/schedule.py{' --simulated' if args.simulated else ''}`._"]
    simulated_section(lines)
    qilin_section(lines)
    if not args.no_docs:
        write_generated_block(DOC, "schedule", "\n".join(lines))
    if not args.simulated:
        real_lines = [f"_Generated by `python benchmarks/schedule.py{' --quick' if args.quick else ''}"
                      f"{' --ray' if args.ray else ''}`._"]
        workload = real_section(real_lines, args.quick)
        if args.ray:
            ray_section(real_lines, workload)
        if not args.no_docs:
            write_generated_block(DOC, "schedule-real", "\n".join(real_lines))
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
