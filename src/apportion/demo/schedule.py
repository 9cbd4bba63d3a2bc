"""Demo section: HASS on a simulated CPU + 2 GPU machine and on this machine's devices (seed 000 ch. 3)."""

from __future__ import annotations

TITLE = "Scheduling a divisible load: HASS (seed 000 ch. 3)"
ORDER = 40


def run(ctx) -> None:
    from rich.table import Table

    from apportion.apps.matmul import MATMUL_KERNELS, matmul_workload, random_matrices
    from apportion.platform import CPUDevice, Platform, ThrottledDevice
    from apportion.schedule.api import run_schedule

    console = ctx.console
    # 1. the thesis's machine, simulated: Xeon E5540 + Tesla C1060 + Quadro 600
    platform = Platform.load("seed000")
    rounds = 6
    workload = matmul_workload(None, None, 48, size=6000)
    results = {p: run_schedule(workload, platform, p, rounds, compute=False) for p in ("hass", "greedy", "minmin")}
    hass = results["hass"]
    table = Table(title="matmul 6000² in 48 chunks on simulated seed000 (makespan / oracle per round)",
                  title_justify="left")
    table.add_column("round", justify="right")
    for name in results:
        table.add_column(name, justify="right")
    table.add_column("HASS shares CPU / C1060 / Q600")
    for r in range(rounds):
        table.add_row(str(r), *(f"{results[p].makespans[r] / hass.oracle_makespan:.3f}" for p in results),
                      " / ".join(f"{s:.3f}" for s in hass.shares[r]))
    console.print(table)
    console.print(f"oracle {hass.oracle_makespan:.3f} s; HASS split final from round {hass.converged_at}")
    path = hass.trace.gantt(ctx.picture("schedule_simulated_hass.png"), rounds=[0, 1, 2],
                            title="HASS on simulated Xeon E5540 + Tesla C1060 + Quadro 600, rounds 0-2")
    console.print(f"Gantt chart: {path}")

    # 2. this machine: a CPU core and a second core made 3x slower
    a, b = random_matrices(480, seed=ctx.seed)
    MATMUL_KERNELS.cpu(a[:2], b)  # Numba's first call in a process (~1 s) must not land in HASS's profiling run
    devices = [CPUDevice(1, name="cpu"), ThrottledDevice(CPUDevice(1, name="cpu-b"), 3.0, name="cpu/3")]
    real = run_schedule(matmul_workload(a, b, 24), devices, "hass", 4)
    ok = bool(abs(real.result - a @ b).max() < 1e-2)
    console.print("this machine, CPUDevice(1) + ThrottledDevice(CPUDevice(1), 3), matmul 480² in 24 chunks: makespans "
                  + ", ".join(f"{m * 1e3:.1f} ms" for m in real.makespans)
                  + "; shares of the last round " + " / ".join(f"{s:.2f}" for s in real.shares[-1])
                  + f"; result {'matches' if ok else 'DIFFERS FROM'} NumPy")
    path = real.trace.gantt(ctx.picture("schedule_real_hass.png"),
                            title="HASS on this machine: CPUDevice(1) + ThrottledDevice(CPUDevice(1), 3)")
    console.print(f"Gantt chart: {path}")
