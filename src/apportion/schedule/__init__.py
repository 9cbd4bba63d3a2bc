"""apportion.schedule: divisible-load scheduling (seed 000 ch. 3, seed 003's router, seed 004's baselines).

`run_divisible(data, kernels, platform, policy="hass", rounds=...)` for a user's kernel; `run_schedule(workload,
platform, policy, rounds)` for a Workload (apps/matmul, textsearch, pbf); policies in `policies/`; the
discrete-event simulator in `simulate.py`, the thread/Ray executor in `execute.py`; `Trace` and Gantt charts in
`trace.py`; the equal-finish oracle in `oracle.py`.
"""
