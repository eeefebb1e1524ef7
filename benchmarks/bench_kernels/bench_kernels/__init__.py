"""Benchmark kernels written for hatch-hybrid (their numba-cuda and CUDA C twins are in suite.py)."""
