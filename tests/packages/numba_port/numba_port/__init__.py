"""docs/porting-from-numba.md: a numba.cuda kernel, ported."""
