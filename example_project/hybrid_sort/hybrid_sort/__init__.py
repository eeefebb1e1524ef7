"""hatch-hybrid example: bitonic sort of f32, u32 or i32 keys on the GPU, or on the CPU with the same
compare-and-swap logic."""

from .bitonic import Pair, SortOrder, bitonic_pass, flip, out_of_order, partner, sort, sort_cpu, sort_kernel

__all__ = ["Pair", "SortOrder", "bitonic_pass", "flip", "out_of_order", "partner", "sort", "sort_cpu", "sort_kernel"]
