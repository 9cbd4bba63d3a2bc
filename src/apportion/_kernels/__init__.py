"""Numba primitives shared by every layer (bottom layer: imports nothing from apportion).

`heap`: the one addressable binary heap; `hashing`: the one seeded 64-bit hash (SplitMix64's finaliser);
`prefetch`: a software prefetch of an array element (for loops that know which rows they read next).
"""
