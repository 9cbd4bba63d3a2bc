"""Transports: how the devices of a distributed worklist run and talk — threads in one process (threads.py) and
Ray actors (ray.py)."""
