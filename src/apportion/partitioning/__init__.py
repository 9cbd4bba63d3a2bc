"""Partitioning: vertex (multilevel, seed 000 ch. 4-5), edge (SPAC, seed 001) and grid (NPHP, seed 002)."""
