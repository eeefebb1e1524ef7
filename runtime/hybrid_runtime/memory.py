"""Device arrays: memory on a CUDA device with a NumPy-like shape and dtype.

``DeviceArray`` exports ``__cuda_array_interface__`` (v3), so CuPy, PyTorch and numba can use it
in place, and any object exporting that interface can be passed to a launch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .device import CudaDevice, get_device, select
from .driver import check, initialise


class DeviceArray:
    """A C-contiguous array in device memory."""

    def __init__(self, shape: int | tuple[int, ...], dtype: Any = np.float32, device: CudaDevice | None = None) -> None:
        self.shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.device = device or get_device(0)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        cu = initialise()
        self.device.activate()
        self.ptr = int(check(cu.cuMemAlloc(max(self.nbytes, 1)), "cuMemAlloc"))
        self._cu = cu

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def strides(self) -> tuple[int, ...]:
        strides: list[int] = []
        acc = self.dtype.itemsize
        for dim in reversed(self.shape):
            strides.insert(0, acc)
            acc *= dim
        return tuple(strides)

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype.name}, device=cuda:{self.device.ordinal})"

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.ptr, False),
            "strides": None,
            "version": 3,
        }

    def copy_from_host(self, host: np.ndarray) -> None:
        host = np.ascontiguousarray(host, dtype=self.dtype)
        if host.shape != self.shape:
            raise ValueError(f"cannot copy an array of shape {host.shape} into a device array of shape {self.shape}")
        if self.nbytes:
            self.device.activate()
            check(self._cu.cuMemcpyHtoD(self.ptr, host.ctypes.data, self.nbytes), "cuMemcpyHtoD")

    def copy_to_host(self, out: np.ndarray | None = None) -> np.ndarray:
        """Wait for pending work and copy the data into a new (or the given) NumPy array."""
        target = out if out is not None and out.flags.c_contiguous else np.empty(self.shape, self.dtype)
        if target.shape != self.shape or target.dtype != self.dtype:
            raise ValueError(f"out must have shape {self.shape} and dtype {self.dtype.name}")
        if self.nbytes:
            self.device.activate()
            check(self._cu.cuMemcpyDtoH(target.ctypes.data, self.ptr, self.nbytes), "cuMemcpyDtoH")
        if out is not None and target is not out:
            out[...] = target
            return out
        return target

    def free(self) -> None:
        if getattr(self, "ptr", 0):
            try:
                self._cu.cuMemFree(self.ptr)
            except Exception:  # interpreter shutdown: the driver may be gone already
                pass
            self.ptr = 0

    def __del__(self) -> None:
        self.free()


def _cuda_device(device: str | None) -> CudaDevice:
    dev = select(device if device is not None else "cuda")
    if dev is None:
        raise ValueError("device arrays live on a CUDA device; device='cpu' has none")
    return dev


def to_device(array: Any, device: str | None = None) -> DeviceArray:
    """Copy a NumPy array to the GPU."""
    host = np.asarray(array)
    out = DeviceArray(host.shape, host.dtype, _cuda_device(device))
    out.copy_from_host(host)
    return out


def device_array(shape: int | tuple[int, ...], dtype: Any = np.float32, device: str | None = None) -> DeviceArray:
    """Uninitialised device memory of the given shape and dtype."""
    return DeviceArray(shape, dtype, _cuda_device(device))


def copy_to_host(array: Any) -> np.ndarray:
    """A NumPy copy of a device array (or the array itself, if it is already a NumPy array)."""
    if isinstance(array, np.ndarray):
        return array
    if isinstance(array, DeviceArray):
        return array.copy_to_host()
    raise TypeError(f"copy_to_host() takes a DeviceArray, got {type(array).__name__}")
