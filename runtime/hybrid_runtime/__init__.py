"""hybrid_runtime: launch kernels compiled by hatch-hybrid, on the GPU or on the CPU."""
from .types import Array, boolean, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64
from . import gpu
