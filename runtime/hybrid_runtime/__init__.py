"""hybrid_runtime: launch kernels compiled by hatch-hybrid on the GPU, or run them on the CPU.

Importing this package does not touch the CUDA driver; the first launch does.
"""

from __future__ import annotations

from . import gpu
from .config import LaunchConfig
from .device import default_device_name
from .device import select as select_device
from .driver import CudaError, NoCudaError, cuda_available
from .kernel import Kernel, kernel
from .manifest import ManifestError
from .memory import DeviceArray, copy_to_host, device_array, to_device
from .types import Array, boolean, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64

__version__ = "0.1.0"


def launch(
    k: Kernel, threads: object, blocks: object, *args: object, device: str | None = None, stream: object = None
) -> None:
    """``launch(k, threads, blocks, *args)``: the same as ``k.launch(threads, blocks, *args)``."""
    k.launch(threads, blocks, *args, device=device, stream=stream)


__all__ = [
    "Array",
    "CudaError",
    "DeviceArray",
    "Kernel",
    "LaunchConfig",
    "ManifestError",
    "NoCudaError",
    "boolean",
    "copy_to_host",
    "cuda_available",
    "default_device_name",
    "device_array",
    "f32",
    "f64",
    "gpu",
    "i8",
    "i16",
    "i32",
    "i64",
    "kernel",
    "launch",
    "select_device",
    "to_device",
    "u8",
    "u16",
    "u32",
    "u64",
]
