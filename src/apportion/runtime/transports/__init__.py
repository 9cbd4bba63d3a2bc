"""Transports: how the devices of a distributed worklist run and talk — threads in one process (threads.py) and
Ray actors (ray.py) — and scatter by availability on Ray actors (ray_scatter.py; its threads version is
runtime/scatter.py)."""
