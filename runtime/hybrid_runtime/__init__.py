"""hybrid_runtime: launch kernels compiled by hatch-hybrid on the GPU, or run them on the CPU.

Importing this package does not touch the CUDA driver; the first launch does.
"""

from __future__ import annotations

from . import cuda, errors, gpu, numpy_support  # noqa: F401 - errors: numba.errors for ported modules
from .config import LaunchConfig
from .device import CudaDevice, devices
from .driver import CudaError, NoCudaError, cuda_available
from .kernel import Kernel, kernel
from .manifest import ManifestError
from .memory import DeviceArray, copy_to_host, device_array
from .numba_cpu import guvectorize, jit, njit, prange, vectorize
from .sanitizer import SanitizerError
from .slowpath import SlowPathWarning
from .stream import Event, Graph, Stream, pinned_array
from .structs import struct
from .targets import CPU, PYTHON, CpuDevice, Device, default_device_name, to_device
from .targets import select as select_device
from .types import (  # noqa: F401 - numba's spellings too
    Array,
    b1,
    boolean,
    byte,
    c8,
    c16,
    c64,
    c128,
    complex64,
    complex128,
    double,
    f4,
    f8,
    f16,
    f32,
    f64,
    float16,
    float32,
    float64,
    float_,
    i1,
    i2,
    i4,
    i8,
    i16,
    i32,
    i64,
    int8,
    int16,
    int32,
    int64,
    intp,
    u1,
    u2,
    u4,
    u8,
    u16,
    u32,
    u64,
    uint8,
    uint16,
    uint32,
    uint64,
    uintp,
    void,
)

__version__ = "0.1.0"  # the one version of both distributions (hatch-hybrid's pyproject reads it here)


def synchronize(device: str | None = None) -> None:
    """Wait for all work queued on a device (default: the CUDA device) to finish; raise the first failed
    device-side check of the asynchronous launches since the last synchronisation."""
    select_device(device if device is not None else "cuda").synchronize()


def launch(
    k: Kernel,
    threads: object,
    blocks: object,
    *args: object,
    device: str | None = None,
    stream: object = None,
    shared_bytes: int = 0,
) -> None:
    """``launch(k, threads, blocks, *args)``: the same as ``k.launch(threads, blocks, *args)``."""
    k.launch(threads, blocks, *args, device=device, stream=stream, shared_bytes=shared_bytes)


__all__ = [
    "Array",
    "CPU",
    "CpuDevice",
    "CudaDevice",
    "Device",
    "CudaError",
    "DeviceArray",
    "Event",
    "SanitizerError",
    "Graph",
    "Kernel",
    "LaunchConfig",
    "ManifestError",
    "NoCudaError",
    "SlowPathWarning",
    "Stream",
    "boolean",
    "c64",
    "c128",
    "complex64",
    "complex128",
    "copy_to_host",
    "cuda",
    "cuda_available",
    "default_device_name",
    "device_array",
    "devices",
    "f16",
    "f32",
    "f64",
    "gpu",
    "i16",
    "i32",
    "i64",
    "i8",
    "kernel",
    "launch",
    "pinned_array",
    "PYTHON",
    "select_device",
    "struct",
    "synchronize",
    "to_device",
    "u16",
    "u32",
    "u64",
    "u8",
    # numba's names (from numba import cuda, float32 -> from hybrid_runtime import cuda, float32)
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "intp",
    "uint8", "uint16", "uint32", "uint64", "uintp", "jit", "njit", "prange", "vectorize", "guvectorize",
    "numpy_support",
    "b1", "byte", "c8", "c16", "double", "f4", "f8", "float_", "i1", "i2", "i4", "u1", "u2", "u4", "void",
]  # fmt: skip
